"""What our contract types share: the baseline options, typed configuration, the
project root, and deterministic rendering of findings."""

from __future__ import annotations

import contextvars
from abc import abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from grimp import ImportGraph
from importlinter import Contract, ContractCheck, fields, output
from importlinter.domain.contract import InvalidContractOptions

from domain_fence.core.baseline import Baseline, BaselineEntry, BaselineError, apply_baseline, load_baseline
from domain_fence.core.config import BaselineOptions, ConfigError
from domain_fence.core.findings import Finding
from domain_fence.core.index import ProjectIndex
from domain_fence.core.rules import get_rule

from .caching import fence_cache_dir

# The directory relative paths in the configuration are resolved against. lint-imports
# only reads configuration from the current directory, so that is the default; our
# own front ends set it to the configuration file's directory.
project_root: contextvars.ContextVar[Path | None] = contextvars.ContextVar("project_root", default=None)


def current_root() -> Path:
    return (project_root.get() or Path.cwd()).resolve()


# A front end checking several contracts in one run (the pytest plugin) sets this, so
# they share one index instead of each reading the project again.
shared_index: contextvars.ContextVar[ProjectIndex | None] = contextvars.ContextVar("shared_index", default=None)


class UnusableBaseline(BaselineError, ValueError):
    """A BaselineError raised while checking: import-linter reports a ValueError as a
    contract's failure, our front ends report it as the baseline's one-line error."""


class FenceConfig(Protocol):
    """What every family's parsed configuration has."""

    @property
    def baseline(self) -> BaselineOptions: ...


ConfigT = TypeVar("ConfigT", bound=FenceConfig)


class FenceContract(Contract, Generic[ConfigT]):
    """Base of the domain-fence contract types: a family's configuration type
    ``ConfigT``, parsed by :meth:`parse_config` when import-linter validates the
    contract, and its findings recorded as baseline entries by :meth:`violations`."""

    family: ClassVar[str]
    needs_graph: ClassVar[bool] = True  # False: it reads sources, and runs without the graph
    config: ConfigT  # set by validate()

    baseline = fields.StringField(required=False)
    unmatched_baseline_alerting = fields.StringField(required=False)

    def _populate_fields(self) -> None:
        # import-linter stops at field errors before validate() runs; report the
        # core's errors too, so a user fixes every option in one pass.
        try:
            super()._populate_fields()
        except InvalidContractOptions as error:
            errors = dict(error.errors)
            try:
                self.parse_config(self.contract_id, self.name, self.contract_options, current_root())
            except ConfigError as core_error:
                errors = {**core_error.errors, **errors}
            raise InvalidContractOptions(dict(sorted(errors.items()))) from None

    def validate(self) -> None:
        try:
            self.config = self.parse_config(self.contract_id, self.name, self.contract_options, current_root())
        except ConfigError as error:
            raise InvalidContractOptions(error.errors) from None

    @abstractmethod
    def parse_config(self, contract: str, name: str, options: Mapping[str, Any], root: Path) -> ConfigT:
        """The family's configuration, or a ConfigError listing every bad option."""

    @abstractmethod
    def violations(self, graph: ImportGraph | None) -> list[BaselineEntry]:
        """The baseline entries that make this contract pass (``graph`` is None when
        :attr:`needs_graph` is False)."""

    @property
    def contract_id(self) -> str:
        return str(self.contract_options.get("id") or self.name)

    @property
    def root_packages(self) -> list[str]:
        return list(self.session_options["root_packages"])

    def project_index(self) -> ProjectIndex:
        """The run's shared index when one is set for this root, else a fresh one."""
        index = shared_index.get()
        if index is None or index.root != current_root():
            index = ProjectIndex.build(current_root(), self.root_packages, cache_dir=fence_cache_dir(current_root()))
        return index

    def load_baseline(self) -> Baseline:
        try:
            return load_baseline(self.config.baseline.path)
        except BaselineError as error:
            raise UnusableBaseline(str(error)) from None

    def ratchet_check(self, findings: list[Finding], metadata: dict[str, Any] | None = None) -> ContractCheck:
        """Split findings by the baseline into a ContractCheck with JSON-able metadata."""
        recorded = self.load_baseline().fingerprints(self.contract_id)
        ratchet = apply_baseline(findings, recorded)
        # A file that cannot be analysed may hide anything: no baseline vouches for it.
        unanalysable = [f for f in ratchet.baselined if f.code == UNANALYSABLE]
        new = sorted([*ratchet.new, *unanalysable])
        baselined = [f for f in ratchet.baselined if f.code != UNANALYSABLE]
        return self.ratchet_result(new, baselined, ratchet.stale, metadata or {})

    def ratchet_result(
        self, new: Sequence[Finding], baselined: Sequence[Finding], stale: Iterable[str], metadata: dict[str, Any]
    ) -> ContractCheck:
        stale_level = self.config.baseline.stale
        warnings = [stale_message(f) for f in stale] if stale_level == "warn" else []
        failing_stale = list(stale) if stale_level == "error" else []
        metadata.update(
            findings=[finding_to_dict(f) for f in new],
            baselined=[finding_to_dict(f) for f in baselined],
            stale=failing_stale,
        )
        return ContractCheck(kept=not new and not failing_stale, warnings=warnings, metadata=metadata)

    def render_broken_contract(self, check: ContractCheck) -> None:
        for finding in check.metadata.get("findings", []):
            _print_line(format_finding(finding))
            for line in finding.get("details", []):
                _print_line("    " + line)
        for fingerprint in check.metadata.get("stale", []):
            _print_line(stale_message(fingerprint))
        output.new_line()


UNANALYSABLE = "DOM001"


def _print_line(text: str) -> None:
    # Unwrapped and without markup: a finding stays one greppable `path:line:col:` line,
    # and brackets in messages are not read as rich styles.
    output.console.print(text, style="red", soft_wrap=True, markup=False, highlight=False)


def stale_message(fingerprint: str) -> str:
    return "DOM002 " + get_rule("DOM002").format(fingerprint=fingerprint)


def finding_to_dict(finding: Finding) -> dict[str, Any]:
    return {
        "path": finding.path,
        "line": finding.line,
        "col": finding.col,
        "code": finding.code,
        "message": finding.message,
        "symbol": finding.symbol,
        "fingerprint": finding.fingerprint,
        "contract": finding.contract,
        "details": list(finding.details),
        "end_line": finding.end_line,
        "end_col": finding.end_col,
    }


def finding_from_dict(data: dict[str, Any]) -> Finding:
    fields_ = {k: data[k] for k in ("path", "line", "col", "code", "message", "symbol", "fingerprint", "contract")}
    return Finding(
        **fields_,
        details=tuple(data.get("details", ())),
        end_line=int(data.get("end_line", 0)),
        end_col=int(data.get("end_col", 0)),
    )


def format_finding(data: dict[str, Any]) -> str:
    return f"{data['path']}:{data['line']}:{data['col'] + 1}: {data['code']} {data['message']}"


__all__ = ["BaselineError", "FenceContract", "current_root", "project_root", "shared_index"]
