"""lint-imports' ``--no-cache`` and ``--cache-dir`` for our contract types.

import-linter hands its cache options to the graph builder alone; a contract only
receives the graph, and its type is imported after the graph is built. The options
are still in the command's click context while contracts are checked, so we read
them there: ``--no-cache`` means no cache of ours either, ``--cache-dir DIR`` puts
our caches in DIR beside grimp's, and without either ours stay where the
environment says (:func:`~domain_fence.core.source.factcache.cache_directory`).
"""

from __future__ import annotations

from pathlib import Path

import click

from domain_fence.core.source.cachedir import usable_directory
from domain_fence.core.source.factcache import cache_directory


def fence_cache_dir(root: Path) -> Path | None:
    """Where our contracts cache the facts of the project at ``root`` in this run."""
    environment = cache_directory(root)
    params = _lint_imports_params()
    if environment is None or params.get("no_cache"):  # DOMAIN_FENCE_NO_CACHE, --no-cache
        return None
    chosen = params.get("cache_dir")
    # Relative to the current directory, as grimp reads it.
    return usable_directory(Path(str(chosen))) if chosen else environment


def _lint_imports_params() -> dict[str, object]:
    """The options of the import-linter command running now, or {} outside one (our own
    front ends pass their cache options explicitly)."""
    context = click.get_current_context(silent=True)
    while context is not None:
        callback = context.command.callback
        if callback is not None and callback.__module__.startswith("importlinter.") and "no_cache" in context.params:
            return context.params
        context = context.parent
    return {}
