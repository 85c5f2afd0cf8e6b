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
again, for import-linter's contracts as for ours. It takes turns on grimp's cache
directory with ``check`` and flake8, which grimp writes in place.
"""

from __future__ import annotations

import sys
from contextlib import nullcontext
from pathlib import Path


def main() -> None:
    from domain_fence.integrations.importlinter.graph import served_by_bytes
    from domain_fence.integrations.importlinter.native import cache_turn

    serving = served_by_bytes()  # imported before the project is on the path
    try:
        here = Path.cwd()
    except OSError as error:  # lint-imports would stop on it with a traceback
        print(f"domain-fence-lint-imports: error: the current directory: {error.strerror or error}", file=sys.stderr)
        raise SystemExit(2) from None
    put_src_on_path(here)
    from importlinter.cli import lint_imports_command

    directory = grimp_cache_dir(sys.argv[1:])
    # grimp writes its cache in place: take turns with domain-fence check and flake8 on it.
    with cache_turn(directory) if directory is not None else nullcontext(), serving:
        lint_imports_command()


def grimp_cache_dir(arguments: list[str]) -> Path | None:
    """The directory grimp caches in for these lint-imports arguments (its default, or
    ``--cache-dir``); None with ``--no-cache``."""
    chosen = ".import_linter_cache"
    for at, argument in enumerate(arguments):
        if argument == "--no-cache":
            return None
        if argument == "--cache-dir" and at + 1 < len(arguments):
            chosen = arguments[at + 1]
        elif argument.startswith("--cache-dir="):
            chosen = argument.removeprefix("--cache-dir=")
    return Path(chosen)


def put_src_on_path(directory: Path) -> None:
    """``directory/src`` on ``sys.path`` when it exists; lint-imports puts the current
    directory in front of it, so a package at the top still wins, as with ``check``."""
    src = directory / "src"
    if src.is_dir() and str(src) not in sys.path:
        sys.path.insert(0, str(src))


if __name__ == "__main__":  # pragma: no cover
    main()
