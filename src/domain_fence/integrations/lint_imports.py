"""``domain-fence-lint-imports``: import-linter's own ``lint-imports``, with a src layout
found the way ``domain-fence check`` finds it.

lint-imports looks for root packages on ``sys.path`` with the current directory in
front, so an uninstalled src-layout project fails with ``No module named ...`` (a
pre-commit hook runs in an environment of its own, where the project is not
installed). This puts ``src/`` of the current directory on the path as well and hands
over to import-linter's command unchanged: same options, output and exit statuses.
grimp's cache serves each module by its bytes, as for ``domain-fence check`` (see
:mod:`~domain_fence.integrations.importlinter.graph_cache`): a cache restored onto a
fresh checkout is used, and a file swapped under the same modification time is read
again, for import-linter's contracts as for ours.
"""

from __future__ import annotations

import sys
from pathlib import Path


def main() -> None:
    from domain_fence.integrations.importlinter.graph import served_by_bytes

    serving = served_by_bytes()  # imported before the project is on the path
    put_src_on_path(Path.cwd())
    from importlinter.cli import lint_imports_command

    with serving:
        lint_imports_command()


def put_src_on_path(directory: Path) -> None:
    """``directory/src`` on ``sys.path`` when it exists; lint-imports puts the current
    directory in front of it, so a package at the top still wins, as with ``check``."""
    src = directory / "src"
    if src.is_dir() and str(src) not in sys.path:
        sys.path.insert(0, str(src))


if __name__ == "__main__":  # pragma: no cover
    main()
