"""The JSON report, schema ``domain-fence-report`` version 1 (docs/json-schema.md).

Keys are written in a fixed order and every list is sorted, so the same tree gives the
same bytes. Bump ``VERSION`` when a field changes meaning or goes away; adding a field
is compatible.
"""

from __future__ import annotations

import json
from typing import Any

from domain_fence.core.model.census import Census
from domain_fence.core.model.findings import Finding
from domain_fence.core.model.report import ContractResult, Dependency, Report

from .options import RenderOptions

SCHEMA = "domain-fence-report"
VERSION = 1


def render(report: Report, options: RenderOptions) -> str:
    return json.dumps(document(report), indent=2, ensure_ascii=False) + "\n"


def document(report: Report) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "version": VERSION,
        "config": report.config,
        "contracts": [contract(result) for result in report.contracts],
        "ratchet": (
            {"since": report.ratchet.since, "added": [finding(f) for f in report.ratchet.added]}
            if report.ratchet is not None
            else None
        ),
        "summary": report.summary()._asdict(),
    }


def contract(result: ContractResult) -> dict[str, Any]:
    return {
        "id": result.id,
        "name": result.name,
        "type": result.type,
        "kept": result.kept,
        "findings": [finding(f) for f in result.findings],
        "baselined": [finding(f) for f in result.baselined],
        "stale": [finding(f) for f in result.stale],
        "suppressed": [finding(f) for f in result.suppressed],
        "warnings": list(result.warnings),
        "failures": list(result.failures),
        "baseline": result.baseline or None,
        "dependencies": [dependency(d) for d in result.dependencies],
        "domains": (
            {"sources": list(result.domains.sources), "forbidden": list(result.domains.forbidden)}
            if result.domains
            else None
        ),
        "census": census(result.census) if result.census else None,
    }


def census(c: Census) -> dict[str, Any]:
    return {
        "findings": c.findings,
        "modules": [{"module": t.name, "count": t.count} for t in c.modules],
        "words": [{"word": t.name, "count": t.count} for t in c.words],
        "baseline": c.baseline._asdict(),
    }


def finding(f: Finding) -> dict[str, Any]:
    return {
        "path": f.path,
        "line": f.line,
        "column": f.col + 1,
        "code": f.code,
        "message": f.message,
        "symbol": f.symbol,
        "fingerprint": f.fingerprint,
        "contract": f.contract,
        "details": list(f.details),
    }


def dependency(d: Dependency) -> dict[str, Any]:
    return {
        "importer": d.importer,
        "imported": d.imported,
        "chains": [
            [
                {"importer": link.importer, "imported": link.imported, "line_numbers": list(link.line_numbers)}
                for link in chain
            ]
            for chain in d.chains
        ],
    }
