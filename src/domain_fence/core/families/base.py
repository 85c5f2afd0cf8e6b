"""What every contract family declares, behind one protocol.

A family is one kind of contract (boundary, vocabulary, placement). It declares its
options once (import-linter's field declarations for our contract types are generated
from them), parses them into a typed frozen configuration, and checks a project and a
single module. The engine does the rest: baseline, noqa, stale entries, the report.

The project check of a family is, by construction, the union of its module checks
over the modules it covers: that is what makes every front end (the whole-project
``check`` and the file-at-a-time flake8 and editor) report the same findings.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from domain_fence.core.index.project import ProjectIndex
from domain_fence.core.model.findings import Finding
from domain_fence.core.source.reading import note_unseen_reads

if TYPE_CHECKING:
    from grimp import ImportGraph

    from domain_fence.core.index.blockers import Blocker


class Option(NamedTuple):
    """One contract option: its name as written in the configuration, and one line of
    help (the contract type's docstring and the README list them)."""

    name: str
    help: str
    required: bool = False  # by import-linter's field declaration; the parser says more


# Options every family has: where its baseline lives, and what a stale entry does.
BASELINE_OPTIONS = (
    Option("baseline", "baseline file, relative to the configuration's directory"),
    Option("unmatched_baseline_alerting", "error (default), warn or none: a baseline entry that matches nothing"),
)


class GraphUnavailableError(Exception):
    """The import graph cannot be built; ``blockers`` are the files at fault."""

    def __init__(self, reason: str, blockers: list[Blocker], message: str = "") -> None:
        super().__init__(message or reason)
        self.reason = reason
        self.blockers = blockers


class Context:
    """What a family reads while checking: the project index, the import graph (built
    when first asked for, by the front end's builder) and the session's options.

    ``memo`` keeps what a family computed for the whole project (an event hierarchy, the
    routes to forbidden modules), per contract, until the project changes.
    """

    # A holder, never compared: a plain class (a dataclass's generated methods are
    # compiled as the module is imported, on every run).
    __slots__ = ("_graph", "_graph_error", "build_graph", "index", "memo", "root", "root_packages", "session")

    def __init__(
        self,
        root: Path,
        root_packages: tuple[str, ...],
        index: ProjectIndex,
        build_graph: Callable[[], ImportGraph] | None = None,
        session: Mapping[str, Any] | None = None,
    ) -> None:
        self.root = root
        self.root_packages = root_packages
        self.index = index
        self.build_graph = build_graph
        self.session: Mapping[str, Any] = session if session is not None else {}
        self.memo: dict[Any, Any] = {}
        self._graph: ImportGraph | None = None
        self._graph_error: GraphUnavailableError | None = None

    def graph(self) -> ImportGraph:
        """The import graph; raises GraphUnavailableError when it cannot be built."""
        if self._graph is None:
            if self._graph_error is not None:
                raise self._graph_error
            if self.build_graph is None:
                self._graph_error = GraphUnavailableError("no import graph in this front end", [])
                raise self._graph_error
            note_unseen_reads()  # the builder (grimp) reads files of its own
            try:
                self._graph = self.build_graph()
            except GraphUnavailableError as error:
                self._graph_error = error
                raise
        return self._graph

    def graph_built(self) -> bool:
        """Whether the import graph has been built (asking for it then costs nothing)."""
        return self._graph is not None

    def graph_error(self) -> GraphUnavailableError | None:
        """Why the import graph could not be built, once a build was asked for and failed."""
        return self._graph_error

    def session_flag(self, key: str) -> bool:
        return str(self.session.get(key, "")).strip() in ("True", "true")

    def forget(self) -> None:
        """The project changed (an edited buffer, a file on disk): drop what was computed."""
        self.memo.clear()

    def forget_graph(self) -> None:
        """A file's imports changed on disk: build the import graph again when next asked."""
        self._graph = None
        self._graph_error = None

    def forget_module(self, module: str, reshaped: bool = False) -> None:
        """An editor's buffer changed ``module`` (its file and the import graph did not).

        Unless ``reshaped`` (its classes, bases, bindings or definitions changed), no
        project-wide answer depends on the change: only what a family kept of that
        module's insides is dropped (its ``forget_module(module)``). When reshaped,
        each kept answer is replaced by its ``reshaped(module)``, which keeps what does
        not depend on the module's shape (what only the module names or the graph
        decide), or dropped when it has none."""
        for key, kept in list(self.memo.items()):
            if not reshaped:
                forget = getattr(kept, "forget_module", None)
                if forget is not None:
                    forget(module)
                continue
            renew = getattr(kept, "reshaped", None)
            if renew is None:
                del self.memo[key]
            else:
                self.memo[key] = renew(module)


class ProjectOutcome(NamedTuple):
    """A family's check of one contract over the project, before the baseline."""

    findings: tuple[Finding, ...]
    warnings: tuple[str, ...] = ()
    failures: tuple[str, ...] = ()  # what breaks the contract but is no finding (require_match)
    extra: Mapping[str, Any] = {}  # what a report may show (chains, domains); only read: one default for all


class Family(Protocol):
    """One kind of contract."""

    name: str  # the contract type's name: "boundary"
    options: tuple[Option, ...]  # besides BASELINE_OPTIONS
    needs_graph: bool

    def parse(self, contract: str, name: str, raw: Mapping[str, Any], root: Path) -> Any:
        """The typed configuration, or ConfigError listing every problem."""
        ...

    def problems(self, config: Any, context: Context) -> list[str]:
        """What the configuration names that the project does not have, one
        ``option: problem`` line each (a front end makes them exit status 2)."""
        ...

    def covered(self, config: Any, context: Context) -> list[str]:
        """The modules whose findings the contract can have, in module order."""
        ...

    def prepare(self, config: Any, context: Context, modules: list[str]) -> None:
        """Read ahead, together, what checking ``modules`` will read."""
        ...

    def check_module(self, config: Any, context: Context, module: str) -> list[Finding]:
        """The contract's findings located in ``module``."""
        ...

    def outcome(self, config: Any, context: Context, findings: list[Finding]) -> ProjectOutcome:
        """The project check from the findings of every covered module: warnings,
        failures and what a report shows besides findings."""
        ...


class Reusable(Protocol):
    """A family whose findings the engine may keep module by module between runs (see
    :mod:`domain_fence.core.engine.resultcache`).

    A family whose findings and outcome depend on the modules' views alone (the
    boundary's, on the import graph) says so with ``view_keeps_findings = True``: then
    a module whose view is unchanged keeps its findings too, so that when no view
    changed the whole result is kept, outcome included, and nothing is checked again.
    For such a family a view of None means *unknown*: a changed module whose view was
    or is None is a full check."""

    def module_view(self, config: Any, context: Context, module: str, read: bool) -> object:
        """What of ``module`` the contract's findings in *other* modules, and its
        project-wide answers, can depend on: plain data (tuples, strings, numbers),
        equal for two versions of the module exactly when no other module's findings
        and no project-wide answer can tell them apart. With ``read`` False, None when
        the contract has not read the module (then nothing can have depended on it)."""
        ...

    def answers(self, config: Any, context: Context) -> object:
        """What the contract computed for the whole project that a module's check
        reads (plain data), kept with the results."""
        ...

    def reuse_answers(self, config: Any, context: Context, answers: object) -> None:
        """Take up ``answers`` kept by an earlier run: no module's view changed since."""
        ...


def modules_to_check(family: Family, config: Any, context: Context, modules: list[str]) -> list[str]:
    """Those of ``modules`` (in their order) whose check may find anything: the others
    find nothing. A family that can tell them all at once says which with ``may_find``
    (the boundary: few modules import one with a route to a forbidden module)."""
    may_find = getattr(family, "may_find", None)
    return modules if may_find is None else may_find(config, context, modules)


def reusable(family: Family) -> Reusable | None:
    return family if callable(getattr(family, "module_view", None)) else None  # type: ignore[return-value]


def view_keeps_findings(family: Family) -> bool:
    """Whether a module whose view is unchanged keeps its findings (see :class:`Reusable`)."""
    return reusable(family) is not None and getattr(family, "view_keeps_findings", False) is True
