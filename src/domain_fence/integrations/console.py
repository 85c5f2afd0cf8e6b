"""The console scripts' entry points: ``domain-fence`` and ``domain-fence-lint-imports``.

They import the command line only once they stand ready for a Ctrl-C or a SIGTERM (a
CI job cancelled, ``timeout``): one that comes while click, import-linter and grimp are
imported (35-100 ms) ends the run with one line and status 130, as one later does, not
with a traceback; a SIGTERM is taken as a Ctrl-C, so nothing ends in silence. This
module imports nothing of the tool but its interrupted line, for the same reason.
"""

from __future__ import annotations

import signal
import sys
from types import FrameType
from typing import NoReturn

from domain_fence.integrations.interrupts import EXIT_INTERRUPTED, INTERRUPTED


def domain_fence() -> None:
    """``domain-fence``: :func:`domain_fence.integrations.cli.run`."""
    _terminate_as_interrupt()
    try:
        from domain_fence.integrations.cli import run
    except KeyboardInterrupt:
        _interrupted()
    run()


def lint_imports() -> None:
    """``domain-fence-lint-imports``: lint-imports, which says what becomes of a Ctrl-C
    once it runs (click's "Aborted!")."""
    _terminate_as_interrupt()
    try:
        from domain_fence.integrations.lint_imports import main

        main()
    except KeyboardInterrupt:
        _interrupted()


def _terminate_as_interrupt() -> None:
    signal.signal(signal.SIGTERM, _terminated)


def _terminated(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _interrupted() -> NoReturn:
    print(INTERRUPTED, file=sys.stderr)
    sys.exit(EXIT_INTERRUPTED)
