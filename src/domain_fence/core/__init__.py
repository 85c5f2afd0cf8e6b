"""Pure analysis. Never imports flake8, pytest, importlinter, click or rich: the
repository's own `.importlinter` holds us to that."""
