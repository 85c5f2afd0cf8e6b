"""Check every contract of a configuration: ours through the engine, import-linter's
own types through import-linter, each ``ContractCheck`` read into a
:class:`~domain_fence.core.model.report.ContractResult`.

import-linter's built-in types put import chains in their metadata in a handful of
shapes; those become DOM303 findings at the first import of each chain. Anything else (an acyclic-siblings summary, a
third-party type) is captured from the contract's own rendering, so no broken contract
goes unreported.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from copy import deepcopy
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grimp import ImportGraph
from importlinter import Contract, ContractCheck
from importlinter.application import output
from rich.console import Console
from rich.errors import MarkupError
from rich.text import Text

from domain_fence.core.engine import ConfigurationProblems, Engine
from domain_fence.core.engine.baseline import BaselineError
from domain_fence.core.engine.failures import failure_as_one_line
from domain_fence.core.families import GraphUnavailableError
from domain_fence.core.families.boundary import import_place
from domain_fence.core.index.blockers import Blocker, blocker_finding, printable
from domain_fence.core.index.project import ProjectIndex
from domain_fence.core.model import text
from domain_fence.core.model.findings import Finding, sorted_findings
from domain_fence.core.model.report import (
    ContractResult,
    Dependency,
    Link,
    Report,
    contract_broken_finding,
    import_contract_finding,
)

from .base import FenceContract
from .configuration import Configuration, ConfigurationError
from .graph import build_graph
from .sections import section_line
from .session import engine_for

Progress = Callable[[str], None]

if TYPE_CHECKING:
    from domain_fence.core.index.project import ProjectIndex


def check_configuration(configuration: Configuration, progress: Progress | None = None) -> Report:
    """Check every contract of ``configuration`` against one import graph: ours through
    the engine, import-linter's own types through import-linter.

    Raises ConfigurationError for an invalid configuration or an unbuildable graph,
    and ContractFailed when a contract raises while checking.
    """
    progress = progress or (lambda message: None)
    contracts = configuration.contracts()
    fence = [c for c in contracts if isinstance(c, FenceContract)]
    engine = engine_for(configuration, fence)
    try:
        validate(engine)
        results = []
        for contract in contracts:
            progress(f"Checking {contract.name}")
            if isinstance(contract, FenceContract):
                with reported_as_failure(configuration, contract):
                    results.append(engine.check_contract(engine.contract(contract.contract_id)))
            else:
                results.append(check_import_linter_contract(configuration, contract, engine))
    finally:
        engine.save()  # the facts this run parsed, for the next one
    root = configuration.root
    return Report(root=root.as_posix(), config=_relative(configuration.path, root), contracts=tuple(results))


def validate(engine: Engine) -> None:
    """ConfigurationError for what the configuration names that the project lacks."""
    try:
        engine.validate()
    except ConfigurationProblems as error:
        raise ConfigurationError(str(error)) from None


def check_import_linter_contract(configuration: Configuration, contract: Contract, engine: Engine) -> ContractResult:
    """One of import-linter's own contract types (or a third party's), on a copy of
    the engine's graph: DOM303 at the first import of each offending chain."""
    reader = ContractReader(configuration, contract, engine.index)
    try:
        graph = engine.context.graph()
    except GraphUnavailableError as error:
        return reader.not_run(error)
    with reported_as_failure(configuration, contract):
        check = contract.check(deepcopy(graph), verbose=False)
    return reader.result(check)


def project_graph(configuration: Configuration, index: ProjectIndex | None = None) -> ImportGraph:
    """The import graph, or a one-line ConfigurationError (grimp aborts the whole build
    on one syntax error); ``index``: the project's files as found (else found now)."""
    try:
        return build_graph(configuration, index=index)
    except ConfigurationError:
        raise
    except Exception as error:  # noqa: BLE001 -- grimp's errors have no common base; each becomes one line
        raise ConfigurationError(f"{configuration.path}: cannot build the import graph: {one_line(error)}") from None


@contextmanager
def reported_as_failure(configuration: Configuration, contract: Contract) -> Iterator[None]:
    """Any exception while checking ``contract`` becomes a one-line ContractFailed
    naming the file and the contract's section."""
    where = f"{configuration.path}: {configuration.section(contract.contract_options)}"
    with failure_as_one_line(where, (ConfigurationError, BaselineError)):
        yield


class ContractReader:
    """Reads an import-linter contract's ``ContractCheck`` into a ContractResult."""

    def __init__(self, configuration: Configuration, contract: Contract, index: ProjectIndex) -> None:
        self.configuration = configuration
        self.contract = contract
        self.options = contract.contract_options
        self.id = str(self.options.get("id") or contract.name)
        self.type = str(self.options.get("type", ""))
        self.index = index

    def result(self, check: ContractCheck) -> ContractResult:
        metadata = check.metadata
        dependencies = tuple(sorted(dependencies_from(metadata)))
        findings = self.chain_findings(dependencies) + self.undeclared_layer_findings(metadata)
        if not check.kept and not findings:
            findings = [self.rendered_finding(check)]
        return ContractResult(
            id=self.id,
            name=self.contract.name,
            type=self.type,
            kept=check.kept,
            findings=tuple(sorted_findings(findings)),
            warnings=tuple(sorted(plain(w) for w in check.warnings)),
            dependencies=dependencies,
            guidance=str(self.options.get("broken_contract_guidance") or ""),
        )

    def not_run(self, missing_graph: GraphUnavailableError) -> ContractResult:
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
            findings=tuple(sorted_findings(findings)),
            guidance=str(self.options.get("broken_contract_guidance") or ""),
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
            import_contract_finding(
                self.id,
                self.type,
                chain,
                self.path_of(chain[0].importer),
                import_place(self.index, chain[0].importer, chain[0].imported, min(chain[0].line_numbers, default=1)),
            )
            for chain in first_chain.values()
        ]

    def undeclared_layer_findings(self, metadata: Mapping[str, Any]) -> list[Finding]:
        # An exhaustive layers contract lists the children no layer names.
        return [
            contract_broken_finding(self.id, self.type, f"{module} is not listed as a layer", self.path_of(module), 1)
            for module in sorted(metadata.get("undeclared_modules") or ())
        ]

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
    return printable(text.one_line(error))
