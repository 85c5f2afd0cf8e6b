"""Determinism: two runs, and runs under different ``PYTHONHASHSEED`` values, give
byte-identical output in every format, for clean, violating and half-broken projects,
and so do ``lint-imports`` (our contracts' part of its report), flake8 and the
baseline file. (tests/cli covers the leaky fixture's reports the same way.)

Each run is one subprocess (the seed is fixed at interpreter start) that runs every
front end in-process over copies of the projects and prints what each wrote.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from reliability_support import project

VIOLATIONS = {
    "app/runtime/leak.py": "from app.experiment import setup\nfrom app.runtime import helper\n",
    "app/runtime/helper.py": "from app.experiment.setup import init_telemetry\n",
    "app/runtime/stats.py": (
        "from app.runtime.events import Event\n\n\nclass EpisodeStats(Event):\n"
        "    episode: int\n    terminal_state: str\n    kind = 'post_episode'\n\n\n"
        "def init_telemetry():\n    return EpisodeStats(episode=1, epoch=2)\n"
    ),
    "app/experiment/runner.py": "from app.runtime import leak, stats\n",
}
BASELINE = (
    '{"format": "domain-fence-baseline", "version": 1, "entries": ['
    '{"contract": "boundary", "fingerprint": "boundary:app.runtime.helper->app.experiment.setup"},'
    '{"contract": "vocabulary", "fingerprint": "DOM101:app.runtime.gone:Gone.episode"}]}'
)

DRIVER = r"""
import contextlib, json, shutil, sys
from pathlib import Path
from click.testing import CliRunner
from domain_fence.integrations.cli import main
from flake8.main.application import Application
from importlinter.cli import lint_imports_command

FORMATS = ("text", "json", "sarif", "github", "markdown")
outputs = {}
for root in map(Path, sys.argv[1:]):
    name = root.name
    with contextlib.chdir(root):
        for format_ in FORMATS:
            result = CliRunner().invoke(main, ["check", "--verbose", "--format", format_])
            outputs[f"{name} check {format_}"] = [result.exit_code, result.stdout, result.stderr]
        linted = CliRunner().invoke(lint_imports_command, ["--no-cache"])
        # Ours only: import-linter's own text for built-in contracts (the layers contract,
        # reported last) varies between runs.
        report = linted.stdout
        ours = report[report.find("Broken contracts"):report.find("Experiment sits above the runtime\n---")]
        outputs[f"{name} lint-imports"] = [linted.exit_code, ours]
        application = Application()
        application.run(["--select", "DOM", "--jobs", "1", "--output-file", "../flake8.txt", "app"])
        outputs[f"{name} flake8"] = [application.result_count, Path("../flake8.txt").read_text()]
    copy = root.parent / f"{name}-baseline"
    shutil.copytree(root, copy)
    with contextlib.chdir(copy):
        result = CliRunner().invoke(main, ["baseline"])
    baseline = copy / ".domain-fence-baseline.json"
    outputs[f"{name} baseline"] = [result.exit_code, result.stdout, baseline.read_text() if baseline.exists() else None]
print(json.dumps(outputs, sort_keys=True))
"""


def run_driver(roots: list[Path], seed: str, workdir: Path) -> dict:
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GITHUB_WORKSPACE")}
    environment["PYTHONHASHSEED"] = seed
    run = workdir / f"run-{len(list(workdir.iterdir()))}"
    copies = [run / root.name for root in roots]
    for root, copy in zip(roots, copies, strict=True):  # a fresh copy per run: nothing cached from the last
        shutil.copytree(root, copy)
    completed = subprocess.run(
        [sys.executable, "-c", DRIVER, *map(str, copies)], env=environment, capture_output=True, text=True, timeout=300
    )
    assert completed.returncode == 0, completed.stderr
    # Absolute paths differ between copies (the SARIF/JSON reports name the root).
    return json.loads(completed.stdout.replace(str(run), "<RUN>"))


def test_every_front_end_is_byte_identical_across_runs_and_hash_seeds(tmp_path):
    clean = project(tmp_path / "clean")
    violating = project(tmp_path / "violating", {**VIOLATIONS, ".domain-fence-baseline.json": BASELINE})
    broken = project(tmp_path / "broken", {**VIOLATIONS, "app/runtime/broken.py": "def broken(:\n"})
    for root, name in ((clean, "clean"), (violating, "violating"), (broken, "broken")):
        root.rename(root.parent / name)
    roots = [tmp_path / "clean" / "clean", tmp_path / "violating" / "violating", tmp_path / "broken" / "broken"]
    workdir = tmp_path / "runs"
    workdir.mkdir()
    runs = [run_driver(roots, seed, workdir) for seed in ("0", "0", "1", "random")]
    first = runs[0]
    for other in runs[1:]:
        assert other == first
    # The runs did what they should: clean passes, the others fail with findings.
    assert first["clean check text"][0] == 0 and first["violating check text"][0] == 1
    assert first["broken check text"][0] == 1 and "DOM001 skipped: syntax error" in first["broken check text"][1]
    assert first["violating flake8"][0] > 0 and "DOM301" in first["violating flake8"][1]
    assert first["violating lint-imports"][0] == 1 and "DOM101" in first["violating lint-imports"][1]
    assert "boundary:app.runtime.leak->app.experiment.setup" in first["violating baseline"][2]
