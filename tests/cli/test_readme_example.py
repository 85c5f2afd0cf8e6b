"""The README's configuration example is written for Monty: it must read, and run, on
Monty's tree (tests/fixtures/cli/monty_distilled, tbp-monty 0.55.0 distilled), as a
reader who copies it would run it."""

from __future__ import annotations

import re

from cli_support import REPO, copy_fixture, domain_fence


def readme_example() -> str:
    match = re.search(r"^## Configuration\n.*?^```ini\n(.*?)^```", (REPO / "README.md").read_text(), re.M | re.S)
    assert match, "the Configuration section has no ini example"
    return match[1]


def test_the_readme_example_runs_on_monty(tmp_path):
    monty = copy_fixture("monty_distilled", tmp_path)
    (monty / ".importlinter").write_text(readme_example(), encoding="utf-8")
    result = domain_fence("check", "--quiet", cwd=monty)
    assert (result.returncode, result.stderr) == (1, ""), result.stderr  # findings, not a refusal
    codes = {line.split()[1] for line in result.stdout.splitlines()}
    assert {"DOM301", "DOM201"} <= codes  # the boundary and placement contracts ran
    # What the boundary calls experiment code may define the post-episode handlers.
    assert not [line for line in result.stdout.splitlines() if "DOM201" in line and "/experiments/" in line]
