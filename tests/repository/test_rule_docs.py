"""Rule documentation has one source, the registry: the README's rule reference and
`domain-fence explain` are rendered from it and must not drift."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from domain_fence.core.model.ruledocs import END_MARKER, START_MARKER, explain, missing_docs, reference, unknown_codes
from domain_fence.core.model.rules import RETIRED, RULES

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
GENERATOR = REPO / "scripts" / "generate_rule_docs.py"


@pytest.mark.parametrize("code", sorted(RULES))
def test_every_rule_is_documented(code):
    assert missing_docs(RULES[code]) == []


def test_retired_codes_are_not_reused():
    assert not set(RETIRED) & set(RULES)


def test_readme_rule_reference_is_generated_from_the_registry():
    text = README.read_text(encoding="utf-8")
    assert START_MARKER in text and END_MARKER in text, f"README.md needs a {START_MARKER} ... {END_MARKER} section"
    section = text[text.index(START_MARKER) : text.index(END_MARKER) + len(END_MARKER)]
    assert section == reference(), "README.md's rule reference is stale: run python scripts/generate_rule_docs.py"


def test_readme_names_only_codes_that_exist():
    assert unknown_codes(README.read_text(encoding="utf-8")) == []


def test_reference_documents_every_rule():
    text = reference()
    for rule in RULES.values():
        assert f"### {rule.code} {rule.name}\n" in text
        assert rule.rationale in text and rule.remedy in text


def run_generator(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(GENERATOR), *args], capture_output=True, text=True, timeout=60)


def test_generator_rewrites_only_the_marked_section(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(f"# Title\n\n{START_MARKER}\nold text\n{END_MARKER}\n\nAfter.\n")
    assert run_generator("--check", "--readme", str(readme)).returncode == 1
    result = run_generator("--readme", str(readme))
    assert result.returncode == 0, result.stderr
    assert readme.read_text() == f"# Title\n\n{reference()}\n\nAfter.\n"
    assert run_generator("--check", "--readme", str(readme)).returncode == 0


def test_generator_refuses_a_readme_without_markers_or_naming_unknown_codes(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# Title\n")
    assert run_generator("--readme", str(readme)).returncode == 2
    readme.write_text(f"See DOM999.\n{START_MARKER}\n{END_MARKER}\n")
    result = run_generator("--readme", str(readme))
    assert result.returncode == 1 and "DOM999" in result.stderr


@pytest.mark.parametrize("code", sorted(RULES))
def test_explain_prints_the_registry_text(code):
    from click.testing import CliRunner

    from domain_fence.integrations.cli import main

    result = CliRunner().invoke(main, ["explain", code.lower()])
    assert result.exit_code == 0
    assert result.stdout == explain(RULES[code])
