"""The flake8 plugin (codes ``DOM``): the per-file view of the project's contracts.

It reads the same import-linter configuration ``lint-imports`` reads (found in the
current directory, or named with ``--domain-fence-config``), so both report the same
findings. flake8 hands the plugin one file at a time; the project index answering
cross-module questions is built once per process and shared by every file.

For each file it runs every contract of a family it knows: ``vocabulary`` contracts
(DOM101-DOM104) and ``boundary`` contracts (DOM301, direct imports only: indirect
chains need the whole graph, which is ``lint-imports``' job). Baselined findings are
not reported; noqa comments and per-file-ignores are flake8's business.

Rules the registry marks off by default (DOM111-DOM113, the census of a vocabulary
contract's wider ``scope``) are reported only when ``select`` or ``extend-select``
names them: ``DOM11`` or ``DOM111``, not a prefix such as ``DOM`` that selects the
default rules too (bugbear's B9 convention).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from flake8.exceptions import PluginExecutionFailed

from domain_fence import __version__
from domain_fence.core.baseline import BaselineError, load_baseline
from domain_fence.core.boundary import direct_import_findings
from domain_fence.core.events import prefetch_covered, vocabulary_findings
from domain_fence.core.findings import Finding
from domain_fence.core.index import ProjectIndex
from domain_fence.core.modules import matches_any
from domain_fence.core.placement import module_placement_findings
from domain_fence.core.rules import RULES
from domain_fence.integrations.importlinter.base import FenceContract
from domain_fence.integrations.importlinter.configuration import (
    Configuration,
    ConfigurationError,
    ConfigurationNotFound,
    find_configuration,
    load_configuration,
)
from domain_fence.integrations.importlinter.preflight import preflight_problems

EXIT_CONFIGURATION_ERROR = 2

OFF_BY_DEFAULT = tuple(rule.code for rule in RULES.values() if rule.off_by_default)

# family -> (contract config, index, module) -> findings of that module.
FamilyCheck = Callable[[Any, ProjectIndex, str], list[Finding]]


def family_checks(configuration: Configuration) -> dict[str, FamilyCheck]:
    """The per-file check of each contract family flake8 reports."""
    return {
        "vocabulary": vocabulary_findings,
        "placement": module_placement_findings,
        "boundary": partial(
            direct_import_findings,
            exclude_type_checking=configuration.session_flag("exclude_type_checking_imports"),
        ),
    }


@dataclass
class Project:
    """One configuration's contracts, checks, baselines and (lazily) its index."""

    configuration: Configuration
    contracts: list[FenceContract[Any]]
    recorded: dict[str, frozenset[str]]  # contract id -> baselined fingerprints
    checks: dict[str, FamilyCheck] = field(default_factory=dict)
    _index: ProjectIndex | None = None

    @classmethod
    def load(cls, path: Path | None) -> Project:
        """Raises ConfigurationError or BaselineError with one line per problem."""
        configuration = load_configuration(path)
        contracts = configuration.fence_contracts()
        recorded = {
            contract.contract_id: load_baseline(contract.config.baseline.path).fingerprints(contract.contract_id)
            for contract in contracts
        }
        # Per file, a missing root package or a misspelt module would pass silently.
        index = ProjectIndex.build(configuration.root, configuration.root_packages, cache_dir=configuration.cache_dir)
        problems = preflight_problems(configuration, contracts, index)
        if problems:
            raise ConfigurationError("\n".join(problems))
        return cls(configuration, contracts, recorded, family_checks(configuration), _index=index)

    @property
    def index(self) -> ProjectIndex:
        if self._index is None:
            configuration = self.configuration
            self._index = ProjectIndex.build(
                configuration.root, configuration.root_packages, cache_dir=configuration.cache_dir
            )
        return self._index

    def prepare(self, paths: list[str]) -> None:
        """Before flake8 starts its workers: read, in parallel, the facts of the files
        under ``paths`` that a vocabulary or boundary contract covers, then move them
        out of the cyclic garbage collector's sight.

        Kept for the whole run, those facts would otherwise be walked by every full
        collection that flake8's own work triggers: a cost growing with the files
        checked times the facts kept, a quarter of flake8's time on the benchmark's
        largest tree. Long-lived objects frozen before a fork is what ``gc.freeze``
        is for; the workers inherit the facts instead of each reading its share."""
        if "-" in paths:
            return  # stdin: one file, read when checked
        index = self.index
        under = modules_below(index, paths or ["."])
        for contract in self.contracts:
            if contract.family == "vocabulary":
                prefetch_covered(contract.config, index, among=under)
            elif contract.family == "boundary":
                index.prefetch(m for m in under if matches_any(m, contract.config.source_modules))
        global _FROZEN
        if not _FROZEN and len(under) >= FREEZE_AFTER:  # a handful of files costs the collector nothing
            gc.freeze()
            _FROZEN = True

    def findings(self, filename: str) -> Iterator[Finding]:
        """New (unbaselined) findings of every contract for one file, each once."""
        module = self.index.module_for_path(filename)
        if module is None:
            return
        seen = set()
        for contract in self.contracts:
            check = self.checks.get(contract.family)
            if check is None:
                continue
            recorded = self.recorded[contract.contract_id]
            for finding in check(contract.config, self.index, module):
                key = (finding.line, finding.col, finding.code, finding.message)
                if finding.fingerprint not in recorded and key not in seen:
                    seen.add(key)
                    yield finding


FREEZE_AFTER = 64  # modules about to be checked
_FROZEN = False


def modules_below(index: ProjectIndex, paths: list[str]) -> list[str]:
    """The modules whose files are ``paths`` or lie below one of them."""
    roots = [os.path.abspath(path) for path in paths]
    exact = set(roots)
    # pre-commit passes every changed file: only directories can hold others
    prefixes = tuple(root.rstrip(os.sep) + os.sep for root in roots if os.path.isdir(root))
    return [module for file, module in index.absolute_paths().items() if file in exact or file.startswith(prefixes)]


def opt_in_prefix(code: str) -> str:
    """The shortest prefix of an off-by-default ``code`` that selects no default rule
    (``DOM11`` for DOM111): selecting it, or anything longer, is asking for the code."""
    default_codes = [rule.code for rule in RULES.values() if not rule.off_by_default]
    for end in range(1, len(code)):
        if not any(other.startswith(code[:end]) for other in default_codes):
            return code[:end]
    return code


def opted_in(selected: list[str]) -> frozenset[str]:
    """The off-by-default codes that the ``select``/``extend-select`` entries name.

    flake8 itself would report a default-ignored code for any selected prefix, even
    ``DOM``, which the usual configurations select to enable the plugin.
    """
    return frozenset(
        code
        for code in OFF_BY_DEFAULT
        if any(code.startswith(entry) and len(entry) >= len(opt_in_prefix(code)) for entry in selected)
    )


# One project per configuration and process, found once: flake8 creates a checker per
# file, and finding the configuration reads and parses it (0.24 ms, as long as the
# checks of a small file). Keyed by the option and the directory it is relative to.
_PROJECTS: dict[tuple[str | None, str], Project | None] = {}


def project_for(config: str | None) -> Project | None:
    """The project for ``--domain-fence-config`` (or the current directory); None when
    no option was given and the current directory holds no import-linter configuration:
    the plugin then has nothing to check."""
    key = (config, os.getcwd())
    if key not in _PROJECTS:
        _PROJECTS[key] = _load_project(config)
    return _PROJECTS[key]


def _load_project(config: str | None) -> Project | None:
    if config is None:
        try:
            path = find_configuration(Path.cwd())
        except ConfigurationNotFound:
            return None
    else:
        path = Path(config).resolve()
    return Project.load(path)


class DomainFenceChecker:
    """flake8 entry point ``DOM``."""

    name = "domain-fence"
    version = __version__
    config: str | None = None
    optional_codes: frozenset[str] = frozenset()  # off-by-default codes the user selected

    def __init__(self, tree: Any, filename: str) -> None:
        self.filename = filename

    @classmethod
    def add_options(cls, parser: Any) -> None:
        parser.add_option(
            "--domain-fence-config",
            default=None,
            parse_from_config=True,
            normalize_paths=True,
            help="import-linter configuration holding the domain-fence contracts, or its "
            "directory (default: the one lint-imports reads in the current directory)",
        )
        # Plain `flake8` then agrees with opted_in(): the census codes stay quiet.
        parser.extend_default_ignore(list(OFF_BY_DEFAULT))

    @classmethod
    def parse_options(cls, options: argparse.Namespace) -> None:
        cls.config = options.domain_fence_config
        cls.optional_codes = opted_in([*(options.select or ()), *(getattr(options, "extend_select", None) or ())])
        try:
            project = project_for(cls.config)  # a broken configuration fails once, up front
        except (ConfigurationError, BaselineError) as error:
            for line in str(error).splitlines():
                print(f"flake8: domain-fence: error: {line}", file=sys.stderr)
            raise SystemExit(EXIT_CONFIGURATION_ERROR) from None
        if project is not None:
            project.prepare(list(getattr(options, "filenames", None) or []))

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        # flake8 wraps errors raised while constructing a plugin, not while iterating it.
        try:
            project = project_for(self.config)
            if project is None:
                return
            for finding in project.findings(self.filename):
                if finding.code in OFF_BY_DEFAULT and finding.code not in self.optional_codes:
                    continue
                yield finding.line, finding.col, f"{finding.code} {finding.message}", type(self)
        except Exception as error:
            raise PluginExecutionFailed(filename=self.filename, plugin_name="DOM", exception=error) from error
