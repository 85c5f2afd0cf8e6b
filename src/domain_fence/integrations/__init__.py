"""Thin adapters that translate core findings for each host: import-linter (the
source of truth for configuration), flake8, pytest and the command line."""
