"""The composition root: a configuration read through import-linter becomes the
engine's settings, with the import graph built the way ``lint-imports`` builds it.

Every front end gets its engine here: ``check``, ``baseline``, pytest and flake8 from a
:class:`~.configuration.Configuration` (all its contracts), ``lint-imports`` one
contract at a time, from the contract import-linter constructed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from domain_fence.core.engine import ContractSpec, Engine, Settings
from domain_fence.core.families import GraphUnavailableError
from domain_fence.core.index.blockers import skipped_blockers
from domain_fence.core.index.project import ProjectIndex

from .base import FenceContract, current_root
from .caching import fence_cache_dir
from .configuration import Configuration, ConfigurationError, find_configuration, load_configuration
from .sections import section_line

if TYPE_CHECKING:
    from grimp import ImportGraph


def contract_spec(contract: FenceContract, section: str, section_at: int) -> ContractSpec:
    options = contract.contract_options
    return ContractSpec(
        id=contract.contract_id,
        name=contract.name,
        type=str(options.get("type", contract.family.name)),
        family=contract.family,
        config=contract.config,
        section=section,
        section_line=section_at,
        guidance=str(options.get("broken_contract_guidance") or ""),
        options=dict(options),
    )


def specs_of(configuration: Configuration, contracts: list[FenceContract]) -> tuple[ContractSpec, ...]:
    return tuple(
        contract_spec(
            contract,
            configuration.section(contract.contract_options),
            section_line(configuration.path, contract.contract_id, contract.name),
        )
        for contract in contracts
    )


def contract_ids(configuration: Configuration) -> tuple[str, ...]:
    """The id of every contract of ``configuration`` as each contract reads its own: its
    id, else its name."""
    return tuple(sorted({str(o.get("id") or o.get("name")) for o in configuration.contracts_options}))


def settings_of(configuration: Configuration, contracts: list[FenceContract]) -> Settings:
    return Settings(
        config_path=configuration.path,
        root_packages=tuple(configuration.root_packages),
        contracts=specs_of(configuration, contracts),
        session=dict(configuration.session_options),
        cache_dir=configuration.cache_dir,
        known_contracts=contract_ids(configuration),
    )


def settings_record_of(configuration: Configuration) -> dict[str, Any] | None:
    """The settings a later check may start from while the configuration's files and the
    tools stay as they are (see :mod:`~domain_fence.core.engine.recorded`); None when a
    contract is one of import-linter's own types, which import-linter checks."""
    from domain_fence.core.engine.recorded import settings_record

    contracts = configuration.contracts()
    fence = [contract for contract in contracts if isinstance(contract, FenceContract)]
    if len(fence) != len(contracts):
        return None
    return settings_record(settings_of(configuration, fence), graph_served_by_bytes())


def graph_builder(
    configuration: Configuration, index: Callable[[], ProjectIndex | None] = lambda: None
) -> Callable[[], ImportGraph]:
    """Build the graph each time asked (the engine's context keeps it until a file's
    imports change); a file keeping it from being built becomes the engine's
    GraphUnavailableError, naming every file at fault. What the project's files are
    comes from ``index()`` when it gives one (else from a walk made then)."""
    from .graph import GraphUnavailable
    from .results import project_graph

    def build() -> ImportGraph:
        try:
            return project_graph(configuration, index())
        except GraphUnavailable as error:
            raise GraphUnavailableError(error.reason, error.blockers, str(error)) from None

    return build


def graph_served_by_bytes() -> bool:
    """Whether the graphs built here read again every file whose bytes changed: grimp's
    cache served by each file's bytes (see :mod:`.graph_cache`), as the installed grimp
    allows. ``lint-imports`` builds its own with grimp's cache, which trusts the time."""
    try:
        from .graph_cache import serves_by_bytes
    except ImportError:
        return False
    return serves_by_bytes()


def engine_for(
    configuration: Configuration, contracts: list[FenceContract] | None = None, long_lived: bool = False
) -> Engine:
    """The engine for every domain-fence contract of ``configuration``. A run that checks
    once builds the graph from the files its engine's index found; a ``long_lived`` one
    (an editor's server, which learns of new files only as it is told) walks the
    project again each time it builds the graph, for the files grimp could not read."""
    if contracts is None:
        contracts = configuration.fence_contracts()
    engine: Engine | None = None
    engine = Engine(
        settings_of(configuration, contracts),
        build_graph=graph_builder(configuration, lambda: None if long_lived or engine is None else engine.index),
        graph_from_bytes=graph_served_by_bytes,
    )
    return engine


# lint-imports constructs and checks each contract on its own; the contracts of one run
# share one index, so the project is read once.
_INDEXES: dict[tuple[Path, tuple[str, ...], Path | None], ProjectIndex] = {}


def lint_imports_engine(contract: FenceContract, graph: ImportGraph | None) -> tuple[Engine, ContractSpec]:
    root = current_root()
    config_path = _configuration_file(root)
    section = f"[importlinter:contract:{contract.contract_id}]"
    spec = contract_spec(contract, section, section_line(config_path, contract.contract_id, contract.name))
    packages = tuple(contract.root_packages)
    cache_dir = fence_cache_dir(root)  # lint-imports' --no-cache and --cache-dir
    key = (root, packages, cache_dir)
    if key not in _INDEXES:
        _INDEXES[key] = ProjectIndex.build(root, packages, cache_dir=cache_dir)
        _announce_contracts(config_path, contract, _INDEXES[key])
    # Which contract reports an entry no contract can match needs every contract's
    # baseline file: when they cannot be read, none does (not each, all of them).
    baselines = _baseline_files(config_path)
    known = _known_contracts(config_path) if baselines is not None else None
    settings = Settings(config_path, packages, (spec,), dict(contract.session_options), cache_dir, known, baselines)
    return Engine(settings, build_graph=_given(graph, _INDEXES[key]), index=_INDEXES[key]), spec


def _known_contracts(config_path: Path) -> tuple[str, ...] | None:
    """The ids of the configuration's contracts, read once for the contracts of a
    lint-imports run; None when it cannot be read (import-linter says why)."""
    configuration = _configuration(config_path)
    return None if configuration is None else contract_ids(configuration)


@functools.lru_cache(maxsize=4)
def _baseline_files(config_path: Path) -> tuple[tuple[str, Path], ...] | None:
    """Each domain-fence contract of the configuration with its baseline file, in order:
    the engine of one contract tells by them which contract reports an entry no
    contract reading its file can match (the first using the file), as ``check`` does."""
    configuration = _configuration(config_path)
    if configuration is None:
        return None
    try:
        contracts = configuration.fence_contracts()
    except ConfigurationError:
        return None  # import-linter reports it, contract by contract
    return tuple((c.contract_id, Path(c.config.baseline.path)) for c in contracts)


@functools.lru_cache(maxsize=4)
def _configuration(config_path: Path) -> Configuration | None:
    try:
        return load_configuration(config_path)
    except ConfigurationError:
        return None


def _announce_contracts(config_path: Path, first: FenceContract, index: ProjectIndex) -> None:
    """Ask every domain-fence contract of the run for its problems before the first is
    checked, as ``check`` does: asked, each tells the index which files it will read
    (see ProjectIndex.read_also), and the first contract to read the project in batches
    parses them with its own. lint-imports checks one contract at a time: unannounced, a
    file the census reads whole was parsed again after another contract had read only
    its imports (800 of Monty x20's files). Only when the configuration found is the
    run's: it holds the ``first`` contract as lint-imports read it (given another file,
    ``lint-imports other.ini``, the run's contracts are not known here)."""
    configuration = _configuration(config_path)
    if configuration is None:
        return
    try:
        contracts = configuration.fence_contracts()
    except ConfigurationError:
        return  # import-linter reports it, contract by contract
    if not any(c.contract_options == first.contract_options for c in contracts):
        return
    Engine(settings_of(configuration, contracts), index=index).problems()


def _configuration_file(root: Path) -> Path:
    from domain_fence.core.engine.runcache import CONFIG_FILES

    try:
        return find_configuration(root)
    except ConfigurationError:
        return root / CONFIG_FILES[1]


def _given(graph: ImportGraph | None, index: ProjectIndex) -> Callable[[], ImportGraph] | None:
    """lint-imports hands every contract the graph; a test may hand a source-reading
    contract none. A file that keeps the graph from being built where ``check`` builds it
    (a module shadowed by a package of the same name: grimp reads one of the two) keeps
    the contract from running here too, as it does there, rather than check a graph the
    other front ends refuse."""
    if graph is None:
        return None

    def given() -> ImportGraph:
        blockers = skipped_blockers(index, graph_only=True)
        if blockers:
            raise GraphUnavailableError(blockers[0].reason, blockers)
        return graph

    return given
