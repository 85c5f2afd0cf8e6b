"""The Markdown report's domain graph: runtime and experiment as two subgraphs, only
groups with a crossing drawn (the others named below), new crossings first and apart
from baselined ones, a legend; and the Mermaid it writes accepted by mermaid's own
parser (when node is installed: scripts/install_mermaid.sh puts mermaid beside it)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from domain_fence.core.model.report import ContractResult, Dependency, Domains, Link, Report
from domain_fence.integrations.reporters import render
from domain_fence.integrations.reporters.domain_graph import BASELINED_LINK_STYLE, NEW_LINK_STYLE

RUNTIME = ("m.frameworks.models", "m.frameworks.telemetry", "m.frameworks.sensors", "m.frameworks.utils")
EXPERIMENT = ("m.experiment", "m.frameworks.experiments")


def dependency(importer: str, imported: str, *firsts: str) -> Dependency:
    return Dependency(importer, imported, tuple((Link(first, imported + ".mode", (3,)),) for first in firsts))


def monty_like() -> Report:
    boundary = ContractResult(
        id="runtime-knows-no-experiment",
        name="Runtime does not import experiment code",
        type="boundary",
        kept=False,
        dependencies=(
            dependency(
                "m.frameworks.models", "m.frameworks.experiments", "m.frameworks.models.b", "m.frameworks.models.a"
            ),
            dependency("m.frameworks.telemetry", "m.experiment", "m.frameworks.telemetry.sink"),
        ),
        domains=Domains(RUNTIME, EXPERIMENT),
        baselined_edges=(
            ("m.frameworks.telemetry.emit", "m.experiment.run"),
            ("m.frameworks.telemetry.emit", "m.experiment.seed"),
            ("m.frameworks.models.graph", "m.experiment.mode"),
        ),
    )
    return Report("/p", ".importlinter", (boundary,))


def section(text: str) -> list[str]:
    return text[text.index("### Domains") :].splitlines()


def mermaid_block(text: str) -> str:
    start = text.index("```mermaid\n") + len("```mermaid\n")
    return text[start : text.index("```", start)]


def test_the_domains_are_two_subgraphs_of_the_groups_with_a_crossing():
    graph = mermaid_block(render(monty_like(), "markdown")).splitlines()
    assert graph[:9] == [
        "graph LR",
        '  subgraph runtime_domain["runtime"]',
        '    n1["m.frameworks.models"]',
        '    n2["m.frameworks.telemetry"]',
        "  end",
        '  subgraph experiment_domain["experiment"]',
        '    n3["m.experiment"]',
        '    n4["m.frameworks.experiments"]',
        "  end",
    ]
    assert not any("sensors" in line or "utils" in line for line in graph)


def test_new_crossings_come_first_styled_apart_from_baselined_ones():
    graph = mermaid_block(render(monty_like(), "markdown")).splitlines()
    links = [line for line in graph if "->" in line]
    assert links == [
        '  n1 -->|"2 new"| n4',
        '  n2 -->|"1 new"| n3',
        '  n1 -.->|"1 baselined"| n3',
        '  n2 -.->|"2 baselined"| n3',
    ]
    assert f"  linkStyle 0,1 {NEW_LINK_STYLE}" in graph
    assert f"  linkStyle 2,3 {BASELINED_LINK_STYLE}" in graph
    assert "stroke-dasharray" in BASELINED_LINK_STYLE and "stroke-dasharray" not in NEW_LINK_STYLE


def test_a_legend_the_groups_left_out_and_the_crossings_new_first():
    lines = section(render(monty_like(), "markdown"))
    after = lines[lines.index("```", 3) + 1 :]
    assert after[1].startswith("Legend: **red solid** arrows are new crossing imports")
    assert "Without a crossing, not drawn: `m.frameworks.sensors`, `m.frameworks.utils`." in after
    table = after[after.index("| from (runtime) | to (experiment) | new | baselined | first importer |") :]
    assert table[2:] == [
        "| `m.frameworks.models` | `m.frameworks.experiments` | 2 | 0 | `m.frameworks.models.a` |",
        "| `m.frameworks.telemetry` | `m.experiment` | 1 | 2 | `m.frameworks.telemetry.sink` |",
        "| `m.frameworks.models` | `m.experiment` | 0 | 1 | `m.frameworks.models.graph` |",
    ]


def test_without_any_crossing_no_graph_is_drawn():
    quiet = ContractResult("c", "C", "boundary", True, domains=Domains(RUNTIME, EXPERIMENT))
    text = render(Report("/p", ".importlinter", (quiet,)), "markdown")
    assert "```mermaid" not in text
    assert "No import crosses the domains (`m.experiment`, `m.frameworks.experiments`, " in text


# -- mermaid's own parser -----------------------------------------------------------------

NODE = shutil.which("node")
MERMAID_DIR = Path(os.environ.get("DOMAIN_FENCE_MERMAID_DIR", Path.home() / ".cache" / "domain-fence" / "mermaid"))
# Reads a JSON list of diagrams on stdin; prints for each null (parsed) or the parser's error.
PARSE = """
import { JSDOM } from "jsdom";
const dom = new JSDOM("<!doctype html><html><body></body></html>");
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import("mermaid");
let input = "";
for await (const chunk of process.stdin) input += chunk;
const outcomes = [];
for (const diagram of JSON.parse(input)) {
  try { await mermaid.parse(diagram); outcomes.push(null); }
  catch (error) { outcomes.push(String(error.message).split("\\n")[0]); }
}
console.log(JSON.stringify(outcomes));
"""


def mermaid_parse(diagrams: list[str]) -> list[str | None]:
    if not (MERMAID_DIR / "node_modules" / "mermaid").is_dir():
        pytest.fail(f"mermaid is not installed in {MERMAID_DIR}: run scripts/install_mermaid.sh (needs npm)")
    completed = subprocess.run(
        [str(NODE), "--input-type=module", "-e", PARSE],
        cwd=MERMAID_DIR,
        input=json.dumps(diagrams),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout)


@pytest.mark.slow
@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_mermaid_parses_the_graph_and_rejects_a_broken_one():
    diagram = mermaid_block(render(monty_like(), "markdown"))
    broken = diagram.replace('  n1 -->|"2 new"| n4', '  n1 -->|"2 new"|')
    assert broken != diagram
    assert mermaid_parse([diagram, broken])[0] is None
    assert mermaid_parse([broken])[0] is not None  # the parser does look at what it is given
