"""domain-fence: keep a codebase's runtime free of experiment concerns.

The analysis lives in :mod:`domain_fence.core`; :mod:`domain_fence.integrations` holds
thin adapters for import-linter, flake8, pytest and the command line.
"""

__version__ = "0.1.0"
