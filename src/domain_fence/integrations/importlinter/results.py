"""Run every contract of a configuration through import-linter's own machinery and
turn each ``ContractCheck`` into a :class:`~domain_fence.core.report.ContractResult`.

Our contract types put JSON-able findings in their metadata. import-linter's built-in
types put import chains there in a handful of shapes; those become DOM303 findings at
the first import of each chain. Anything else (an acyclic-siblings summary, a
third-party type) is captured from the contract's own rendering, so no broken contract
goes unreported.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from copy import deepcopy
from pathlib import Path
from typing import Any, cast

from grimp import ImportGraph
from importlinter import Contract, ContractCheck
from importlinter.application import output
from rich.console import Console
from rich.errors import MarkupError
from rich.text import Text

from domain_fence.core.baseline import BaselineError, load_baseline
from domain_fence.core.blockers import Blocker, blocker_finding, printable
from domain_fence.core.boundary import parse_edge_fingerprint
from domain_fence.core.census import Census, take_census
from domain_fence.core.findings import Finding
from domain_fence.core.index import ProjectIndex
from domain_fence.core.report import (
    ContractResult,
    Dependency,
    Domains,
    Link,
    Report,
    baseline_entry_lines,
    contract_broken_finding,
    import_contract_finding,
    stale_finding,
)

from .base import FenceContract, finding_from_dict, project_root, shared_index
from .boundary import BoundaryContract
from .configuration import Configuration, ConfigurationError
from .graph import GraphUnavailable, build_graph
from .vocabulary import VocabularyContract

Progress = Callable[[str], None]


class ContractFailed(Exception):
    """A contract could not be checked (a missing module, a corrupt baseline, ...);
    the message is one line naming the file and the contract's section."""


def check_configuration(configuration: Configuration, progress: Progress | None = None) -> Report:
    """Check every contract of ``configuration`` against one import graph.

    Raises ConfigurationError for an invalid configuration or an unbuildable graph,
    and ContractFailed when a contract raises while checking.
    """
    progress = progress or (lambda message: None)
    with running(configuration):
        contracts = configuration.contracts()
        progress("Building the import graph")
        try:
            graph: ImportGraph | None = project_graph(configuration)
            missing_graph = None
        except GraphUnavailable as error:
            # A file grimp cannot read must not hide the rest: the contracts that read
            # sources still run, and each contract needing the graph reports that file.
            graph, missing_graph = None, error
        results = []
        for contract in contracts:
            progress(f"Checking {contract.name}")
            if missing_graph is not None and needs_graph(contract):
                results.append(ContractReader(configuration, contract, None).not_run(missing_graph))
                continue
            with reported_as_failure(configuration, contract):
                # None only for a contract that declares needs_graph False, whose check takes None
                check = contract.check(cast(ImportGraph, deepcopy(graph)), verbose=False)
                results.append(ContractReader(configuration, contract, graph).result(check))
    root = configuration.root
    return Report(root=root.as_posix(), config=_relative(configuration.path, root), contracts=tuple(results))


def needs_graph(contract: Contract) -> bool:
    """Every contract but those that read sources (vocabulary, placement) needs it."""
    return getattr(contract, "needs_graph", True)


@contextmanager
def running(configuration: Configuration) -> Iterator[None]:
    """The context our contracts read while a front end runs several of them: the
    project root (paths in the configuration are relative to it) and one shared index."""
    root_token = project_root.set(configuration.root)
    index = ProjectIndex.build(configuration.root, configuration.root_packages, cache_dir=configuration.cache_dir)
    index_token = shared_index.set(index)
    try:
        yield
    finally:
        shared_index.reset(index_token)
        project_root.reset(root_token)
        index.save()  # the facts this run parsed, for the next one


def project_graph(configuration: Configuration) -> ImportGraph:
    """The import graph, or a one-line ConfigurationError (grimp aborts the whole build
    on one syntax error)."""
    try:
        return build_graph(configuration)
    except ConfigurationError:
        raise
    except Exception as error:  # noqa: BLE001 -- grimp's errors have no common base; each becomes one line
        raise ConfigurationError(f"{configuration.path}: cannot build the import graph: {one_line(error)}") from None


@contextmanager
def reported_as_failure(configuration: Configuration, contract: Contract) -> Iterator[None]:
    """Any exception while checking ``contract`` becomes a one-line ContractFailed
    naming the file and the contract's section."""
    try:
        yield
    except (ConfigurationError, ContractFailed, BaselineError, KeyboardInterrupt, SystemExit, GeneratorExit):
        raise
    except BaseException as error:  # noqa: BLE001 -- a panic in grimp's Rust is a BaseException
        section = configuration.section(contract.contract_options)
        raise ContractFailed(f"{configuration.path}: {section}: {one_line(error)}") from None


class ContractReader:
    """Reads one contract's ``ContractCheck`` into a ContractResult."""

    def __init__(self, configuration: Configuration, contract: Contract, graph: ImportGraph | None) -> None:
        self.configuration = configuration
        self.contract = contract
        self.graph = graph
        self.options = contract.contract_options
        self.id = str(self.options.get("id") or contract.name)
        self.type = str(self.options.get("type", ""))
        index = shared_index.get()
        if index is None:
            root, packages = configuration.root, configuration.root_packages
            index = ProjectIndex.build(root, packages, cache_dir=configuration.cache_dir)
        self.index = index

    def result(self, check: ContractCheck) -> ContractResult:
        metadata = check.metadata
        dependencies = tuple(sorted(dependencies_from(metadata)))
        if isinstance(self.contract, FenceContract):
            findings = [finding_from_dict(f) for f in metadata.get("findings", [])]
            baselined = [finding_from_dict(f) for f in metadata.get("baselined", [])]
            stale = self.stale_findings(metadata.get("stale", []))
        else:
            findings = self.chain_findings(dependencies) + self.undeclared_layer_findings(metadata)
            baselined, stale = [], []
        if not check.kept and not findings and not stale:
            findings = [self.rendered_finding(check)]
        return ContractResult(
            id=self.id,
            name=self.contract.name,
            type=self.type,
            kept=check.kept,
            findings=tuple(sorted(set(findings))),
            baselined=tuple(sorted(set(baselined))),
            stale=tuple(sorted(set(stale))),
            warnings=tuple(sorted(plain(w) for w in check.warnings)),
            dependencies=dependencies,
            domains=self.domains(),
            baselined_edges=tuple(sorted(_edges(metadata.get("baselined_edges", [])))),
            guidance=str(self.options.get("broken_contract_guidance") or ""),
            baseline=self.baseline_path(),
            census=self.census(findings + baselined),
        )

    def not_run(self, missing_graph: GraphUnavailable) -> ContractResult:
        """A contract that needs the import graph when it cannot be built: broken, with
        a DOM001 for each file at fault (or, when none can be named, at the section)."""
        findings = [blocker_finding(blocker, self.id) for blocker in missing_graph.blockers]
        if not findings:
            where = Blocker(
                _relative(self.configuration.path, self.configuration.root),
                section_line(self.configuration.path, self.id, self.contract.name),
                f"the import graph cannot be built: {missing_graph.reason}",
                self.id,
            )
            findings = [blocker_finding(where, self.id, details=("contract not run",))]
        return ContractResult(
            id=self.id,
            name=self.contract.name,
            type=self.type,
            kept=False,
            findings=tuple(sorted(set(findings))),
            domains=self.domains(),
            guidance=str(self.options.get("broken_contract_guidance") or ""),
            baseline=self.baseline_path(),
        )

    def path_of(self, module: str) -> str:
        if module in self.index.modules:
            return self.index.relative_path(module)
        return module.replace(".", "/") + ".py"

    def chain_findings(self, dependencies: Iterable[Dependency]) -> list[Finding]:
        """One DOM303 per first import: chains sharing it are one thing to fix."""
        first_chain: dict[Link, tuple[Link, ...]] = {}
        for dependency in dependencies:
            for chain in sorted(dependency.chains, key=lambda c: (len(c), c)):
                first_chain.setdefault(chain[0], chain)
        return [
            import_contract_finding(self.id, self.type, chain, self.path_of(chain[0].importer))
            for chain in first_chain.values()
        ]

    def undeclared_layer_findings(self, metadata: Mapping[str, Any]) -> list[Finding]:
        # An exhaustive layers contract lists the children no layer names.
        return [
            contract_broken_finding(self.id, self.type, f"{module} is not listed as a layer", self.path_of(module), 1)
            for module in sorted(metadata.get("undeclared_modules") or ())
        ]

    def baseline_path(self) -> str:
        if not isinstance(self.contract, FenceContract):
            return ""
        return _relative(self.contract.config.baseline.path, self.configuration.root)

    def census(self, found: list[Finding]) -> Census | None:
        """A vocabulary contract's census. What was recorded is read from the baseline
        file: stale entries reach the metadata only when they alert at `error` level."""
        if not isinstance(self.contract, VocabularyContract):
            return None
        recorded = load_baseline(self.contract.config.baseline.path).fingerprints(self.id)
        return take_census(found, recorded)

    def stale_findings(self, fingerprints: Iterable[str]) -> list[Finding]:
        fingerprints = list(fingerprints)
        if not fingerprints or not isinstance(self.contract, FenceContract):  # only ours record a baseline
            return []
        try:
            text = self.contract.config.baseline.path.read_text(encoding="utf-8")
            lines = baseline_entry_lines(text)
        except (OSError, UnicodeDecodeError):
            lines = {}
        return [stale_finding(self.id, f, self.baseline_path(), lines.get((self.id, f), 1)) for f in fingerprints]

    def rendered_finding(self, check: ContractCheck) -> Finding:
        """A broken contract whose metadata we cannot read: its own report, captured."""
        details = [line.rstrip() for line in render_broken_contract(self.contract, check).splitlines()]
        return contract_broken_finding(
            self.id,
            self.type,
            "see its report",
            _relative(self.configuration.path, self.configuration.root),
            section_line(self.configuration.path, self.id, self.contract.name),
            [line for line in details if line.strip()],
        )

    def domains(self) -> Domains | None:
        """What a boundary separates (a built-in forbidden contract is often about
        third-party packages, not the project's domains)."""
        if not isinstance(self.contract, BoundaryContract):
            return None
        config = self.contract.config
        return Domains(tuple(map(str, config.source_modules)), tuple(map(str, config.forbidden_modules)))


def dependencies_from(metadata: Mapping[str, Any]) -> Iterator[Dependency]:
    """The import chains of a built-in contract's metadata (import-linter 2.16-2.17)."""
    for item in metadata.get("invalid_chains") or ():  # forbidden, boundary, independence
        yield Dependency(item["downstream_module"], item["upstream_module"], _chains(item["chains"]))
    for item in metadata.get("invalid_dependencies") or ():  # layers
        yield Dependency(item["importer"], item["imported"], _chains(item["routes"]))
    for item in metadata.get("illegal_imports") or ():
        if isinstance(item, Mapping):  # private_modules: one link each
            link = _link(item)
            yield Dependency(link.importer, link.imported, ((link,),))
        else:  # protected: BrokenContractMetadata
            for raw in item.illegal_links:
                link = _link(raw)
                yield Dependency(link.importer, item.top_level_module, ((link,),))


def _chains(raw_chains: Iterable[Any]) -> tuple[tuple[Link, ...], ...]:
    chains: set[tuple[Link, ...]] = set()
    for raw in raw_chains:
        if isinstance(raw, Mapping):  # a detailed chain: extra first and last imports
            main = [_link(link) for link in raw["chain"]]
            chains.add(tuple(main))
            chains.update((_link(first), *main[1:]) for first in raw.get("extra_firsts", ()))
            chains.update((*main[:-1], _link(last)) for last in raw.get("extra_lasts", ()))
        else:
            chains.add(tuple(_link(link) for link in raw))
    return tuple(sorted(chains))


def _link(raw: Mapping[str, Any]) -> Link:
    lines = tuple(sorted({n for n in raw.get("line_numbers", ()) if n is not None}))
    return Link(raw["importer"], raw["imported"], lines)


def _edges(fingerprints: Iterable[str]) -> Iterator[tuple[str, str]]:
    for fingerprint in fingerprints:
        edge = parse_edge_fingerprint(fingerprint)
        if edge:
            yield edge


def render_broken_contract(contract: Contract, check: ContractCheck) -> str:
    """The contract's own broken-contract text, plain and unwrapped."""
    captured = io.StringIO()
    console = Console(file=captured, width=10_000, color_system=None, highlight=False, soft_wrap=True)
    with _console(console):
        try:
            contract.render_broken_contract(check)
        except Exception as error:  # noqa: BLE001 -- a third-party renderer must not crash the report
            return f"(could not render the contract's report: {one_line(error)})"
    return captured.getvalue()


@contextmanager
def _console(console: Console) -> Iterator[None]:
    saved = output.console
    output.console = console
    try:
        yield
    finally:
        output.console = saved


def section_line(path: Path, contract_id: str, name: str) -> int:
    """The line of a contract's section (INI) or id/name (TOML) in the configuration."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return 1
    wanted = (f"[importlinter:contract:{contract_id}]", f'id = "{contract_id}"', f'name = "{name}"')
    for number, line in enumerate(lines, start=1):
        if line.strip() in wanted:
            return number
    return 1


def plain(markup: str) -> str:
    """Warnings are rich markup (import-linter prints them through its console)."""
    try:
        return Text.from_markup(markup).plain
    except MarkupError:
        return markup


def _relative(path: Path, root: Path) -> str:
    path = Path(path).resolve()
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else path.as_posix()


def one_line(error: BaseException) -> str:
    """The error as one short printable line (grimp quotes whole source lines)."""
    return printable(str(error).strip() or type(error).__name__)
