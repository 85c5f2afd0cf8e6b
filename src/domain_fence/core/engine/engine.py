"""The one engine every front end calls.

Given the contracts of a configuration (each a family and its typed options), the
project, optionally the import graph and in-memory buffers, it returns the findings
with the baseline, ``noqa`` comments and stale entries already applied. ``check``,
``lint-imports`` (through our contract types), flake8, pytest and the language server
only render what it returns, so they cannot disagree on what a finding is.

Rules applied here and nowhere else:

- a finding on a line whose ``# noqa`` comment names its code (or is bare) is
  *suppressed*: listed, never failing;
- a finding whose fingerprint the contract's baseline records is *baselined*;
- DOM001 (a file that cannot be analysed) is never baselined nor suppressed: it may
  hide anything;
- a baseline entry that matches no finding is *stale*: DOM002 at the entry, a warning
  or nothing, per ``unmatched_baseline_alerting``; not an entry of a file reported
  DOM001, which recording and pruning keep as well. A suppressed finding matches no
  entry: it is not reported, so its entry, like a fixed one's, is struck (as recording,
  pruning, the census and the numbering of copies leave it out), and removing the
  comment later brings the finding back as new.

With a persistent cache, the findings of a contract whose family allows it are kept
module by module (:mod:`.resultcache`, :mod:`.reuse`): a later run checks again only
the modules that changed, unless what other modules read of one changed. A boundary
contract's result is the import graph's, so it is kept whole, outcome included,
while no module's imports changed (its family's views are the imports): then the
graph is not built, only what would refuse it before any file is read is looked for
(:func:`~..index.blockers.graph_refused`). The rules above are applied to reused
findings as to new ones, every run.
"""

from __future__ import annotations

import itertools
import os
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from domain_fence.core.engine.baseline import (
    Baseline,
    BaselineEntry,
    BaselineError,
    entry_of,
    load_baseline,
    one_each,
    write_baseline,
)
from domain_fence.core.engine.noqa import NoqaComments
from domain_fence.core.engine.resultcache import Digests, ResultStore, graph_builder_version, plain_extra, results_key
from domain_fence.core.engine.reuse import ModuleResults
from domain_fence.core.engine.runcache import session_section
from domain_fence.core.families import Context, Family, GraphUnavailableError
from domain_fence.core.families.base import modules_to_check, reusable, view_keeps_findings
from domain_fence.core.index.blockers import (
    Blocker,
    blocker_finding,
    graph_refused,
    skipped_finding,
    skipped_findings,
)
from domain_fence.core.index.collector import without_cyclic_collection
from domain_fence.core.index.project import ProjectIndex
from domain_fence.core.model import fingerprints
from domain_fence.core.model.census import take_census
from domain_fence.core.model.findings import FINDING_ORDER, Finding, in_characters, numbered_repeats, sorted_findings
from domain_fence.core.model.report import (
    ContractResult,
    Dependency,
    Domains,
    Link,
    baseline_entry_lines,
    stale_finding,
)
from domain_fence.core.source.files import real_path
from domain_fence.core.source.modules import Skipped

if TYPE_CHECKING:
    from grimp import ImportGraph

    from domain_fence.core.engine.rekey import ModuleHistory
    from domain_fence.core.source.facts import FileFacts, ImportFacts

UNANALYSABLE = fingerprints.UNANALYSABLE
NOT_RUN = "not_run"  # in a contract's extra: the import graph could not be built


@dataclass(frozen=True)
class ContractSpec:
    """One contract of the configuration that a family checks."""

    id: str
    name: str
    type: str  # as the configuration names it
    family: Family
    config: Any  # the family's typed configuration; has ``baseline``
    section: str  # where it is written, for messages: ``[importlinter:contract:x]``
    section_line: int = 1
    guidance: str = ""
    # The contract's options as written, which ``family.parse`` made ``config`` of.
    options: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def baseline_path(self) -> Path:
        path: Path = self.config.baseline.path
        return path


class Settings(NamedTuple):
    """What the engine checks: a configuration's contracts, its root packages and its caches."""

    config_path: Path  # the configuration file; paths in it are relative to its directory
    root_packages: tuple[str, ...]
    contracts: tuple[ContractSpec, ...]
    # import-linter's session options; the shared empty default can not be changed
    session: Mapping[str, Any] = MappingProxyType({})
    cache_dir: Path | None = None
    # The id of every contract of the configuration, import-linter's own types too; None
    # when unknown (lint-imports hands over one contract at a time).
    known_contracts: tuple[str, ...] | None = None
    # Every domain-fence contract of the configuration, in its order, with the baseline
    # file it reads, when ``contracts`` are only some of them (lint-imports hands over
    # one at a time); None: ``contracts`` are all of them.
    baselines: tuple[tuple[str, Path], ...] | None = None

    @property
    def root(self) -> Path:
        return self.config_path.parent

    @property
    def session_section(self) -> str:
        return session_section(self.config_path)


class ConfigurationProblems(Exception):
    """What the configuration names that the project does not have: one line each,
    naming the file, the section and the option. Every front end exits 2 on it."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines


class FileFindings(NamedTuple):
    """One file's findings, split as a report splits them."""

    reported: tuple[Finding, ...] = ()  # new: they fail
    suppressed: tuple[Finding, ...] = ()  # by a noqa comment
    baselined: tuple[Finding, ...] = ()


def _holds_package(directory: Path, dotted: str) -> bool:
    """Whether ``directory`` holds the package (or module) ``dotted``, a namespace one included."""
    place = directory.joinpath(*dotted.split("."))
    return place.is_dir() or place.with_suffix(".py").is_file()


class Engine:
    """Checks one configuration's contracts against one project.

    What it learns (the index's facts, the graph, each family's project-wide answers)
    is kept until :meth:`file_changed` or a buffer says the project changed.
    """

    def __init__(
        self,
        settings: Settings,
        build_graph: Callable[[], ImportGraph] | None = None,
        index: ProjectIndex | None = None,
        graph_from_bytes: Callable[[], bool] | None = None,
    ) -> None:
        self.settings = settings
        # Whether the graphs ``build_graph`` gives are read from the files' bytes as they
        # are (not from a cache trusting modification times): only then is a result
        # computed from one kept, or a kept one taken instead. Asked when first needed.
        self._graph_from_bytes = graph_from_bytes
        self._graph_follows_bytes: bool | None = None
        built_here = index is None
        self.index = index or ProjectIndex.build(settings.root, settings.root_packages, cache_dir=settings.cache_dir)
        self.context = Context(
            root=self.index.root,
            root_packages=settings.root_packages,
            index=self.index,
            build_graph=build_graph,
            session=settings.session,
        )
        self._baselines: dict[Path, Baseline] = {}  # by resolved path
        self._resolved: dict[Path, Path] = {}
        # module -> the imports of its file when the import graph was built (or since
        # checked equal): a saved file whose imports changed needs a new graph
        self._graph_imports: dict[str, frozenset[tuple[str, str | None, int, bool]]] = {}
        # contract -> the modules its last check checked (not reused from an earlier run)
        self.checked: dict[str, list[str]] = {}
        self._noqa: dict[str, NoqaComments] = {}  # file -> its noqa comments, until it changes
        # An index built just now has stamped the files it found: nothing has read them since.
        self._digests = self._snapshot(discovered=built_here)
        self._unsaved: list[ModuleResults] = []  # results to store when the run is saved
        self._graph_refused: bool | None = None
        # contract -> what :meth:`prepare` learnt of it as ``check`` would: the findings
        # by file, and the modules still to check one by one (see :meth:`findings_in`)
        self._known: dict[str, _Known] = {}

    def _snapshot(self, again: bool = False, discovered: bool = False) -> Digests | None:
        """The stamp of every file before anything is read, when findings may be kept
        between runs (a persistent cache, a contract whose family allows it). Engines
        sharing an index (lint-imports builds one per contract) share the first
        engine's: the facts they read were read after it; ``again``: a new one;
        ``discovered``: the stamps the index's discovery took serve."""
        if self.index.cache is None or not any(self._keeps_results(spec, ask=False) for spec in self.contracts):
            return None
        shared = _SNAPSHOTS.get(id(self.index))
        if shared is not None and shared[0] is self.index and not again:
            return shared[1]
        if discovered and not again:
            digests = Digests(self.index.absolute_paths(), began=self.index.discovered_at)
            digests.snapshot(self.index.modules, self.index.discovered_stamps)
        else:
            digests = Digests(self.index.absolute_paths())
            digests.snapshot(self.index.modules)
        if len(_SNAPSHOTS) >= 16:
            _SNAPSHOTS.clear()
        _SNAPSHOTS[id(self.index)] = (self.index, digests)
        return digests

    @property
    def contracts(self) -> tuple[ContractSpec, ...]:
        return self.settings.contracts

    def contract(self, contract_id: str) -> ContractSpec:
        for spec in self.contracts:
            if spec.id == contract_id:
                return spec
        raise KeyError(contract_id)

    # -- what must hold first -----------------------------------------------------------

    @without_cyclic_collection
    def problems(self) -> list[str]:
        """Configuration problems found against the project, one line each naming the
        file, the section and the option."""
        path = self.settings.config_path
        missing = self.missing_root_packages()
        if missing:
            return [f"{path}: {self.settings.session_section} {missing}"]
        lines = []
        for spec in self.contracts:
            lines += [f"{path}: {spec.section} {line}" for line in self.contract_problems(spec)]
        return lines

    def missing_root_packages(self) -> str | None:
        if not self.index.missing:
            return None
        missing = sorted(self.index.missing)
        text = (
            f"root_packages: cannot find {', '.join(missing)} (looked in {self.settings.root}, its src/ and sys.path)"
        )
        # lint-imports looks in the current directory: a configuration kept in a
        # subdirectory (lint/contracts.ini) works there, and not here, without a word why.
        try:
            here = Path.cwd()
        except OSError:  # the current directory was removed: nothing to point at
            return text
        holder = next((d for d in (here, here / "src") if any(_holds_package(d, name) for name in missing)), None)
        if holder is not None and real_path(holder) != real_path(self.settings.root):
            text += (
                f"; {holder} holds it: the configuration's directory is the project's root, put the configuration there"
            )
        return text

    @without_cyclic_collection
    def contract_problems(self, spec: ContractSpec) -> list[str]:
        """``option: problem`` for what ``spec`` names that the project does not have."""
        return spec.family.problems(spec.config, self.context)

    @without_cyclic_collection
    def validate(self) -> None:
        """Raise ConfigurationProblems (and BaselineError for an unusable baseline)."""
        problems = self.problems()
        if problems:
            raise ConfigurationProblems(problems)
        for spec in self.contracts:
            self.baseline(spec)

    # -- the whole project --------------------------------------------------------------

    def check(self, contract_ids: Iterable[str] | None = None) -> list[ContractResult]:
        wanted = None if contract_ids is None else set(contract_ids)
        return [self.check_contract(spec) for spec in self.contracts if wanted is None or spec.id in wanted]

    @without_cyclic_collection
    def check_contract(self, spec: ContractSpec) -> ContractResult:
        found, outcome_warnings, failures, extra = self._project_findings(spec)
        return self._result(spec, found, outcome_warnings, failures, extra)

    @without_cyclic_collection
    def current(self, spec: ContractSpec) -> list[Finding]:
        """What the contract finds now, neither baselined nor suppressed by noqa: what
        ``domain-fence baseline`` records (DOM001 aside, which no baseline accepts)."""
        found = self._project_findings(spec)[0]
        kept, _ = self._split_noqa(found)
        return kept

    def _project_findings(
        self, spec: ContractSpec
    ) -> tuple[list[Finding], tuple[str, ...], tuple[str, ...], Mapping[str, Any]]:
        family, config = spec.family, spec.config
        results = self._module_results(spec)
        plan = results.plan() if results is not None else None
        if family.needs_graph and plan is not None and not (plan.whole and self._graph_would_build()):
            plan = None  # the graph is needed: what it is built from may have changed
        if plan is None or not plan.whole:
            blocked = self._blocked(spec)
            if blocked is not None:
                return blocked, (), (), {NOT_RUN: True}
        # What the index could not analyse may hide anything: never a silent pass.
        unanalysed = skipped_findings(self.index, spec.id)
        if results is not None and plan is not None:
            by_module = dict(plan.kept)
            by_module.update((module, self._check_module(spec, module)) for module in plan.again)
            self.checked[spec.id] = plan.again
            for path, comments in plan.noqa.items():
                self._noqa.setdefault(path, comments)
            extra = plan.extra if family.needs_graph else None
            stored_extra = None if extra is None else plan.stored_extra
            results.save(plan.covered, by_module, plan.warnings, plan.failures, self._comments, stored_extra)
            self._unsaved.append(results)
            found = list(itertools.chain.from_iterable(map(by_module.get, plan.covered, itertools.repeat(()))))
            return [*found, *unanalysed], plan.warnings, plan.failures, extra or {}
        covered = family.covered(config, self.context)
        family.prepare(config, self.context, covered)
        by_module = {module: [] for module in covered}
        to_check = modules_to_check(family, config, self.context, covered)
        by_module.update((module, self._check_module(spec, module)) for module in to_check)
        found = [finding for module in covered for finding in by_module[module]]
        outcome = family.outcome(config, self.context, found)
        self.checked[spec.id] = covered
        if results is not None and list(outcome.findings) == found:
            stored_extra = plain_extra(outcome.extra) if outcome.extra else None
            if stored_extra is not None or not outcome.extra:
                results.save(covered, by_module, outcome.warnings, outcome.failures, self._comments, stored_extra)
                self._unsaved.append(results)
        return [*outcome.findings, *unanalysed], outcome.warnings, outcome.failures, outcome.extra

    def _check_module(self, spec: ContractSpec, module: str) -> list[Finding]:
        # A copy a noqa comment silences is not counted: silencing the copy one adds
        # leaves the others' numbers, and so their baseline entries, as they were.
        found = spec.family.check_module(spec.config, self.context, module)
        if not found:  # most modules: nothing to place, number or silence
            return found
        if module in self.index.modules:
            path = self.index.relative_path(module)
            found = in_characters(found, path, self.index.text(module))
            self._comments(path)  # read now, from the text just read, not again when they are applied
        return numbered_repeats(found, quiet=lambda f: self._comments(f.path).suppresses(f.line, f.code))

    def _graph_would_build(self) -> bool:
        """Whether nothing keeps the import graph from being built before a file is read
        (see :func:`~..index.blockers.graph_refused`): else a full check says what."""
        if self._graph_refused is None:
            self._graph_refused = graph_refused(self.index, self.settings.root_packages)
        return not self._graph_refused

    def _module_results(self, spec: ContractSpec) -> ModuleResults | None:
        """The contract's findings kept module by module, when they can be (no editor
        buffer: those are not files a later run sees)."""
        family = reusable(spec.family)
        if family is None or not self._keeps_results(spec) or self._digests is None or self.index.cache is None:
            return None
        if self.index.has_any_buffer():
            return None
        paths = self.index.absolute_paths()
        session: dict[str, Any] = dict(self.settings.session)
        if spec.family.needs_graph:  # the graph is grimp's reading of the sources
            session = {**session, "(graph builder)": graph_builder_version()}
        key = results_key(spec.id, spec.family.name, spec.config, session, paths, self.index.cache.directory)
        store = ResultStore(self.index.cache.directory, self.index.root, spec.id, key)
        return ModuleResults(family, spec.config, self.context, store, self._digests, view_keeps_findings(spec.family))

    def _keeps_results(self, spec: ContractSpec, ask: bool = True) -> bool:
        """Whether the contract's results may be kept between runs; without ``ask``, only
        whether they may be, before the graph builder is asked."""
        if reusable(spec.family) is None or not spec.family.needs_graph:
            return reusable(spec.family) is not None
        if self._graph_from_bytes is None or not ask:
            return self._graph_from_bytes is not None
        if self._graph_follows_bytes is None:
            self._graph_follows_bytes = self._graph_from_bytes()
        return self._graph_follows_bytes

    def graph_blockers(self) -> list[Blocker]:
        """The files keeping the import graph from being built, when a contract needs it
        (none when it builds): a front end that shows findings only in the files it
        visits places those elsewhere (see :meth:`_blocked`)."""
        if self.context.graph_built() or not any(spec.family.needs_graph for spec in self.contracts):
            return []
        failed = self.context.graph_error()
        if failed is not None:
            return list(failed.blockers)
        if self._graph_would_build():
            return []  # (asked before any graph is built: a kept result needs none)
        try:  # refused before grimp runs, which a forked flake8 worker must never start
            self.context.graph()
        except GraphUnavailableError as error:
            return list(error.blockers)
        return []

    def _blocked(self, spec: ContractSpec) -> list[Finding] | None:
        """DOM001 for each file keeping the import graph from being built, when the
        contract needs it; None when it can run."""
        if not spec.family.needs_graph:
            return None
        try:
            self.context.graph()
        except GraphUnavailableError as error:
            if error.blockers:
                found = [blocker_finding(blocker, spec.id) for blocker in error.blockers]
                at = {(f.path, f.line) for f in found}
                return sorted(
                    [*found, *(f for f in skipped_findings(self.index, spec.id) if (f.path, f.line) not in at)]
                )
            where = Blocker(
                self._relative(self.settings.config_path),
                spec.section_line,
                f"the import graph cannot be built: {error.reason}",
                spec.id,
            )
            return [blocker_finding(where, spec.id, details=("contract not run",))]
        return None

    # -- one file -----------------------------------------------------------------------

    @without_cyclic_collection
    def findings_in(self, path: Path | str, text: str | None = None, noqa: bool = True) -> FileFindings:
        """The findings of every contract located in the file at ``path``, checked from
        ``text`` when given (an editor's buffer, flake8's stdin); ``noqa=False`` reports
        what ``noqa`` comments would suppress (flake8's ``--disable-noqa``)."""
        module = self.index.module_for_path(path)
        if module is None:  # a file the index did not analyse (shadowed, in a plain directory)
            skipped = self._skipped_at(path)
            if skipped or text is None:
                return FileFindings(skipped)
            placed = self.index.place_new_file(path)  # a new module, not saved yet
            if not isinstance(placed, tuple):
                return FileFindings(self._unsaved_skipped(placed))
            module = self._add_unsaved(*placed, text)
        if text is not None:
            self.use_buffer(module, text)
        shown = self.index.relative_path(module)
        reported: dict[tuple[int, int, str, str], Finding] = {}
        suppressed: list[Finding] = []
        baselined: list[Finding] = []
        for spec in self.contracts:
            known = self._known.get(spec.id)
            if known is not None and module not in known.again and not self.index.has_buffer(module):
                found = known.by_path.get(shown, [])
            else:
                blocked = self._blocked(spec)
                found = blocked if blocked is not None else self._check_module(spec, module)
                found = [finding for finding in found if finding.path == shown]
            kept, quiet = self._split_noqa(found) if noqa else (found, [])
            new, recorded = self._split_baseline(spec, kept)
            for finding in new:
                reported.setdefault((finding.line, finding.col, finding.code, finding.message), finding)
            suppressed += quiet
            baselined += recorded
        return FileFindings(
            tuple(sorted(reported.values(), key=FINDING_ORDER)),
            tuple(sorted_findings(suppressed)),
            tuple(sorted_findings(baselined)),
        )

    def _skipped_at(self, path: Path | str) -> tuple[Finding, ...]:
        absolute = Path(os.path.abspath(path))
        # As the project has it (below a directory link, too), or where it really is.
        shown = {self._relative(absolute)}
        if absolute.is_relative_to(self.index.root):
            shown.add(absolute.relative_to(self.index.root).as_posix())
        found = {f for spec in self.contracts for f in skipped_findings(self.index, spec.id) if f.path in shown}
        unique = {(f.line, f.col, f.code, f.message): f for f in sorted(found, key=FINDING_ORDER)}
        return tuple(sorted(unique.values()))

    def _unsaved_skipped(self, skipped: Skipped | None) -> tuple[Finding, ...]:
        """What the index will report of a new file once it is saved where it does not
        analyse it: the DOM001 it reports of such a file on disk."""
        if skipped is None:
            return ()
        found = {skipped_finding(self.index, skipped, spec.id) for spec in self.contracts}
        unique = {(f.line, f.col, f.code, f.message): f for f in sorted(found, key=FINDING_ORDER)}
        return tuple(sorted(unique.values()))

    def _add_unsaved(self, module: str, path: Path, text: str) -> str:
        """Check the new ``module`` (no file holds it yet) from ``text``: the project
        now holds one more module, so every project-wide answer is found again (the
        import graph, built from the files, stays: the module's own imports come from
        its buffer, as an edited module's do)."""
        self.index.add_unsaved(module, path, text)
        self._noqa.clear()
        self._known.clear()
        self.context.forget()
        return module

    def use_buffer(self, module: str, text: str) -> None:
        """Check ``module`` from ``text``. An edit that leaves what other modules depend
        on as it was (its views, :meth:`_views`) keeps the project-wide answers: the
        next keystroke costs one module, not the project."""
        if not self.index.has_buffer(module) and text == self.index.disk_text(module):
            # The saved file (flake8 hands every file so): nothing changes, unless the file
            # changed since it was read and no one said so (a buffer reloaded after `git
            # checkout`): then it is a file changed on disk, for the graph too.
            if self.index.read_before_change(module):
                self.file_changed(self.index.modules[module])
            return
        if module not in self._graph_imports and not self.index.has_buffer(module):
            saved = self.index.file_facts(module)  # what the import graph was built from
            if saved is not None:
                self._graph_imports[module] = _imports(saved)
        before = self._views(module)
        if self.index.use_buffer(module, text):
            self._noqa.clear()
            self._known.clear()
            reshaped = before is None or self._views(module) != before
            self.context.forget_module(module, reshaped=reshaped)

    def _views(self, module: str) -> list[object] | None:
        """What every contract's findings in other modules, and its project-wide
        answers, read of ``module`` (see :class:`~..families.base.Reusable`); None when
        its facts are not known yet."""
        if self.index.known_facts(module) is None:
            return None
        views = []
        for spec in self.contracts:
            family = reusable(spec.family)
            # A family whose views keep its findings reads the graph, which buffers leave.
            if family is not None and not view_keeps_findings(spec.family):
                views.append(family.module_view(spec.config, self.context, module, True))
        return views

    def drop_buffer(self, path: Path | str) -> bool:
        """Check the file at ``path`` from the file again. True when what other files
        find may change: its buffer was a new module never saved (the project no longer
        holds it), or what they read of it differs from its file's (see :meth:`_views`)."""
        module = self.index.module_for_path(path)
        if module is None or not self.index.has_buffer(module):
            return False
        before = self._views(module)
        if not self.index.drop_buffer(module):
            return False
        self._noqa.clear()
        self._known.clear()
        if module not in self.index.modules:  # never saved: gone with its buffer
            self.context.forget()
            return True
        self.context.forget_module(module, reshaped=True)  # read from its file again
        return before is None or self._views(module) != before

    def file_changed(self, path: Path | str) -> None:
        """A file changed on disk: what depended on it is computed again. The import
        graph is built again (when next needed) only if the file's imports changed."""
        module = self.index.module_for_path(path)
        if module is not None:
            before = self._graph_imports.pop(module, None)
            if before is None and not self.index.has_buffer(module):
                known = self.index.known_imports(module)  # its facts, or its imports alone
                before = None if known is None else _imports(known)
            self.index.forget(module)
            after = self._saved_imports(module)
            if before is None or after is None or before != after:  # unknown, or changed
                self._graph_imports.clear()
                self.context.forget_graph()
                self.context.forget()
            else:
                self._graph_imports[module] = after
                self.context.forget_module(module, reshaped=True)
        else:
            self.context.forget()
        self._noqa.clear()
        self._known.clear()
        self._graph_refused = None
        if self._digests is not None:
            self._digests = self._snapshot(again=True)
        self._baselines.clear()
        self._resolved.clear()

    def _saved_imports(self, module: str) -> frozenset[tuple[str, str | None, int, bool]] | None:
        """The imports of ``module``'s file as saved; None when unknown (a buffer that
        differs from the file)."""
        if not self.index.has_buffer(module):
            facts = self.index.file_facts(module)
        elif self.index.text(module) == self.index.disk_text(module):  # the buffer just saved
            facts = self.index.known_facts(module)
        else:
            facts = None
        return None if facts is None else _imports(facts)

    @without_cyclic_collection
    def prepare(self, modules: list[str]) -> None:
        """Before ``modules`` are checked one by one (flake8 hands its files so): learn
        what :meth:`findings_in` will report of them the way ``check`` does.

        When they are most of the project, each contract is checked whole here, its
        results kept between runs as ``check`` keeps them (and saved for the next run):
        a file's findings are then its share of the contract's. When they are a few, a
        contract's results an earlier run kept are taken where ``check`` would take them,
        and only the modules changed since are checked; else what checking them will
        read is read ahead, together."""
        wanted = set(modules)
        whole = len(wanted) * 2 >= len(self.index.modules)
        for spec in self.contracts:
            known = self._check_whole(spec) if whole else self._kept(spec)
            if known is not None:
                self._known[spec.id] = known
                wanted_again = [m for m in modules if m in known.again]
                if wanted_again:
                    spec.family.prepare(spec.config, self.context, wanted_again)
                continue
            if self._blocked(spec) is not None:
                continue
            covered = set(spec.family.covered(spec.config, self.context))
            spec.family.prepare(spec.config, self.context, [m for m in modules if m in covered])
        if whole:
            self.save()

    def _check_whole(self, spec: ContractSpec) -> _Known:
        """The contract checked as ``check`` checks it, by file."""
        return _Known(_by_path(self._project_findings(spec)[0]), frozenset())

    def _kept(self, spec: ContractSpec) -> _Known | None:
        """What an earlier run kept of the contract, where ``check`` would take it; None
        when nothing is kept or ``check`` would check the contract whole."""
        results = self._module_results(spec)
        plan = results.plan() if results is not None else None
        if plan is None or (spec.family.needs_graph and not (plan.whole and self._graph_would_build())):
            return None
        for path, comments in plan.noqa.items():
            self._noqa.setdefault(path, comments)
        return _Known(_by_path(f for found in plan.kept.values() for f in found), frozenset(plan.again))

    @without_cyclic_collection
    def save(self) -> None:
        """Store what the run found and read, for the next run. Contracts' results are
        stored only when no file changed while the run read them, which one look at
        the files it read tells for all of them; views a contract could not give when it was
        checked may be known once later contracts read more facts."""
        unsaved, self._unsaved = self._unsaved, []
        settled: dict[int, bool] = {}  # by the stamps each was checked against
        for results in unsaved:
            results.complete_views()
            if id(results.digests) not in settled:
                settled[id(results.digests)] = results.digests.unchanged()
            if settled[id(results.digests)]:
                results.write()
        self.index.save()

    # -- the rules applied to every finding ---------------------------------------------

    def _split_noqa(self, findings: list[Finding]) -> tuple[list[Finding], list[Finding]]:
        comments: dict[str, NoqaComments] = {}
        kept: list[Finding] = []
        suppressed: list[Finding] = []
        for finding in findings:
            if finding.code == UNANALYSABLE:
                kept.append(finding)
                continue
            if finding.path not in comments:
                comments[finding.path] = self._comments(finding.path)
            (suppressed if comments[finding.path].suppresses(finding.line, finding.code) else kept).append(finding)
        return kept, suppressed

    def _comments(self, path: str) -> NoqaComments:
        """The noqa comments of the file at ``path``, read once for every contract."""
        if path not in self._noqa:
            module = self.index.module_for_path(self.settings.root / path)
            text = self.index.text(module) if module is not None else None
            self._noqa[path] = NoqaComments.of(text) if text is not None else NoqaComments({})
        return self._noqa[path]

    def accepts(self, finding: Finding) -> bool:
        """Whether ``check`` would accept ``finding`` wherever a contract of its family
        found it: a noqa comment on its line silences its code, or the baseline of such
        a contract of the configuration records its fingerprint (a DOM201 of any
        placement contract, whatever its symbols). A file that could not be analysed
        (DOM001) is never accepted."""
        from domain_fence.core.model.rules import get_rule  # the registry: when first asked

        if finding.code == UNANALYSABLE:
            return False
        if self._comments(finding.path).suppresses(finding.line, finding.code):
            return True
        family = get_rule(finding.code).family
        return any(
            finding.fingerprint in self.baseline(spec).fingerprints(spec.id)
            for spec in self.contracts
            if spec.family.name == family
        )

    def _split_baseline(self, spec: ContractSpec, findings: list[Finding]) -> tuple[list[Finding], list[Finding]]:
        recorded = self.baseline(spec).fingerprints(spec.id)
        new = [f for f in findings if f.code == UNANALYSABLE or f.fingerprint not in recorded]
        baselined = [f for f in findings if f.code != UNANALYSABLE and f.fingerprint in recorded]
        return new, baselined

    def baseline(self, spec: ContractSpec) -> Baseline:
        """The contract's baseline file, read once (BaselineError when unusable)."""
        path = spec.baseline_path
        key = self._real_path(path)
        if key not in self._baselines:
            cache = self.index.cache.directory if self.index.cache is not None else None
            self._baselines[key] = load_baseline(path, cache)
        return self._baselines[key]

    def _real_path(self, path: Path) -> Path:
        """``path`` with its links resolved, once: a baseline's is asked for every file
        flake8 or the editor checks, and by each contract's result."""
        key = self._resolved.get(path)
        if key is None:
            key = self._resolved[path] = real_path(path)
        return key

    def _result(
        self,
        spec: ContractSpec,
        found: list[Finding],
        warnings: tuple[str, ...],
        failures: tuple[str, ...],
        extra: Mapping[str, Any],
    ) -> ContractResult:
        found = sorted_findings(found)
        kept_findings, suppressed = self._split_noqa(found)
        new, baselined = self._split_baseline(spec, kept_findings)
        recorded = self.baseline(spec).fingerprints(spec.id)
        # A contract that did not run found nothing, so it cannot tell what is stale; nor
        # can it of a file it could not analyse (DOM001), which may hide anything.
        hidden = _unanalysed_modules(found)
        stale_prints = (
            []
            if extra.get(NOT_RUN)
            else sorted(
                p
                for p in recorded - {f.fingerprint for f in kept_findings}
                if fingerprints.parse(p).module not in hidden
            )
        )
        level = spec.config.baseline.stale
        stale = self._stale_findings(spec, stale_prints) if level == "error" else []
        orphans = self._orphans(spec)
        if level == "error":
            stale += self._stale_findings(spec, orphans)
        if level == "warn":
            shown = (*stale_prints, *(f"{contract}/{fingerprint}" for contract, fingerprint in orphans))
            warnings = (*warnings, *(stale_message(fingerprint) for fingerprint in shown))
        chains: Mapping[str, tuple[Link, ...]] = extra.get("chains", {})
        domains: Domains | None = extra.get("domains")
        return ContractResult(
            id=spec.id,
            name=spec.name,
            type=spec.type,
            kept=not new and not stale and not failures,
            findings=tuple(new),
            baselined=tuple(baselined),
            stale=tuple(stale),
            suppressed=tuple(suppressed),
            warnings=tuple(sorted(warnings)),
            failures=tuple(failures),
            dependencies=_dependencies(new, chains),
            domains=domains,
            baselined_edges=tuple(sorted(e for f in baselined if (e := fingerprints.parse_edge(f.fingerprint)))),
            guidance=spec.guidance,
            baseline=self._relative(spec.baseline_path),
            census=take_census(kept_findings, recorded) if getattr(spec.family, "census", False) else None,
        )

    def _orphans(self, spec: ContractSpec) -> list[tuple[str, str]]:
        """``(contract, fingerprint)`` of the entries of ``spec``'s baseline file that no
        contract reading the file can match: of a contract the configuration lacks
        (renamed, removed), or of one that reads another file (or none). They are
        reported by the first contract using the file, and ``baseline --prune`` strikes
        them."""
        if self.settings.known_contracts is None:
            return []
        path = self._real_path(spec.baseline_path)
        readers = [contract for contract, file in self._baseline_files() if self._real_path(file) == path]
        if not readers or readers[0] != spec.id:
            return []
        baseline = self.baseline(spec)
        if baseline.contracts() <= set(readers):  # the usual case: no entry to look at
            return []
        return sorted((e.contract, e.fingerprint) for e in baseline.entries if e.contract not in readers)

    def _baseline_files(self) -> tuple[tuple[str, Path], ...]:
        """Each domain-fence contract of the configuration with its baseline file, in order."""
        if self.settings.baselines is not None:
            return self.settings.baselines
        return tuple((spec.id, spec.baseline_path) for spec in self.contracts)

    def _orphaned(self, contract: str) -> str:
        """Why an entry of ``contract`` in a baseline file it does not read matches nothing."""
        if contract not in (self.settings.known_contracts or ()):
            return "not in the configuration"
        reads = [file for other, file in self._baseline_files() if other == contract]
        return f"whose baseline is {self._relative(reads[0])}" if reads else "which has no baseline"

    def _stale_findings(self, spec: ContractSpec, stale: list[str] | list[tuple[str, str]]) -> list[Finding]:
        """DOM002 for each stale entry: a fingerprint of ``spec``, or ``(contract,
        fingerprint)`` of a contract that does not read the file (see :meth:`_orphans`)."""
        if not stale:
            return []
        try:
            lines = baseline_entry_lines(spec.baseline_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            lines = {}
        shown = self._relative(spec.baseline_path)
        found = []
        for entry in stale:
            contract, fingerprint = entry if isinstance(entry, tuple) else (spec.id, entry)
            line = lines.get((contract, fingerprint), 1)
            why = self._orphaned(contract) if contract != spec.id else ""
            found.append(stale_finding(spec.id, fingerprint, shown, line, contract, why))
        return found

    def _relative(self, path: Path) -> str:
        """``path`` relative to the project root, with ``..`` when it lies outside (a
        baseline shared by projects): reports join it to the root's place in the checkout."""
        path = self._real_path(path)
        root = self.index.root
        if path.is_relative_to(root):
            return path.relative_to(root).as_posix()
        try:
            return Path(os.path.relpath(path, root)).as_posix()
        except ValueError:  # another drive
            return path.as_posix()

    # -- recording ----------------------------------------------------------------------

    @without_cyclic_collection
    def record(self, prune: bool = False, renames: RenameHistory | None = None) -> list[str]:
        """Record (or with ``prune`` only strike) the baseline entries of every contract;
        per baseline file a summary line and one line per entry added, pruned or
        re-keyed, then one per file no baseline accepts.

        An entry of a module renamed since is re-keyed to the module's new name, with
        ``prune`` too (:mod:`.rekey`); ``renames`` tells, for a baseline file, the module
        renames and deletions the project's history shows since it was recorded (None:
        unknown).

        Raises GraphUnavailableError when a contract needs the import graph and it
        cannot be built: recording without it would strike every boundary entry."""
        if any(spec.family.needs_graph for spec in self.contracts):
            self.context.graph()
        current: dict[Path, dict[str, list[BaselineEntry]]] = defaultdict(dict)
        paths: dict[Path, Path] = {}
        unanalysable: set[str] = set()
        for spec in self.contracts:
            entries = []
            now = self.current(spec)
            for finding in now:
                if finding.code == UNANALYSABLE:
                    unanalysable.add(f"{finding.symbol}: {finding.message}")
                    continue
                entries.append(entry_of(spec.id, finding))
            # A file that could not be analysed may still hold what its entries record:
            # they are kept as they are, neither pruned nor re-keyed, until it can be read.
            hidden = _unanalysed_modules(now)
            entries += [
                entry
                for entry in self.baseline(spec).entries
                if entry.contract == spec.id and fingerprints.parse(entry.fingerprint).module in hidden
            ]
            key = real_path(spec.baseline_path)
            paths.setdefault(key, spec.baseline_path)
            current[key][spec.id] = sorted(set(entries))
        lines = [
            line
            for key, by_contract in sorted(current.items())
            for line in self._update_baseline(paths[key], by_contract, prune, renames)
        ]
        return lines + [f"not recorded, fix it (no baseline accepts {UNANALYSABLE}): {d}" for d in sorted(unanalysable)]

    def _update_baseline(
        self, path: Path, by_contract: dict[str, list[BaselineEntry]], prune: bool, renames: RenameHistory | None
    ) -> list[str]:
        from domain_fence.core.engine import rekey  # only recording needs it

        recorded = load_baseline(path)
        # Entries of contracts that no longer write to this file can never match again.
        updated = Baseline(path, tuple(e for e in recorded.entries if e.contract in by_contract))
        found = Baseline(path, tuple(e for entries in by_contract.values() for e in entries))
        modules = frozenset(self.index.modules)
        # The history is asked only when an entry went and another came.
        history = renames(path) if renames is not None and rekey.might_carry(recorded, found) else None
        confirmed = history.renamed if history is not None else None
        deleted = history.deleted if history is not None else frozenset()
        carried = {
            (r.contract, r.new) for r in rekey.changes(recorded, found, modules, confirmed, False, deleted).rekeyed
        }
        for contract, entries in by_contract.items():
            if prune:
                keep = {e.fingerprint for e in entries}
                kept = [e for e in updated.entries if e.contract == contract and e.fingerprint in keep]
                entries = kept + [e for e in entries if (contract, e.fingerprint) in carried]
            updated = updated.replace_contract(contract, entries)
        # An entry the file repeats (a merge that kept both sides) is one: kept once, and said.
        updated = Baseline(path, one_each(updated.entries))
        changed = write_baseline(updated)
        self._baselines.pop(real_path(path), None)
        change = rekey.changes(recorded, updated, modules, confirmed, False, deleted)
        before = {(e.contract, e.fingerprint) for e in recorded.entries}
        after = {(e.contract, e.fingerprint) for e in updated.entries}
        rekeyed = f"{len(change.rekeyed)} re-keyed, " if change.rekeyed else ""
        repeated = [key for key in recorded.repeated if key in after]
        merged = f"{len(repeated)} {'duplicate' if len(repeated) == 1 else 'duplicates'} removed, " if repeated else ""
        summary = (
            f"{self._relative(path)}: {len(after)} recorded ({len(change.added)} added, "
            f"{len(change.pruned)} pruned, {rekeyed}{merged}{len(after & before)} still present); "
            f"{'written' if changed else 'unchanged'}"
        )
        duplicates = [f"  removed a duplicate of {contract} {fingerprint}" for contract, fingerprint in repeated]
        return [summary, *rekey.change_lines(change), *duplicates]


class _Known(NamedTuple):
    """A contract's findings by file, as ``check`` finds them, but in ``again``."""

    by_path: dict[str, list[Finding]]
    again: frozenset[str]  # modules to check one by one: changed since the results were kept


def _unanalysed_modules(findings: Iterable[Finding]) -> frozenset[str]:
    """The modules (or paths) of the files ``findings`` say could not be analysed."""
    return frozenset(fingerprints.parse(f.fingerprint).module for f in findings if f.code == UNANALYSABLE)


def _by_path(findings: Iterable[Finding]) -> dict[str, list[Finding]]:
    grouped: dict[str, list[Finding]] = defaultdict(list)
    for finding in findings:
        grouped[finding.path].append(finding)
    return dict(grouped)


# Each index's snapshot of the files' stamps (see Engine._snapshot), with the index.
_SNAPSHOTS: dict[int, tuple[ProjectIndex, Digests]] = {}

# A baseline file -> the module renames and deletions since it was recorded, or None.
RenameHistory = Callable[[Path], "ModuleHistory | None"]


def _imports(facts: FileFacts | ImportFacts) -> frozenset[tuple[str, str | None, int, bool]]:
    """What the import graph knows of a module: the modules it imports, on which lines."""
    return frozenset((f.source, f.name, f.line, f.type_checking) for f in facts.imports)


def stale_message(fingerprint: str) -> str:
    from domain_fence.core.model.rules import get_rule

    return "DOM002 " + get_rule("DOM002").format(fingerprint=fingerprint)


def _dependencies(new: list[Finding], chains: Mapping[str, tuple[Link, ...]]) -> tuple[Dependency, ...]:
    """The new crossing imports, grouped as import-linter groups its chains."""
    grouped: dict[tuple[str, str], set[tuple[Link, ...]]] = defaultdict(set)
    for finding in new:
        chain = chains.get(finding.fingerprint)
        if chain:
            grouped[chain[0].importer, chain[-1].imported].add(chain)
    return tuple(
        Dependency(importer, imported, tuple(sorted(found))) for (importer, imported), found in sorted(grouped.items())
    )


__all__ = [
    "BaselineError",
    "ConfigurationProblems",
    "ContractSpec",
    "Engine",
    "FileFindings",
    "Settings",
]
