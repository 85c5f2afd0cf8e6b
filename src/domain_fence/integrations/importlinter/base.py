"""What our contract types share: options generated from their family, typed
configuration, and the engine behind ``check``.

A contract type is import-linter's face of one core family: its field declarations
are generated from the family's options, ``validate`` parses them with the family,
``check`` asks the engine and ``render_broken_contract`` prints the engine's findings.
"""

from __future__ import annotations

import contextvars
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from importlinter import Contract, ContractCheck, fields, output
from importlinter.domain.contract import InvalidContractOptions

from domain_fence.core.engine import ContractSpec, Engine, stale_message
from domain_fence.core.engine.baseline import BaselineEntry, BaselineError, entry_of
from domain_fence.core.families import Family
from domain_fence.core.families.base import BASELINE_OPTIONS
from domain_fence.core.families.config import ConfigError
from domain_fence.core.index.collector import kept_until_exit
from domain_fence.core.model.findings import Finding
from domain_fence.core.model.report import ContractResult
from domain_fence.core.source.modules import max_file_size_problem

if TYPE_CHECKING:
    from grimp import ImportGraph

# The directory relative paths in the configuration are resolved against. lint-imports
# only reads configuration from the current directory, so that is the default; our
# own front ends set it to the configuration file's directory.
project_root: contextvars.ContextVar[Path | None] = contextvars.ContextVar("project_root", default=None)


def current_root() -> Path:
    return (project_root.get() or Path.cwd()).resolve()


class UnusableBaseline(BaselineError, ValueError):
    """A BaselineError raised while checking: import-linter reports a ValueError as a
    contract's failure, our front ends report it as the baseline's one-line error."""


class RawOption(fields.Field):  # type: ignore[type-arg]
    """An option passed through as written: the family validates it, with every other
    option, and reports all problems at once."""

    def parse(self, raw_data: str | list[str]) -> str | list[str]:
        return raw_data


class FenceContract(Contract):
    """Base of the domain-fence contract types: one per core family."""

    family: ClassVar[Family]
    config: Any  # the family's typed configuration, set by validate()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        family = cls.__dict__.get("family")
        if family is None:
            return
        for option in (*family.options, *BASELINE_OPTIONS):
            if not isinstance(getattr(cls, option.name, None), fields.Field):
                # Required options are checked by the family, with the others.
                setattr(cls, option.name, RawOption(required=False))

    def _populate_fields(self) -> None:
        # import-linter stops at field errors before validate() runs; report the
        # family's errors too, so a user fixes every option in one pass.
        try:
            super()._populate_fields()
        except InvalidContractOptions as error:
            errors = dict(error.errors)
            try:
                self.parse_config()
            except ConfigError as core_error:
                errors = {**core_error.errors, **errors}
            raise InvalidContractOptions(dict(sorted(errors.items()))) from None

    def validate(self) -> None:
        try:
            self.config = self.parse_config()
        except ConfigError as error:
            raise InvalidContractOptions(error.errors) from None

    def parse_config(self) -> Any:
        return self.family.parse(self.contract_id, self.name, self.contract_options, current_root())

    @property
    def contract_id(self) -> str:
        return str(self.contract_options.get("id") or self.name)

    @property
    def root_packages(self) -> list[str]:
        return list(self.session_options["root_packages"])

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        """lint-imports' entry: the engine's result for this contract (on ``graph``,
        which a contract reading only sources does not need)."""
        from .session import lint_imports_engine

        with kept_until_exit():
            engine, spec = lint_imports_engine(self, graph)
            size_problem = max_file_size_problem()  # refused as the configuration's problems are
            problems = [*([size_problem] if size_problem else []), *self.problems(engine, spec, graph)]
            if problems:
                return ContractCheck(kept=False, warnings=[], metadata={"problems": problems})
            try:
                result = engine.check_contract(spec)
            except BaselineError as error:
                raise UnusableBaseline(str(error)) from None
            finally:
                engine.save()
        return contract_check(result)

    def problems(self, engine: Engine, spec: ContractSpec, graph: ImportGraph) -> list[str]:
        """What the configuration names that the project lacks (lint-imports has found
        the root packages already: it built the graph from them)."""
        return engine.contract_problems(spec)

    def violations(self, graph: ImportGraph | None) -> list[BaselineEntry]:
        """The entries ``domain-fence baseline`` would record for this contract."""
        from .session import lint_imports_engine

        engine, spec = lint_imports_engine(self, graph)
        entries = {entry_of(spec.id, finding) for finding in engine.current(spec)}
        return sorted(entries)

    def render_broken_contract(self, check: ContractCheck) -> None:
        for line in broken_lines(check.metadata):
            _print_line(line)
        output.new_line()


def contract_check(result: ContractResult) -> ContractCheck:
    """import-linter's view of a result: kept, warnings, and JSON-able metadata."""
    return ContractCheck(
        kept=result.kept,
        warnings=[_escape_markup(w) for w in result.warnings],
        metadata={
            "findings": [finding_to_dict(f) for f in result.findings],
            "baselined": [finding_to_dict(f) for f in result.baselined],
            "suppressed": [finding_to_dict(f) for f in result.suppressed],
            "stale": [f.symbol for f in result.stale],  # the entries' fingerprints
            "stale_lines": [f.describe() for f in result.stale],  # at the entry, as `check` prints them
            "failures": list(result.failures),
            "baselined_edges": sorted(f.fingerprint for f in result.baselined if f.fingerprint.startswith("boundary:")),
        },
    )


def broken_lines(metadata: dict[str, Any]) -> list[str]:
    """The lines of a broken contract's report, as lint-imports and pytest print them."""
    lines = list(metadata.get("problems", []))
    lines += list(metadata.get("failures", []))
    for finding in metadata.get("findings", []):
        lines.append(format_finding(finding))
        lines += ["    " + line for line in finding.get("details", [])]
    stale = metadata.get("stale_lines") or [stale_message(fingerprint) for fingerprint in metadata.get("stale", [])]
    return lines + list(stale)


def _escape_markup(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def _print_line(text: str) -> None:
    # Unwrapped and without markup: a finding stays one greppable `path:line:col:` line,
    # and brackets in messages are not read as rich styles; nor are emoji codes (a
    # finding at line 100 would print `path💯25:`).
    output.console.print(text, style="red", soft_wrap=True, markup=False, highlight=False, emoji=False)


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
    }


def format_finding(data: dict[str, Any]) -> str:
    return f"{data['path']}:{data['line']}:{data['col'] + 1}: {data['code']} {data['message']}"


__all__ = ["BaselineError", "FenceContract", "RawOption", "current_root", "project_root"]
