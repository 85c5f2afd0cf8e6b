"""Experiment-only helpers: runtime-side modules only experiment code imports.

Analysis and plotting helpers often sit beside the runtime (``frameworks/utils``)
although nothing in the runtime uses them. Counted as runtime, every experiment
word in them is a finding that no runtime change can fix; ``init`` lists them and
can classify them as experiment, so the boundary and the census agree on them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from domain_fence.core.setup.layout import Layout
from domain_fence.core.source.facts import ImportFact, file_facts
from domain_fence.core.source.reading import load_tree


def experiment_only_modules(layout: Layout, experiment: Iterable[str]) -> list[str]:
    """Modules outside ``experiment`` (packages aside) that no runtime module imports
    and that experiment code uses: an experiment module imports them, or a helper
    does (``live_plotter``, imported by the experiment, importing ``plot_utils``).

    Helpers count as experiment for one another, so the answer is the largest set for
    which that holds, found by striking modules out until none is left that fails it.
    Whether a module depends on experiment code says nothing here: runtime modules
    that do are the boundary's findings, not helpers.
    """
    experiment = tuple(experiment)

    def is_experiment(module: str) -> bool:
        return any(module == e or module.startswith(e + ".") for e in experiment)

    imports = _imports(layout)
    importers: dict[str, set[str]] = {}
    for importer, imported in imports.items():
        for module in imported:
            importers.setdefault(module, set()).add(importer)
    helpers = {m for m in layout.modules if not is_experiment(m) and not layout.is_package(m)}
    while True:
        used = _closure(helpers, lambda m: importers.get(m, ()), is_experiment)
        kept = {m for m in used if all(is_experiment(i) or i in helpers for i in importers.get(m, ()))}
        if kept == helpers:
            return sorted(helpers)
        helpers = kept


def _closure(
    candidates: set[str], neighbours: Callable[[str], Iterable[str]], is_experiment: Callable[[str], bool]
) -> set[str]:
    """The candidates with a neighbour that is experiment code or already in the set."""
    found: set[str] = set()
    changed = True
    while changed:
        changed = False
        for module in candidates - found:
            if any(is_experiment(n) or n in found for n in neighbours(module)):
                found.add(module)
                changed = True
    return found


def _imports(layout: Layout) -> dict[str, set[str]]:
    """Module -> the other project modules it imports (statically, as grimp would)."""
    imports: dict[str, set[str]] = {}
    for module, path in layout.modules.items():
        if not path.name.endswith(".py"):
            continue
        facts = file_facts(module, layout.is_package(module), load_tree(path))
        imported = {_imported(fact, layout) for fact in facts.imports}
        imports[module] = {m for m in imported if m is not None and m != module}
    return imports


def _imported(fact: ImportFact, layout: Layout) -> str | None:
    if fact.name is not None and f"{fact.source}.{fact.name}" in layout.modules:
        return f"{fact.source}.{fact.name}"
    parts = fact.source.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in layout.modules:
            return candidate
    return None
