"""Rule documentation rendered from the registry, for ``domain-fence explain``, the
README's rule reference and SARIF rule help: one source, so they cannot drift apart."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable

from domain_fence.core.model.rules import RETIRED, RULES, Rule

START_MARKER = "<!-- rules:start -->"
END_MARKER = "<!-- rules:end -->"
GENERATOR = "scripts/generate_rule_docs.py"

CODE = re.compile(r"\bDOM\d{3}\b")


def missing_docs(rule: Rule) -> list[str]:
    """The documentation fields ``rule`` leaves empty."""
    fields = ("name", "message", "summary", "rationale", "remedy", "example")
    return [name for name in fields if not str(getattr(rule, name)).strip()]


def explain(rule: Rule, width: int = 88) -> str:
    """Plain text for a terminal."""
    example = "\n".join("    " + line for line in rule.example.splitlines())
    lines = [
        f"{rule.code} {rule.name} ({rule.family})",
        "",
        textwrap.fill(rule.summary, width),
        "",
        textwrap.fill("Why: " + rule.rationale, width),
        "",
        textwrap.fill("Fix: " + rule.remedy, width),
        "",
        "Example:",
        example,
        "",
        f"Message: {rule.code} {rule.message}",
    ]
    return "\n".join(lines) + "\n"


def anchor(rule: Rule) -> str:
    """The GitHub heading anchor of the rule's section."""
    return f"{rule.code}-{rule.name}".lower()


def rule_markdown(rule: Rule, heading: str = "###") -> str:
    return "\n".join(
        [
            f"{heading} {rule.code} {rule.name}",
            "",
            f"*Family: {rule.family}.* {rule.summary}",
            "",
            f"**Why.** {rule.rationale}",
            "",
            f"**Fix.** {rule.remedy}",
            "",
            "```python",
            rule.example,
            "```",
            "",
            f"Message: `{rule.code} {rule.message}`",
        ]
    )


def reference(rules: Iterable[Rule] | None = None, retired: dict[str, str] | None = None) -> str:
    """The README's rule reference, markers included."""
    rules = list(RULES.values() if rules is None else rules)
    retired = RETIRED if retired is None else retired
    parts = [
        START_MARKER,
        f"<!-- generated from src/domain_fence/core/model/rules.py by {GENERATOR}; do not edit by hand -->",
        "",
        "| code | name | family | what it flags |",
        "|---|---|---|---|",
        *(f"| [{r.code}](#{anchor(r)}) | {r.name} | {r.family} | {r.summary} |" for r in rules),
        "",
    ]
    for rule in rules:
        parts += [rule_markdown(rule), ""]
    if retired:
        parts += ["Retired codes, never reused:", ""]
        parts += [f"- {code}: {why}" for code, why in sorted(retired.items())]
        parts.append("")
    parts.append(END_MARKER)
    return "\n".join(parts)


class MarkersMissing(ValueError):
    pass


def replace_reference(document: str, section: str | None = None) -> str:
    """``document`` with the text between the markers (inclusive) replaced."""
    start, end = document.find(START_MARKER), document.find(END_MARKER)
    if start < 0 or end < start:
        raise MarkersMissing(f"no {START_MARKER} ... {END_MARKER} section")
    return document[:start] + (section or reference()) + document[end + len(END_MARKER) :]


def unknown_codes(document: str) -> list[str]:
    """DOM codes named in ``document`` that are neither rules nor retired."""
    return sorted({code for code in CODE.findall(document) if code not in RULES and code not in RETIRED})
