"""SARIF 2.1.0 for code scanning (GitHub uploads it with ``github/codeql-action/upload-sarif``).

Shaped for GitHub's supported subset, which ignores ``suppressions``, ``baselineState``
and ``uriBaseId``:

- Only what fails is reported: new findings, stale baseline entries and (with
  ``--ratchet-since``) the entries added since the revision (DOM003). Baselined
  findings would otherwise become open alerts on the first upload. ``--verbose`` keeps
  them, marked ``baselineState: unchanged`` with an external suppression (the baseline
  file), for consumers that honour those.
- ``artifactLocation.uri`` is relative to the top of the git checkout (the project
  root without git) and percent-encoded, so it is right when the configuration sits in
  a subdirectory; ``uriBaseId`` names that same directory for other consumers.
- Columns are UTF-16 code units (``columnKind``), converted from the findings'
  characters with the source line; a region ends where the offending token ends (found
  on the line when the finding does not say), or, for a finding about a line (DOM001,
  a baseline entry's DOM002 and DOM003), covers it from column 1 as the other formats
  say.

Rules come from the registry with their documentation; each result carries our
fingerprint, qualified by its contract, in ``partialFingerprints``.
"""

from __future__ import annotations

import json
import posixpath
import re
from importlib import metadata
from pathlib import Path
from typing import Any
from urllib.parse import quote  # a relative URI reference: ',', ':', '%' ... percent-encoded

from domain_fence import __version__
from domain_fence.core.model.findings import Finding
from domain_fence.core.model.fingerprints import ADDED, STALE, UNANALYSABLE
from domain_fence.core.model.report import Report
from domain_fence.core.model.ruledocs import anchor, rule_markdown
from domain_fence.core.model.rules import RULES, Rule
from domain_fence.core.model.tokens import token_end
from domain_fence.core.source.reading import Unreadable, decode
from domain_fence.integrations.gitrepo import repository_root

from .options import RenderOptions

# Findings about a whole line (a file's, a baseline entry's), not a token of it.
LINE_CODES = (UNANALYSABLE, STALE, ADDED)

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
ROOT_ID = "SRCROOT"
FINGERPRINT_KEY = "domainFence/v1"
COLUMN_KIND = "utf16CodeUnits"
LINE_BREAK = re.compile(r"\r\n|\r|\n")  # the line ends Python counts (str.splitlines knows more)


def render(report: Report, options: RenderOptions) -> str:
    root = Path(report.root)
    top = repository_root(root) if root.is_dir() else None
    return json.dumps(document(report, options, top or root), indent=2, ensure_ascii=False) + "\n"


def document(report: Report, options: RenderOptions, top: Path) -> dict[str, Any]:
    """The SARIF log of ``report``, its paths relative to ``top``."""
    rule_index = {code: index for index, code in enumerate(RULES)}
    locate = Locator(Path(report.root), top)
    # A finding several contracts report alike is one result (one alert), as elsewhere.
    results = [result(f, rule_index, "new", locate) for f in report.failing]
    # A baseline entry added since --ratchet-since's revision: a DOM003 at its line.
    results += [result(f, rule_index, "new", locate) for f in report.added]
    for contract in report.contracts:
        if options.verbose:
            results += [
                suppressed(result(f, rule_index, "unchanged", locate), contract.baseline) for f in contract.baselined
            ]
    # What breaks a contract without being a finding (no rule, no line) is a notification
    # on the configuration file; the exit status says the contract is broken.
    configuration = [
        {"physicalLocation": {"artifactLocation": {"uri": locate.uri(report.config), "uriBaseId": ROOT_ID}}}
    ]
    notifications = [
        {"level": "error", "message": {"text": f"{contract.id}: {failure}"}, "locations": configuration}
        for contract in report.contracts
        for failure in contract.failures
    ]
    notifications += [
        {"level": "warning", "message": {"text": f"{contract.id}: {warning}"}}
        for contract in report.contracts
        for warning in contract.warnings
    ]
    urls = project_urls()
    driver: dict[str, Any] = {"name": "domain-fence", "version": __version__, "semanticVersion": __version__}
    if "homepage" in urls:
        driver["informationUri"] = urls["homepage"]
    driver["rules"] = [rule(r, urls.get("documentation") or urls.get("homepage")) for r in RULES.values()]
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": driver},
                "originalUriBaseIds": {ROOT_ID: {"uri": directory_uri(top)}},
                "columnKind": COLUMN_KIND,
                "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": notifications}],
                "results": results,
            }
        ],
    }


def rule(r: Rule, documentation: str | None) -> dict[str, Any]:
    described: dict[str, Any] = {
        "id": r.code,
        "name": r.name,
        "shortDescription": {"text": r.summary},
        "fullDescription": {"text": r.rationale},
        "help": {"text": f"{r.remedy}\n\nExample:\n{r.example}", "markdown": rule_markdown(r, heading="####")},
        "defaultConfiguration": {"level": "error", "enabled": True},
        "properties": {"tags": [r.family]},
    }
    if documentation:
        described["helpUri"] = f"{documentation.split('#')[0]}#{anchor(r)}"
    return described


def result(finding: Finding, rule_index: dict[str, int], state: str, locate: Locator) -> dict[str, Any]:
    message = finding.message
    if finding.details:
        message += "\n" + "\n".join(finding.details)
    return {
        "ruleId": finding.code,
        "ruleIndex": rule_index[finding.code],
        "level": "error",
        "message": {"text": message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": locate.uri(finding.path), "uriBaseId": ROOT_ID},
                    "region": locate.region(finding),
                }
            }
        ],
        "partialFingerprints": {FINGERPRINT_KEY: f"{finding.contract}/{finding.fingerprint}"},
        "baselineState": state,
        "properties": {"contract": finding.contract, "symbol": finding.symbol},
    }


def suppressed(result: dict[str, Any], baseline: str) -> dict[str, Any]:
    result["suppressions"] = [{"kind": "external", "justification": f"recorded in {baseline or 'the baseline'}"}]
    return result


class Locator:
    """Paths relative to the checkout's top, and regions counted in UTF-16 code units
    on the lines of each file (read once)."""

    def __init__(self, root: Path, top: Path) -> None:
        self.root = root
        resolved, top = root.resolve(), top.resolve()
        self.prefix = resolved.relative_to(top).as_posix() + "/" if resolved.is_relative_to(top) else ""
        self.prefix = self.prefix.removeprefix("./")
        self._lines: dict[str, list[str] | None] = {}

    def uri(self, path: str) -> str:
        return quote(posixpath.normpath(self.prefix + path), safe="/")  # a baseline may be ``../x``

    def region(self, finding: Finding) -> dict[str, int]:
        start_line = max(finding.line, 1)
        text = self.line(finding.path, start_line)
        if text is None:  # columns unknown: better none than wrong ones
            return {"startLine": start_line}
        start = utf16_column(text, finding.col)
        known_end = finding.end_line > start_line or (finding.end_line == start_line and finding.end_col > finding.col)
        if known_end:
            end_text = self.line(finding.path, finding.end_line)
            if end_text is not None:
                end = utf16_column(end_text, finding.end_col)
                return {
                    "startLine": start_line,
                    "startColumn": start + 1,
                    "endLine": finding.end_line,
                    "endColumn": end + 1,
                }
        if finding.code in LINE_CODES:
            # About a line (a file that cannot be read, a baseline entry): from the finding's
            # column (the line's start, as every other format says) to the end of its text.
            end = max(start, utf16_length(text.rstrip()))
        else:  # the token there, as the editor shows it: a name, a definition, a string
            end = start + utf16_length(text[finding.col : token_end(text, finding.col)])
        return {"startLine": start_line, "startColumn": start + 1, "endLine": start_line, "endColumn": end + 1}

    def line(self, path: str, number: int) -> str | None:
        if path not in self._lines:
            self._lines[path] = read_lines(self.root / path)
        lines = self._lines[path]
        return lines[number - 1] if lines is not None and 0 < number <= len(lines) else None


def read_lines(path: Path) -> list[str] | None:
    try:
        text = decode(path.read_bytes())
    except OSError:
        return None
    return None if isinstance(text, Unreadable) else LINE_BREAK.split(text)


def utf16_column(text: str, column: int) -> int:
    """The 0-based UTF-16 column of the character ``column`` of the line ``text``."""
    return utf16_length(text[:column])


def utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def directory_uri(directory: Path) -> str:
    uri = directory.resolve().as_uri()
    return uri if uri.endswith("/") else uri + "/"


def project_urls() -> dict[str, str]:
    """The package's project URLs by lowercase label (``homepage``, ``documentation``)."""
    try:
        described = metadata.metadata("domain-fence")
    except metadata.PackageNotFoundError:
        return {}
    entries = described.get_all("Project-URL") or []
    home = next(iter(described.get_all("Home-page") or []), None)  # indexing an absent key is deprecated
    urls = {label.strip().lower(): url.strip() for label, _, url in (entry.partition(",") for entry in entries)}
    if home and "homepage" not in urls:
        urls["homepage"] = home
    return {label: url for label, url in urls.items() if url.startswith("https://")}
