"""The benchmark script builds a corpus and writes configurations lint-imports accepts.

Nothing is timed here: speed is measured by running benchmarks/run.py, never in tests.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from support import FIXTURES

RUN = Path(__file__).resolve().parents[2] / "benchmarks" / "run.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(RUN), *args], capture_output=True, text=True, timeout=300)


def test_help_lists_the_options():
    result = run("--help")

    assert result.returncode == 0, result.stderr
    for option in ("--runs", "--corpora", "--quick", "--write-readme", "--dry-run", "--profile"):
        assert option in result.stdout


def test_dry_run_writes_configurations_that_lint_imports_accepts_and_keeps(tmp_path):
    result = run("--dry-run", "--corpora", "a", "--work-dir", str(tmp_path))

    assert result.returncode == 0, result.stdout + result.stderr
    assert "minimonty forbidden.ini: 1 kept, 0 broken" in result.stdout
    assert "minimonty .importlinter:" in result.stdout
    assert "configurations valid" in result.stdout
    root = tmp_path / "corpora" / "minimonty"
    assert (root / "src" / "minimonty" / "frameworks" / "telemetry" / "schemas.py").is_file()
    for name in ("tach.toml", "ruff.toml", "test_boundary_archon.py", "forbidden.ini", ".importlinter"):
        assert (root / name).is_file(), name


def test_unknown_corpus_is_a_usage_error(tmp_path):
    result = run("--dry-run", "--corpora", "z", "--work-dir", str(tmp_path))

    assert result.returncode == 2
    assert "unknown corpus 'z'" in result.stderr


def test_generated_copies_import_their_own_copy_and_leave_the_rest_of_django_alone():
    sys.path.insert(0, str(RUN.parent))
    try:
        from harness.corpora import rename_imports
    finally:
        sys.path.remove(str(RUN.parent))
    source = (
        "import django.http.response as r, os\n"
        "from django import forms, VERSION\n"
        "from django.db.models.fields import (\n    Field,\n    CharField as C,\n)\n"
        "from django.utils.html import escape\n"
        "from .mixins import FieldCacheMixin\n"
    )

    assert rename_imports(source, "c07") == (
        "import corpus.http.c07.response as r, os\n"
        "from corpus.forms import c07 as forms; from django import VERSION\n"
        "from corpus.db.c07.models.fields import Field, CharField as C\n"
        "from django.utils.html import escape\n"
        "from .mixins import FieldCacheMixin\n"
    )


MONTY_SDIST = {  # a sdist of Monty's shape, in miniature: nothing is downloaded
    "src/tbp/monty/__init__.py": "",
    "src/tbp/monty/math.py": "from tbp.monty.frameworks.models import graph\n",
    "src/tbp/monty/frameworks/__init__.py": "",
    "src/tbp/monty/frameworks/models/__init__.py": "from .graph import Graph\n",
    "src/tbp/monty/frameworks/models/graph.py": (
        "from tbp.monty.frameworks.experiments import mode\n"
        "from tbp.monty import math\n"
        "from ..utils import helper\n\n\nclass Graph:\n    episode: int\n"
    ),
    "src/tbp/monty/frameworks/utils/__init__.py": "",
    "src/tbp/monty/frameworks/utils/helper.py": "",
    "src/tbp/monty/frameworks/experiments/__init__.py": "",
    "src/tbp/monty/frameworks/experiments/mode.py": "TRAIN = 1\n",
    "src/tbp/monty/telemetry/__init__.py": "",
    "src/tbp/monty/telemetry/schemas.py": (
        "class TelemetrySchema:\n    kind: str = ''\n\n\nclass Step(TelemetrySchema):\n    episode: int\n"
    ),
}


def test_the_monty_copies_import_their_own_copy_and_keep_the_preset_contracts(tmp_path):
    source = tmp_path / "tbp_monty"
    for name, text in MONTY_SDIST.items():
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text(text)
    sys.path.insert(0, str(RUN.parent))
    try:
        from harness.monty import monty
    finally:
        sys.path.remove(str(RUN.parent))
    corpus = monty(tmp_path / "work", 2, source)
    package = corpus.src / "tbp" / "monty"
    assert (package / "math" / "c02.py").read_text() == "from tbp.monty.frameworks.models.c02 import graph\n"
    assert (package / "frameworks" / "models" / "c01" / "graph.py").read_text().splitlines()[:3] == [
        "from tbp.monty.frameworks.experiments.c01 import mode",
        "from tbp.monty.math import c01 as math",
        "from tbp.monty.frameworks.utils.c01 import helper",
    ]
    # The preset's event base patterns cover the telemetry of every copy.
    assert "tbp.monty.telemetry:*Schema" in corpus.spec.event_bases
    environment = {"PYTHONPATH": str(corpus.src), "PATH": str(Path(sys.executable).parent)}
    for command in (["lint-imports", "forbidden.ini", "--no-cache"], ["domain-fence", "check", "--no-cache"]):
        result = subprocess.run(
            [str(Path(sys.executable).with_name(command[0])), *command[1:]],
            cwd=corpus.root,
            env=environment,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, result.stdout + result.stderr  # the baseline init wrote holds it all


def test_the_floor_script_measures_each_part_of_a_cold_check(tmp_path):
    assert run("--dry-run", "--corpora", "a", "--work-dir", str(tmp_path)).returncode == 0
    floor = subprocess.run(
        [sys.executable, str(RUN.parent / "floor.py"), str(tmp_path / "corpora" / "minimonty")],
        capture_output=True,
        text=True,
        timeout=300,
    )

    assert floor.returncode == 0, floor.stdout + floor.stderr
    lines = floor.stdout.splitlines()
    assert lines[0].startswith("corpus: minimonty, ")
    # the reference codebase's telemetry schemas are events: their files must be parsed
    assert lines[1].startswith("files holding findings (events, event constructions, census): ")
    assert not lines[1].endswith(": 0 (0.00 MB)")
    parts = (
        "start-up and imports",
        "grimp builds the graph",
        "ast.parse of every covered file",
        "floor / lint-imports",
    )
    for part in parts:
        assert any(line.startswith(part) or line.strip().startswith(part) for line in lines), part


def test_the_floor_script_needs_a_built_corpus(tmp_path):
    floor = subprocess.run(
        [sys.executable, str(RUN.parent / "floor.py"), str(tmp_path)], capture_output=True, text=True
    )

    assert floor.returncode == 1
    assert (
        floor.stderr.strip() == f"floor: {tmp_path}: no .importlinter; run benchmarks/run.py first to build the corpora"
    )


def test_the_rule_cost_script_times_a_cold_check_with_and_without_dom105(tmp_path):
    corpus = tmp_path / "derived"
    shutil.copytree(FIXTURES / "vocabulary" / "derived", corpus)
    cost = subprocess.run(
        [sys.executable, str(RUN.parent / "rule_cost.py"), str(corpus), "--pairs", "1", "--no-cache"],
        capture_output=True,
        text=True,
        timeout=300,
    )

    assert cost.returncode == 0, cost.stdout + cost.stderr
    lines = cost.stdout.splitlines()
    assert lines[0] == "derived, check --no-cache, 1 cold pairs"
    assert [line.split(" |")[0] for line in lines[3:]] == [
        "| with DOM105",
        "| flow extraction off",
        "| ratio, pair by pair",
    ]


def test_the_rule_cost_script_needs_a_built_corpus(tmp_path):
    cost = subprocess.run(
        [sys.executable, str(RUN.parent / "rule_cost.py"), str(tmp_path)], capture_output=True, text=True
    )

    assert cost.returncode == 1
    assert (
        cost.stderr.strip()
        == f"rule_cost: {tmp_path}: no .importlinter; run benchmarks/run.py first to build the corpora"
    )
