"""The boundary family: source modules never import forbidden modules, directly or
through chains (import-linter's ``forbidden`` contract, plus a baseline).

A violation is a *crossing import*: an import by which a source module leaves the
source modules towards a forbidden module, directly (DOM301) or through modules
outside the source (DOM302). Every chain import-linter would report runs through
one, and the crossing import is where the fix goes: in ``runtime.a -> runtime.b ->
experiment`` it is ``runtime.b``'s import. Each is reported once, at the imported
name, with a shortest route to the forbidden module (ties broken by module name, so
fingerprints and the baseline are the same on every run).

A module's imports come from the import graph, as ``lint-imports`` sees them; a
module checked from an editor's buffer uses the buffer's imports instead (the routes
beyond it never pass through a source module, so they do not depend on it).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from domain_fence.core.families.base import Context, Option, ProjectOutcome
from domain_fence.core.families.config import BoundaryConfig, parse_boundary
from domain_fence.core.index.project import ProjectIndex
from domain_fence.core.model import fingerprints
from domain_fence.core.model.findings import Finding
from domain_fence.core.model.report import Domains, Link
from domain_fence.core.model.rules import get_rule
from domain_fence.core.source.facts import ImportFact
from domain_fence.core.source.modules import matches_any

if TYPE_CHECKING:
    from grimp import ImportGraph


class Crossing(NamedTuple):
    """One crossing import and a shortest route from it to a forbidden module."""

    chain: tuple[Link, ...]  # the crossing import first
    col: int
    end_col: int
    line: int


def nothing_to_check(config: BoundaryConfig, modules: Iterable[str]) -> list[str]:
    """A contract whose source is empty once its forbidden and excluded modules are taken
    out (``forbidden_modules = app`` above ``source_modules = app.runtime``) is kept
    whatever the project imports: a problem of the configuration, not a pass."""
    modules = list(modules)
    if not modules or any(map(config.in_source, modules)):
        return []
    return ["source_modules: no module is left to check once forbidden_modules and exclude_modules are taken out of it"]


class BoundaryFamily:
    name = "boundary"
    needs_graph = True
    # import-linter's forbidden contract declares its own options; these are ours.
    options: tuple[Option, ...] = (
        Option("exclude_modules", "modules inside the source modules that are on neither side"),
        Option("unclassified_modules_alerting", "none (default), warn or error: modules left on neither side"),
    )

    def parse(self, contract: str, name: str, raw: Mapping[str, Any], root: Path) -> BoundaryConfig:
        return parse_boundary(contract, name, raw, root)

    def problems(self, config: BoundaryConfig, context: Context) -> list[str]:
        """Plain module names of the project that do not exist, as import-linter's
        ``forbidden`` reports them (an external module may be absent)."""
        missing = []
        modules = context.index.modules
        for option, expressions in (
            ("source_modules", config.source_modules),
            ("forbidden_modules", config.forbidden_modules),
        ):
            for expression in expressions:
                name = str(expression)
                inside = any(name == root or name.startswith(root + ".") for root in context.root_packages)
                if expression.has_wildcard or not inside or name in modules or context.index.names_skipped(name):
                    continue  # (a module the index skipped is a DOM001, not a missing one)
                missing.append(f"{option}: module {name!r} does not exist")
        # (what the index skipped is a DOM001, not a typo)
        missing += unmatched_wildcards(config, [*modules, *context.index.skipped_names()], context.root_packages)
        missing = missing or nothing_to_check(config, modules)
        return missing + self.unclassified_problems(config, context)

    def unclassified_problems(self, config: BoundaryConfig, context: Context) -> list[str]:
        """At ``error`` level, each module on neither side: a configuration problem (one
        file at a time, an unclassified module would pass unnoticed)."""
        if config.unclassified != "error":
            return []
        return [unclassified_message(module) for module in _unclassified(config, context)]

    def covered(self, config: BoundaryConfig, context: Context) -> list[str]:
        # The graph's modules: what lint-imports checks (the index may not know a
        # module grimp found, and the engine reports when there is no graph).
        return sorted(m for m in context.graph().modules if config.in_source(m))

    def prepare(self, config: BoundaryConfig, context: Context, modules: list[str]) -> None:
        # Columns come from the import statements of the modules with crossing imports,
        # each parsed alone; only to leave out TYPE_CHECKING imports are whole files read:
        # then together (in parallel when there are many), not one by one.
        if not context.session_flag("exclude_type_checking_imports"):
            return
        graph = context.graph()
        routes = _routes(config, context, graph)
        context.index.prefetch(
            m for m in modules if config.in_source(m) and _may_cross(config, context, graph, routes, m)
        )

    def may_find(self, config: BoundaryConfig, context: Context, modules: list[str]) -> list[str]:
        """The modules that :meth:`check_module` must look at: the importers of modules
        with a route, and those whose imports are not the graph's (see :func:`_may_cross`),
        found at once rather than asked of each of thousands."""
        graph = context.graph()
        given = set(modules)
        candidates = given.intersection(_routes(config, context, graph).imported_by) | (given - graph.modules)
        if context.index.has_any_buffer():
            candidates.update(filter(context.index.has_buffer, modules))
        return list(filter(candidates.__contains__, modules))

    def check_module(self, config: BoundaryConfig, context: Context, module: str) -> list[Finding]:
        if not config.in_source(module):
            return []
        crossings = _known_crossings(config, context, module)
        if not crossings:
            return []
        path = context.index.relative_path(module) if module in context.index.modules else _guess_path(module)
        return sorted({_finding(config, module, path, crossing) for crossing in crossings})

    def outcome(self, config: BoundaryConfig, context: Context, findings: list[Finding]) -> ProjectOutcome:
        graph = context.graph()
        chains = {}
        for module in sorted({f.symbol for f in findings if f.code in ("DOM301", "DOM302")}):
            for crossing in _known_crossings(config, context, module):
                chains[fingerprints.edge(module, crossing.chain[0].imported)] = crossing.chain
        domains = Domains(tuple(map(str, config.source_modules)), tuple(map(str, config.forbidden_modules)))
        unmatched = tuple(_unmatched_ignores(config, graph)) if config.unmatched_ignores != "none" else ()
        as_failures = config.unmatched_ignores == "error"
        unclassified = (
            tuple(unclassified_message(m) for m in _unclassified(config, context))
            if config.unclassified == "warn"
            else ()
        )
        return ProjectOutcome(
            tuple(findings),
            warnings=unclassified + (() if as_failures else unmatched),
            failures=unmatched if as_failures else (),
            extra={"chains": chains, "domains": domains},
        )

    # Kept between runs (:class:`~.base.Reusable`): the findings and the outcome are the
    # import graph's, and the graph is the modules' imports, so while every module's
    # imports are as they were the whole result is, and no graph need be built.
    view_keeps_findings = True

    def module_view(self, config: BoundaryConfig, context: Context, module: str, read: bool) -> object:
        """What the import graph holds of ``module``: each import of its file (the module
        and name imported, the statement's line, the imported name's place, whether
        under ``TYPE_CHECKING``, and the text of those lines, as grimp reads it), or
        only that it can be read when nothing the contract reports reads its imports.
        None when not known: its facts not read yet (with ``read`` False), or it cannot
        be analysed, or an import of it climbs above the top-level package (the graph
        cannot be built then: a full check says why)."""
        index = context.index
        path = index.modules.texts.get(module)  # as text: asked of every module after a cold run
        if path is None:
            return None
        if not path.endswith(".py"):  # a namespace directory: no imports, no bytes
            return ("namespace",)
        unread = _imports_unread(config, context, module)
        facts = index.file_facts(module) if read else index.known_imports(module)
        if facts is None:
            return ("unread",) if unread and not read else None
        if facts.unreadable is not None or facts.escaping_imports:
            return None
        if unread or not facts.imports:
            return ("unread",) if unread else ()
        text = index.text(module)
        if text is None:
            return None
        lines = _physical_lines(text, max(max(fact.line, fact.at_line) for fact in facts.imports))
        return tuple(
            sorted(
                (
                    fact.source,
                    fact.name is None,  # ``import a`` or ``from a import ...``
                    fact.name or "",
                    fact.line,
                    fact.name_line,
                    fact.col,
                    fact.end_col,
                    fact.type_checking,
                    _line_text(lines, fact.line),
                    _line_text(lines, fact.at_line),
                )
                for fact in facts.imports
            )
        )

    def answers(self, config: BoundaryConfig, context: Context) -> object:
        return None  # what the module checks read is the graph, which the views stand for

    def reuse_answers(self, config: BoundaryConfig, context: Context, answers: object) -> None:
        if answers is not None:
            raise ValueError("no answers are kept for a boundary")


def unmatched_wildcards(config: BoundaryConfig, modules: Iterable[str], root_packages: Iterable[str]) -> list[str]:
    """One line per wildcard expression of the project's own modules, and per exclusion,
    that matches none of ``modules``: import-linter accepts it silently, while it refuses
    a misspelt plain name, so ``app.runtme.**`` would pass every check."""
    modules = list(modules)
    roots = tuple(root_packages)
    problems = []
    for option in ("source_modules", "forbidden_modules", "exclude_modules"):
        for expression in getattr(config, option):
            text = str(expression)
            inside = any(text == root or text.startswith(root + ".") for root in roots)
            # A plain source or forbidden name is import-linter's to refuse; an exclusion is ours.
            checked = expression.has_wildcard or option == "exclude_modules"
            if checked and inside and not any(expression.matches(m) for m in modules):
                problems.append(f"{option}: {text!r} matches no module of the root packages; is it misspelt?")
    return problems


def _is_forbidden(config: BoundaryConfig, module: str) -> bool:
    return matches_any(module, config.forbidden_modules)


def _imports_unread(config: BoundaryConfig, context: Context, module: str) -> bool:
    """Whether nothing the contract reports depends on ``module``'s imports: a forbidden
    module ends every route it is on, so its imports are never followed. Only an
    ``ignore_imports`` entry from it (reported when it matches nothing), or an external
    package it alone imports (a module of the graph then), could tell them apart."""
    return (
        _is_forbidden(config, module)
        and not context.session_flag("include_external_packages")
        and not any(expression.importer.matches(module) for expression in config.ignore_imports)
    )


def _physical_lines(text: str, count: int) -> list[str]:
    """The first ``count`` lines of ``text`` as Python numbers them (a form feed ends no
    line), or all when it has fewer: a module's imports are mostly near its top, and
    the rest of a large file need not be split."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.split("\n", max(count, 0))[:count]


def _line_text(lines: list[str], number: int) -> str:
    return lines[number - 1] if 0 < number <= len(lines) else ""


def _unclassified(config: BoundaryConfig, context: Context) -> list[str]:
    """Modules of the project a contract of explicit lists leaves on neither side: in
    no source, forbidden or excluded module expression, and holding no module that
    is. Only the outermost of each unclassified package is named."""
    modules = sorted(context.index.modules)

    def classified(module: str) -> bool:
        return any(matches_any(module, e) for e in (config.source_modules, config.forbidden_modules))

    marked = {m for m in modules if classified(m) or matches_any(m, config.exclude_modules)}
    holding = {m.rsplit(".", depth)[0] for m in marked for depth in range(1, m.count(".") + 1)}
    found: list[str] = []
    for module in modules:
        if module in holding or module in marked or any(module.startswith(f + ".") for f in found):
            continue
        found.append(module)
    return found


def unclassified_message(module: str) -> str:
    return (
        f"unclassified_modules_alerting: {module!r} is on neither side; "
        "add it to source_modules, forbidden_modules or exclude_modules"
    )


def _ignored(config: BoundaryConfig, importer: str, imported: str) -> bool:
    if not config.ignore_imports:  # the usual case, asked of every import of the source
        return False
    return any(expression.matches(importer, imported) for expression in config.ignore_imports)


class RoutesToForbidden:
    """For each module outside the source modules, a shortest route to a forbidden
    module that does not pass back through the source modules (a route that does is
    blamed on the source module it passes through, at its own crossing import).

    One breadth-first search backwards from the forbidden modules, visiting importers
    in name order: grimp's own chain searches break ties differently from run to run.
    It asks the graph for the importers of every module a route leaves from, so it
    also keeps, for each importer, the modules with a route it imports directly: which
    source modules may cross is then known without asking the graph for the imports
    of each one (most import no such module).
    """

    def __init__(
        self,
        graph: ImportGraph,
        in_source: Callable[[str], bool],
        is_forbidden: Callable[[str], bool],
        ignored: Callable[[str, str], bool],
        direct_only: bool,
    ) -> None:
        self.config: object = None  # the configuration they were found for
        self.next_hop: dict[str, str | None] = {}
        # importer -> the modules with a route that it imports directly, ignore_imports aside
        self.imported_by: dict[str, list[str]] = {}
        frontier = sorted(m for m in graph.modules if is_forbidden(m))
        self.next_hop.update((m, None) for m in frontier)
        while frontier:
            following = []
            for module in frontier:
                for importer in sorted(graph.find_modules_that_directly_import(module)):
                    self.imported_by.setdefault(importer, []).append(module)
                    if direct_only or importer in self.next_hop or in_source(importer) or ignored(importer, module):
                        continue
                    self.next_hop[importer] = module
                    following.append(importer)
            frontier = following

    def reshaped(self, module: str) -> RoutesToForbidden:
        """The routes still hold after an edit in an editor's buffer: they come from the
        import graph, which is built from the files."""
        return self

    def reaches(self, module: str) -> bool:
        """Whether a route leads from ``module`` to a forbidden module."""
        return module in self.next_hop

    def imported_with_routes(self, importer: str) -> list[str]:
        """The modules with a route that ``importer`` imports directly, as the graph has
        it (each module a route leaves from had its importers found)."""
        return self.imported_by.get(importer, [])

    def from_module(self, module: str) -> list[str] | None:
        if module not in self.next_hop:
            return None
        route = [module]
        while (hop := self.next_hop[route[-1]]) is not None:
            route.append(hop)
        return route


def _routes(config: BoundaryConfig, context: Context, graph: ImportGraph) -> RoutesToForbidden:
    # Asked for every module: found by the configuration's identity, not its hash (every
    # module expression of it hashed again each time).
    key = ("boundary-routes", id(config))
    routes: RoutesToForbidden | None = context.memo.get(key)
    if routes is None or routes.config is not config:
        routes = context.memo[key] = RoutesToForbidden(
            graph,
            # An excluded module is outside the source: a route passes through it, and the
            # source module importing it is where the chain is blamed.
            config.in_source,
            lambda m: _is_forbidden(config, m),
            lambda a, b: _ignored(config, a, b),
            config.allow_indirect_imports,
        )
        routes.config = config
    return routes


class _Crossings:
    """The crossing imports found so far, by module: each module's checked once, its
    findings and the outcome's chains both made from them. A module's depend on its
    own imports (its file's, in the graph, or its buffer's) and on the routes."""

    def __init__(self, config: BoundaryConfig) -> None:
        self.config = config
        self.by_module: dict[str, list[Crossing]] = {}

    def forget_module(self, module: str) -> None:
        self.by_module.pop(module, None)

    def reshaped(self, module: str) -> _Crossings:
        self.forget_module(module)
        return self


def _known_crossings(config: BoundaryConfig, context: Context, module: str) -> list[Crossing]:
    """:func:`_crossings` of ``module``, found once while the project is unchanged."""
    key = ("boundary-crossings", id(config))
    known: _Crossings | None = context.memo.get(key)
    if known is None or known.config is not config:
        known = context.memo[key] = _Crossings(config)
    found = known.by_module.get(module)
    if found is None:
        graph = context.graph()  # the engine reports the files at fault when there is none
        found = known.by_module[module] = _crossings(config, context, graph, _routes(config, context, graph), module)
    return found


def _crossings(
    config: BoundaryConfig, context: Context, graph: ImportGraph, routes: RoutesToForbidden, module: str
) -> list[Crossing]:
    """The crossing imports of ``module``, each with its route: one per import
    statement, so every line that needs the fix is shown; in name, then line order."""
    if not _may_cross(config, context, graph, routes, module):
        return []

    def crosses(imported: str) -> bool:
        return imported != module and routes.reaches(imported) and not _ignored(config, module, imported)

    crossings = []
    for imported, statements in sorted(_module_imports(context, graph, routes, module, crosses).items()):
        route = routes.from_module(imported) if crosses(imported) else None
        if route is None:
            continue
        lines = tuple(sorted({statement[0] for statement in statements}))
        first = Link(module, imported, lines)
        rest = tuple(_link(graph, a, b) for a, b in itertools.pairwise(route))
        for line, col, end_col in sorted(set(statements)):
            crossings.append(Crossing((first, *rest), col, end_col, line))
    return crossings


Place = tuple[int, int, int]  # line, column and end column of the imported name


def _may_cross(
    config: BoundaryConfig, context: Context, graph: ImportGraph, routes: RoutesToForbidden, module: str
) -> bool:
    """Whether the graph shows ``module`` importing a module with a route to a forbidden
    one. Only then are its facts read (for the columns): most source modules have no
    crossing, and reading every one's facts would parse the whole source cold."""
    if context.index.has_buffer(module) or module not in graph.modules:
        return True  # its imports come from the buffer's facts, not from the graph
    return any(
        imported != module and not _ignored(config, module, imported)
        for imported in routes.imported_with_routes(module)
    )


def _module_imports(
    context: Context, graph: ImportGraph, routes: RoutesToForbidden, module: str, wanted: Callable[[str], bool]
) -> dict[str, list[Place]]:
    """imported module -> the place of each import statement's imported name, for the
    imported modules with a route that are ``wanted`` (and any other a buffer's facts name).

    Which modules are imported, and on which lines, comes from the graph (what
    ``lint-imports`` sees), unless the module is checked from a buffer; the facts give
    the place of each imported name (the graph knows only statement lines)."""
    index = context.index
    in_graph = not index.has_buffer(module) and module in graph.modules
    # Each wanted import's details, asked of the graph once: the lines to parse, then the places.
    details = (
        {
            imported: graph.get_import_details(importer=module, imported=imported)
            for imported in filter(wanted, routes.imported_with_routes(module))
        }
        if in_graph
        else {}
    )
    own = _statement_imports(context, module, details) if in_graph else None
    if own is None:
        facts = index.file_facts(module)
        own = [] if facts is None or facts.unreadable is not None else list(facts.imports)
    if context.session_flag("exclude_type_checking_imports"):
        own = [fact for fact in own if not fact.type_checking]
    by_module: dict[str, list[ImportFact]] = {}
    for fact in own:
        by_module.setdefault(_imported_module(fact, index), []).append(fact)
    if not in_graph:
        return {imported: [_place(f) for f in found] for imported, found in by_module.items()}
    imports: dict[str, list[Place]] = {}
    for imported, found in details.items():
        places = []
        for line in sorted({d["line_number"] for d in found if d.get("line_number")}) or [1]:
            candidates = [f for f in by_module.get(imported, []) if f.line == line] or [
                f for f in own if f.line == line
            ]
            places.append(_place(min(candidates, key=lambda f: f.col)) if candidates else (line, 0, 0))
        imports[imported] = places
    return imports


def _statement_imports(context: Context, module: str, details: Mapping[str, Any]) -> list[ImportFact] | None:
    """The facts of the import statements on the lines the graph records for the imports
    ``details`` (imported module -> the graph's details of ``module``'s imports of it),
    each statement parsed alone (the file is read whole only when one cannot be); None:
    read the file's facts (imports under ``TYPE_CHECKING`` to leave out, which takes the
    enclosing statements)."""
    if context.session_flag("exclude_type_checking_imports"):
        return None
    lines = {detail["line_number"] for found in details.values() for detail in found if detail.get("line_number")}
    return context.index.statement_imports(module, lines) if lines else None


def import_place(index: ProjectIndex, importer: str, imported: str, line: int) -> Place | None:
    """Where ``importer``'s import of ``imported`` on ``line`` names it, from the facts."""
    facts = index.file_facts(importer) if importer in index.modules else None
    if facts is None or facts.unreadable is not None:
        return None
    at_line = [f for f in facts.imports if f.line == line]
    exact = [f for f in at_line if _imported_module(f, index) == imported]
    found = exact or at_line
    return _place(min(found, key=lambda f: f.col)) if found else None


def _place(fact: ImportFact) -> Place:
    return (fact.at_line, fact.col, fact.end_col)


def _imported_module(fact: ImportFact, index: Any) -> str:
    """The module an import reaches, as grimp names it: ``from a import b`` reaches
    ``a.b`` when that is a module of the project, else ``a``; a module outside the
    project counts as its top-level package."""
    if fact.name is not None:
        submodule = f"{fact.source}.{fact.name}"
        if submodule in index.modules:
            return submodule
    parts = fact.source.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in index.modules:
            return candidate
    return parts[0]


def _link(graph: ImportGraph, importer: str, imported: str) -> Link:
    details = graph.get_import_details(importer=importer, imported=imported)
    return Link(importer, imported, tuple(sorted({d["line_number"] for d in details if d.get("line_number")})))


def _finding(config: BoundaryConfig, module: str, path: str, crossing: Crossing) -> Finding:
    first, last = crossing.chain[0], crossing.chain[-1]
    if len(crossing.chain) == 1:
        code = "DOM301"
        fields = {"importer": module, "imported": first.imported}
    else:
        code = "DOM302"
        via = " -> ".join(link.imported for link in crossing.chain[:-1])
        fields = {"importer": module, "imported": last.imported, "chain": via}
    return Finding(
        path=path,
        line=crossing.line,
        col=crossing.col,
        code=code,
        message=get_rule(code).format(**fields),
        symbol=module,
        fingerprint=fingerprints.edge(module, first.imported),
        contract=config.contract,
        details=tuple(link.describe() for link in crossing.chain),
        end_line=crossing.line if crossing.end_col else 0,
        end_col=crossing.end_col,
        fields=tuple(sorted(fields.items())),
    )


def _guess_path(module: str) -> str:
    return module.replace(".", "/") + ".py"


def _unmatched_ignores(config: BoundaryConfig, graph: ImportGraph) -> list[str]:
    """``ignore_imports`` entries that match no import of the graph: import-linter
    warns about them too (``unmatched_ignore_imports_alerting``)."""
    if not config.ignore_imports:
        return []
    unmatched = []
    for expression in config.ignore_imports:
        found = any(
            expression.matches(importer, imported)
            for importer in graph.modules
            if expression.importer.matches(importer)
            for imported in graph.find_modules_directly_imported_by(importer)
        )
        if not found:
            unmatched.append(f"No matches for ignored import {expression.text}.")
    return unmatched


BOUNDARY = BoundaryFamily()
