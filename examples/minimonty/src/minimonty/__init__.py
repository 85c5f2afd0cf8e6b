"""minimonty: a small, Monty-shaped reference codebase.

Two top-level packages with a one-way dependency between them:

* ``minimonty.frameworks`` -- the runtime (learning modules and the
  telemetry they emit). It reports only facts it knows about itself.
* ``minimonty.experiment`` -- the harness that drives the runtime against
  a known world, collects telemetry and turns it into statistics.

``minimonty.experiment`` may import ``minimonty.frameworks``; the reverse
is never allowed, not even lazily.
"""

__version__ = "0.1.0"
