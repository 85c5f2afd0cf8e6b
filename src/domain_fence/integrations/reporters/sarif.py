"""SARIF 2.1.0 for code scanning (GitHub uploads it with ``github/codeql-action/upload-sarif``).

Rules come from the registry with their documentation. Each result carries our
fingerprint, qualified by its contract, in ``partialFingerprints``; a baselined finding is reported as
``baselineState: unchanged`` with an external suppression (the baseline file), a new
one as ``new``. Locations are relative to the project root (``uriBaseId``).
"""

from __future__ import annotations

import json
from pathlib import PurePath
from typing import Any
from urllib.parse import quote  # a relative URI reference: ',', ':', '%' ... percent-encoded

from domain_fence import __version__
from domain_fence.core.findings import Finding
from domain_fence.core.report import Report
from domain_fence.core.ruledocs import rule_markdown
from domain_fence.core.rules import RULES, Rule

from .options import RenderOptions

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
ROOT_ID = "PROJECTROOT"
FINGERPRINT_KEY = "domainFence/v1"


def render(report: Report, options: RenderOptions) -> str:
    return json.dumps(document(report), indent=2, ensure_ascii=False) + "\n"


def document(report: Report) -> dict[str, Any]:
    rule_index = {code: index for index, code in enumerate(RULES)}
    results = []
    for contract in report.contracts:
        results += [result(f, rule_index, "new") for f in contract.failing]
        results += [suppressed(result(f, rule_index, "unchanged"), contract.baseline) for f in contract.baselined]
    notifications = [
        {"level": "warning", "message": {"text": f"{contract.id}: {warning}"}}
        for contract in report.contracts
        for warning in contract.warnings
    ]
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "domain-fence",
                        "version": __version__,
                        "rules": [rule(r) for r in RULES.values()],
                    }
                },
                "originalUriBaseIds": {ROOT_ID: {"uri": root_uri(report.root)}},
                "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": notifications}],
                "results": results,
            }
        ],
    }


def rule(r: Rule) -> dict[str, Any]:
    return {
        "id": r.code,
        "name": r.name,
        "shortDescription": {"text": r.summary},
        "fullDescription": {"text": r.rationale},
        "help": {"text": f"{r.remedy}\n\nExample:\n{r.example}", "markdown": rule_markdown(r, heading="####")},
        "defaultConfiguration": {"level": "error", "enabled": True},
        "properties": {"tags": [r.family]},
    }


def result(finding: Finding, rule_index: dict[str, int], state: str) -> dict[str, Any]:
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
                    "artifactLocation": {"uri": quote(finding.path), "uriBaseId": ROOT_ID},
                    "region": {"startLine": max(finding.line, 1), "startColumn": finding.col + 1},
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


def root_uri(root: str) -> str:
    uri = PurePath(root).as_uri()
    return uri if uri.endswith("/") else uri + "/"
