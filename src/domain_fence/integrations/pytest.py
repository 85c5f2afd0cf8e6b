"""pytest plugin (entry point ``pytest11``, name ``domain_fence``): architecture checks
as fixtures and, with ``--domain-fence``, as test items.

It reads the project's import-linter configuration, the one ``lint-imports`` reads:
``--domain-fence-config`` (a file, or the project directory holding it), else the ini
option ``domain_fence_config``, else the rootdir.

This module is imported by every pytest run of every project that installs
domain-fence, so its top level imports only pytest and the standard library; the
analysis, import-linter and grimp are imported when a fixture or item first needs them.
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import warnings
from collections.abc import Callable, Iterator
from copy import deepcopy
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import pytest

from domain_fence.core.model.text import one_line
from domain_fence.core.source.files import real_path

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr, TracebackStyle
    from grimp import ImportGraph
    from importlinter.domain.contract import Contract, ContractCheck

    from domain_fence.core.engine import Engine
    from domain_fence.core.families.placement.definitions import Definition
    from domain_fence.core.index.project import ProjectIndex
    from domain_fence.core.model.findings import Finding
    from domain_fence.core.model.report import ContractResult
    from domain_fence.integrations.importlinter.configuration import Configuration

OPTION = "--domain-fence-config"
INI_OPTION = "domain_fence_config"
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
P = ParamSpec("P")
T = TypeVar("T")


class FenceProblem(Exception):
    """The configuration or the project cannot be checked; the message says why."""


class ContractBroken(Exception):
    """A contract is broken; the message is its rendered report."""


class ContractUnusable(FenceProblem):
    """An import-linter contract raised while it was checked (a module it names is not
    in the graph, ...): a configuration error, as ``domain-fence check`` reports it."""


class FenceWarning(UserWarning):
    """A kept contract reported a warning (an unmatched pattern, a stale entry, ...)."""


def _fails_readably(method: Callable[P, T]) -> Callable[P, T]:
    """Turn a FenceProblem into a pytest failure showing only its message."""

    @functools.wraps(method)
    def failing_readably(*args: P.args, **kwargs: P.kwargs) -> T:
        __tracebackhide__ = True
        try:
            return method(*args, **kwargs)
        except FenceProblem as error:
            problem = str(error)
        pytest.fail(problem, pytrace=False)  # outside the except: no chained traceback

    return failing_readably


class Fence:
    """The project's import-linter configuration, ready to be checked from tests.

    One instance serves a whole pytest session: the configuration, the project index
    and the import graph are each built at most once, when first needed.
    """

    def __init__(self, location: Path) -> None:
        self.location = location  # a configuration file, or the directory holding one
        self._configuration: Configuration | None = None
        self._contracts: list[Contract] | None = None
        self._engine: Engine | None = None
        self._results: dict[str, ContractResult] = {}
        self._checks: dict[str, ContractCheck] = {}  # import-linter's own types, by id

    def __repr__(self) -> str:
        return f"<Fence {self.location}>"

    # -- what tests call -------------------------------------------------------------

    @_fails_readably
    def definitions(self, pattern: str) -> list[Definition]:
        """Every module-level function and class, every method, and every name bound by
        assignment at module level or in a class body (kind ``binding``: ``init_telemetry
        = _setup``; not a re-export of an imported name) or attached to a class from
        outside its body (``Class.post_episode = f``: ``attached``), that ``pattern`` matches
        (fnmatch-style, case-sensitive; ``Class.method`` or ``*.method`` names a method,
        or a binding in a class body, by its qualified name): module, path, line, column
        (in characters, as a finding's), kind, name and owner.

        Fails when a file that could hold a match cannot be parsed.
        """
        return self._definitions(pattern)

    @_fails_readably
    def assert_defined_only_under(self, pattern: str, *module_expressions: str, allow_empty: bool = False) -> None:
        """Fail, listing each as ``path:line``, when a definition matching ``pattern``
        lies outside ``module_expressions`` (``*``/``**`` as in import-linter; a plain
        name includes its submodules), unless ``check`` accepts it: a ``# noqa: DOM201``
        on its line, or an entry in a placement contract's baseline. Fail when nothing
        matches, unless ``allow_empty``.
        """
        from domain_fence.core.families.placement.definitions import misplaced_finding
        from domain_fence.core.source.modules import ModuleExpression, matches_any, module_expression_error

        __tracebackhide__ = True
        if not module_expressions:
            pytest.fail("assert_defined_only_under() needs at least one module expression", pytrace=False)
        if not all(isinstance(expression, str) for expression in module_expressions):
            wrong = next(e for e in module_expressions if not isinstance(e, str))
            pytest.fail(
                f"assert_defined_only_under(): module expressions are strings, one per argument, not {wrong!r}",
                pytrace=False,
            )
        if not isinstance(allow_empty, bool):
            pytest.fail(
                f"assert_defined_only_under(): allow_empty is True or False, not {allow_empty!r}", pytrace=False
            )
        problems = [p for p in map(module_expression_error, module_expressions) if p]
        if problems:
            pytest.fail(f"assert_defined_only_under(): {'; '.join(problems)}", pytrace=False)
        allowed = [ModuleExpression(text) for text in module_expressions]
        found = self._definitions(pattern)
        if not found and not allow_empty:
            raise FenceProblem(
                f"no {'method or class-level binding' if '.' in pattern else 'function, class, method or binding'} "
                f"matches {pattern!r} in "
                f"{', '.join(self.configuration.root_packages)}; is the pattern misspelt? "
                "(pass allow_empty=True if none is expected)"
            )
        where = ", ".join(module_expressions)
        # What check accepts (a noqa comment, a baseline entry of a placement contract)
        # passes here too.
        misplaced = [
            finding
            for finding in (misplaced_finding(d, where) for d in found if not matches_any(d.module, allowed))
            if not self.engine.accepts(finding)
        ]
        if misplaced:
            pytest.fail(
                f"{len(misplaced)} definition(s) matching {pattern!r} outside {where}:\n"
                + "\n".join(finding.describe() for finding in misplaced),
                pytrace=False,
            )

    @_fails_readably
    def check(self, name_or_id: str) -> ContractCheck:
        """Run one contract (any type, import-linter's built-ins included) by its id or
        name; fail with its rendered report when broken. Warnings of a kept contract
        become :class:`FenceWarning` warnings."""
        __tracebackhide__ = True
        found = self.contract(name_or_id)
        result = self.run(found)
        if not result.kept:
            pytest.fail(self.report(found, result), pytrace=False)
        for message in result.warnings:
            warnings.warn(FenceWarning(f"{found.name}: {message}"), stacklevel=2)
        return result

    @_fails_readably
    def findings(self, include_baselined: bool = False) -> list[Finding]:
        """Every finding of the domain-fence contracts (boundary, placement, ...), sorted;
        those recorded in a baseline only with ``include_baselined``."""
        from domain_fence.core.model.findings import sorted_findings

        found: list[Finding] = []
        for spec in self.engine.contracts:
            result = self.result(spec.id)
            found += [*result.findings, *(result.baselined if include_baselined else ())]
        return sorted_findings(found)

    # -- shared with the collected items ---------------------------------------------

    @property
    def configuration(self) -> Configuration:
        if self._configuration is None:
            from domain_fence.integrations.importlinter.configuration import ConfigurationError, load_configuration

            try:
                self._configuration = load_configuration(self.location)
            except ConfigurationError as error:
                raise FenceProblem(str(error)) from None
        return self._configuration

    @property
    def contracts(self) -> list[Contract]:
        """Every contract of the configuration, constructed and validated once."""
        if self._contracts is None:
            from domain_fence.integrations.importlinter.configuration import ConfigurationError

            try:
                self._contracts = self.configuration.contracts()
            except ConfigurationError as error:
                raise FenceProblem(str(error)) from None
        return self._contracts

    def contract(self, id_or_name: str) -> Contract:
        for contract in self.contracts:
            if id_or_name in (contract_id(contract), contract.name):
                return contract
        known = ", ".join(sorted(contract_id(c) for c in self.contracts))
        raise FenceProblem(f"{self.configuration.path}: no contract {id_or_name!r} (contracts: {known})")

    @property
    def engine(self) -> Engine:
        """The engine for the configuration's domain-fence contracts, validated."""
        if self._engine is None:
            from domain_fence.core.engine.baseline import BaselineError
            from domain_fence.core.source.modules import default_search_paths
            from domain_fence.integrations.importlinter.base import FenceContract
            from domain_fence.integrations.importlinter.configuration import ConfigurationError
            from domain_fence.integrations.importlinter.graph import refuse_regular_parents
            from domain_fence.integrations.importlinter.results import validate
            from domain_fence.integrations.importlinter.session import engine_for

            _configure_importlinter()
            fence = [c for c in self.contracts if isinstance(c, FenceContract)]
            engine = engine_for(self.configuration, fence)
            try:
                validate(engine)
                if len(fence) < len(self.contracts) or any(spec.family.needs_graph for spec in engine.contracts):
                    # What the graph's builder would refuse, found before a test needs it.
                    refuse_regular_parents(self.configuration, default_search_paths(self.configuration.root))
            except (ConfigurationError, BaselineError) as error:
                raise FenceProblem(str(error)) from None
            self._engine = engine
        return self._engine

    @property
    def index(self) -> ProjectIndex:
        return self.engine.index

    @property
    def graph(self) -> ImportGraph:
        from domain_fence.core.families import GraphUnavailableError
        from domain_fence.integrations.importlinter.configuration import ConfigurationError

        try:
            return self.engine.context.graph()
        except GraphUnavailableError as error:
            where = "; ".join(f"{b.path}:{b.line}: {b.reason}" for b in error.blockers) or error.reason
            raise FenceProblem(f"{self.configuration.path}: cannot build the import graph: {where}") from None
        except ConfigurationError as error:  # root packages grimp refuses
            raise FenceProblem(str(error)) from None

    def result(self, contract_id: str) -> ContractResult:
        """A domain-fence contract's result from the engine, computed once."""
        if contract_id not in self._results:
            from domain_fence.core.engine.baseline import BaselineError
            from domain_fence.core.index.collector import kept_until_exit
            from domain_fence.integrations.importlinter.configuration import ConfigurationError

            try:
                with kept_until_exit():  # the session keeps what the check read
                    self._results[contract_id] = self.engine.check_contract(self.engine.contract(contract_id))
            except BaselineError as error:
                raise FenceProblem(f"{contract_id}: {one_line(error)}") from None
            except ConfigurationError as error:  # root packages the graph's builder refuses
                raise FenceProblem(str(error)) from None
            finally:
                self.engine.save()
        return self._results[contract_id]

    def run(self, contract: Contract) -> ContractCheck:
        """Check ``contract`` once: ours through the engine, import-linter's own types
        on a copy of the session's graph, as lint-imports would."""
        from domain_fence.core.engine.failures import ContractFailed
        from domain_fence.integrations.importlinter.base import FenceContract, contract_check
        from domain_fence.integrations.importlinter.results import reported_as_failure

        if isinstance(contract, FenceContract):
            return contract_check(self.result(contract.contract_id))
        key = contract_id(contract)
        if key not in self._checks:
            graph = self.graph
            try:
                # As check runs it: whatever it raises is one line naming its section.
                with reported_as_failure(self.configuration, contract):
                    self._checks[key] = contract.check(deepcopy(graph), verbose=False)
            except ContractFailed as error:
                raise ContractUnusable(str(error)) from None
        return self._checks[key]

    def check_import_linter_contracts(self) -> None:
        """Check every contract of import-linter's own types (or a third party's) now,
        keeping the results for the items: ContractUnusable for one that raises, as
        ``domain-fence check`` refuses it. Nothing is checked while the import graph
        cannot be built: each such contract's item then fails naming the file at fault."""
        from domain_fence.core.families import GraphUnavailableError
        from domain_fence.integrations.importlinter.base import FenceContract

        native = [c for c in self.contracts if not isinstance(c, FenceContract)]
        if not native:
            return
        try:
            self.engine.context.graph()
        except GraphUnavailableError:
            return
        for contract in native:
            self.run(contract)

    def report(self, contract: Contract, check: ContractCheck) -> str:
        """The broken contract's report, as ``lint-imports`` renders it, without colour."""
        from importlinter.application import output

        from domain_fence.integrations.importlinter.base import FenceContract, broken_lines

        if isinstance(contract, FenceContract):
            rendered = broken_lines(check.metadata)
        else:
            with output.console.capture() as captured:
                contract.render_broken_contract(check)
            rendered = [_ANSI.sub("", line).rstrip() for line in captured.get().strip("\n").splitlines()]
        lines = [f"{contract.name} BROKEN", "", *rendered]
        lines += [f"warning: {message}" for message in check.warnings]
        return "\n".join(lines)

    def _definitions(self, pattern: str) -> list[Definition]:
        from domain_fence.core.families.config import symbol_pattern
        from domain_fence.core.families.placement.definitions import scan_definitions

        if not isinstance(pattern, str) or not pattern:
            raise FenceProblem(f"a symbol pattern is a non-empty string such as 'init_telemetry', not {pattern!r}")
        try:
            symbol_pattern(pattern)  # as the placement contract's symbols
        except ValueError as problem:
            raise FenceProblem(str(problem)) from None
        scan = scan_definitions(self.index, [pattern])
        if scan.unreadable:
            raise FenceProblem(
                "cannot vouch for files that could not be analysed:\n"
                + "\n".join(f.describe() for f in scan.unreadable)
            )
        return list(scan.definitions)


def contract_id(contract: Contract) -> str:
    return str(contract.contract_options.get("id") or contract.name)


def _configure_importlinter() -> None:
    # Built-in contracts need import-linter's settings (TIMER, ...); importing its
    # public api configures them once.
    import importlinter.api  # noqa: F401


# What the fence imports when first used. By then pytest may have put the rootdir on
# sys.path (a conftest.py, a test module there): imported from the interpreter's own
# directories, a module of the project named like one of these (or like one they
# import) is never run.
LAZY_MODULES = (
    "domain_fence.integrations.importlinter.configuration",
    "domain_fence.integrations.importlinter.graph",
    "domain_fence.integrations.importlinter.results",
    "domain_fence.core.families.placement.definitions",
    "domain_fence.core.model.findings",
    "importlinter.api",
    "importlinter.application.output",
    "grimp.exceptions",
)


def _preload() -> None:
    from domain_fence.core.index.isolation import preload

    preload(LAZY_MODULES)
    from domain_fence.integrations.importlinter.graph import GRAPH_MODULES  # imported just now

    preload(GRAPH_MODULES)


# -- options -----------------------------------------------------------------------------


def _existing_path(value: str) -> Path:
    path = Path(value)
    if not path.exists():
        raise argparse.ArgumentTypeError(f"{value}: no such file or directory")
    return real_path(path)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("domain-fence", "architecture contracts (domain-fence)")
    group.addoption(
        "--domain-fence",
        action="store_true",
        dest="domain_fence",
        default=False,
        help="collect every contract of the import-linter configuration as a test item.",
    )
    group.addoption(
        OPTION,
        dest="domain_fence_config",
        type=_existing_path,
        default=None,
        metavar="PATH",
        help=f"import-linter configuration file, or the project directory holding it "
        f"(default: the ini option {INI_OPTION}, else the rootdir).",
    )
    parser.addini(
        INI_OPTION,
        type="string",
        default="",
        help="import-linter configuration file or project directory, relative to the ini file.",
    )


_FENCE = pytest.StashKey["Fence"]()


def configuration_location(config: pytest.Config) -> Path:
    option: Path | None = config.getoption("domain_fence_config")
    if option is not None:
        return option
    value = config.getini(INI_OPTION).strip()
    if value:
        base = config.inipath.parent if config.inipath else config.rootpath
        path = real_path(base / value)
        if not path.exists():
            raise pytest.UsageError(f"{INI_OPTION} = {value}: no such file or directory ({path})")
        return path
    return Path(config.rootpath)


def pytest_configure(config: pytest.Config) -> None:
    fence = Fence(configuration_location(config))
    config.stash[_FENCE] = fence
    if config.getoption("domain_fence"):
        _preload()
        try:
            _ = fence.engine  # configuration errors stop the run before any test
            named, narrowed = _what_the_arguments_name(config, fence.configuration.path)
            if not named and not narrowed:
                # Collect the configuration file as if it had been named on the command line.
                config.args.append(str(fence.configuration.path))
            if (named or not narrowed) and not hasattr(config, "workerinput"):
                # A contract import-linter cannot check is a configuration error too,
                # deselected or not; checked once, by the process that runs (or hands out) the items.
                fence.check_import_linter_contracts()
        except FenceProblem as error:
            raise pytest.UsageError(*str(error).splitlines()) from None


def _what_the_arguments_name(config: pytest.Config, configuration: Path) -> tuple[bool, bool]:
    """Whether pytest's arguments name the configuration file (``.importlinter`` or a
    node id in it), and whether they name only files and node ids: then they are
    what runs, and the contracts are collected only when the configuration is among
    them. No arguments (``testpaths``, the current directory) or a directory among
    them is a run of the test suite, which covers the contracts."""
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        return False, False
    named = False
    narrowed = True
    for argument in config.args:
        path_part, in_file, _ = argument.partition("::")
        path = config.invocation_params.dir / path_part
        if in_file or os.path.isfile(path):
            named = named or real_path(path) == configuration
        else:  # a directory, or a package name (--pyargs)
            narrowed = False
    return named, narrowed


@pytest.fixture(scope="session")
def fence(pytestconfig: pytest.Config) -> Fence:
    """The project's import-linter configuration: ``definitions(pattern)``,
    ``assert_defined_only_under(pattern, *modules)``, ``check(contract)``, ``findings()``."""
    _preload()
    return pytestconfig.stash[_FENCE]


# -- --domain-fence collection -----------------------------------------------------------


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> ContractsFile | None:
    config = parent.config
    if not config.getoption("domain_fence") or _FENCE not in config.stash:
        return None
    fence = config.stash[_FENCE]
    if real_path(file_path) != fence.configuration.path:
        return None
    return ContractsFile.from_parent(parent, path=file_path)


class ContractsFile(pytest.File):
    """The import-linter configuration file: one item per contract, in file order."""

    def collect(self) -> Iterator[ContractItem]:
        fence = self.config.stash[_FENCE]
        for contract in fence.contracts:
            yield ContractItem.from_parent(self, name=contract_id(contract), contract=contract)


class ContractItem(pytest.Item):
    """One contract, checked like ``lint-imports`` checks it."""

    def __init__(self, *, contract: Contract, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.contract = contract
        # No fixtures, as for a test function without arguments: some plugins' hook
        # wrappers (pytest-lsp 1.0's pytest_runtest_call) fail on an item without them.
        self.funcargs: dict[str, Any] = {}

    def runtest(self) -> None:
        fence = self.config.stash[_FENCE]
        result = fence.run(self.contract)
        if not result.kept:
            raise ContractBroken(fence.report(self.contract, result))
        for message in result.warnings:
            # stacklevel 1: the contract warns, not whoever called runtest
            warnings.warn(FenceWarning(f"{self.contract.name}: {message}"), stacklevel=1)

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: TracebackStyle | None = None
    ) -> str | TerminalRepr:
        if isinstance(excinfo.value, (ContractBroken, FenceProblem)):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, self.name


__all__ = ["ContractBroken", "Fence", "FenceProblem", "FenceWarning", "fence"]
