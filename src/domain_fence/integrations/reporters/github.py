"""GitHub Actions workflow commands: each failing finding becomes an ``::error``
annotation on its line, each failure that is no finding (an ``ignore_imports`` entry
matching nothing, a ``require_match`` pattern) an ``::error`` on the configuration file,
each warning a ``::warning``; a summary line ends the log. With ``--ratchet-since``,
each baseline entry added since the revision comes first, an ``::error`` on its line
of the baseline, with a line saying how many.

Escaping follows GitHub's runner: in the message ``%``, CR and LF are percent-encoded;
in property values ``:`` and ``,`` are too.
"""

from __future__ import annotations

import posixpath
from pathlib import PurePosixPath

from domain_fence.core.model.findings import Finding
from domain_fence.core.model.report import Report

from .options import RenderOptions


def render(report: Report, options: RenderOptions) -> str:
    prefix = workspace_prefix(report.root, options.workspace)
    lines = ratchet_lines(report, prefix)
    lines += [annotation("error", finding, prefix) for finding in report.failing]
    configuration = escape_property(prefix + report.config)
    lines += [
        f"::error file={configuration},title={escape_property(contract.id)}::{escape_data(failure)}"
        for contract in report.contracts
        for failure in contract.failures
    ]
    lines += [
        f"::warning title={escape_property(contract.id)}::{escape_data(warning)}"
        for contract in report.contracts
        for warning in contract.warnings
    ]
    if options.verbose:
        lines += [
            annotation("notice", finding, prefix, " (baselined)")
            for contract in report.contracts
            for finding in contract.baselined
        ]
    if not options.quiet:
        lines.append(f"domain-fence: {report.summary_line()}")
    return "".join(line + "\n" for line in lines)


def ratchet_lines(report: Report, prefix: str) -> list[str]:
    """An ``::error`` on each entry added since the ratchet's revision, then how many."""
    if report.ratchet is None or not report.ratchet.added:
        return []
    lines = [
        f"::error file={escape_property(prefix + f.path)},line={f.line},title=baseline::{escape_data(f.message)}"
        for f in report.ratchet.added
    ]
    return [*lines, report.ratchet.closing_line()]


def annotation(level: str, finding: Finding, prefix: str, suffix: str = "") -> str:
    message = finding.message + suffix
    if finding.details:
        message += "\n" + "\n".join(finding.details)
    properties = {
        "file": posixpath.normpath(prefix + finding.path),  # a baseline may be ``../x``
        "line": str(finding.line),
        "col": str(finding.col + 1),
        "title": finding.code,
    }
    rendered = ",".join(f"{key}={escape_property(value)}" for key, value in properties.items())
    return f"::{level} {rendered}::{escape_data(message)}"


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workspace_prefix(root: str, workspace: str | None) -> str:
    """The project root's place in the checkout (``sub/dir/``), or '' at its top."""
    if not workspace:
        return ""
    root_path, workspace_path = PurePosixPath(root), PurePosixPath(workspace)
    if root_path == workspace_path or not root_path.is_relative_to(workspace_path):
        return ""
    return root_path.relative_to(workspace_path).as_posix() + "/"
