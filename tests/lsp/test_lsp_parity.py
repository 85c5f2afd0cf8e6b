"""The language server's analysis reports what flake8 reports: the same findings, at
the same lines and columns, with the same noqa comments honoured."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from lsp_support import copy_station

from domain_fence.integrations.lsp.analysis import Analysis

BROKEN = {
    "station/runtime/model.py": (
        "from station.experiment.runner import MODE\n"
        "from station.experiment import runner  # noqa: DOM301\n"
        "from station.runtime.telemetry import Event\n\n\n"
        "class Reading(Event):\n"
        "    value: float\n"
        "    episode: int\n"
        "    ground_episode: str  # noqa\n\n\n"
        "def init_telemetry():\n"
        "    return Reading(episode=1)\n"
    ),
    "station/runtime/journal.py": (
        "from station.runtime.model import Reading\n\n\nclass Entry(Reading):\n    episode_id: int\n"
    ),
}


def test_the_server_and_flake8_report_the_same_lines(tmp_path: Path):
    project = copy_station(tmp_path)
    for name, text in BROKEN.items():
        (project / name).write_text(text)
    flake8 = subprocess.run(
        [str(Path(sys.executable).parent / "flake8"), "--select", "DOM", "station"],
        cwd=project,
        capture_output=True,
        text=True,
    )
    assert flake8.returncode == 1, flake8.stderr
    analysis = Analysis(project / ".importlinter")
    served = sorted(
        f"./{finding.describe()}"
        for path in sorted((project / "station").rglob("*.py"))
        for finding in analysis.findings(path, path.read_text())
    )
    assert served == sorted(f"./{line}" if not line.startswith("./") else line for line in flake8.stdout.splitlines())
    assert {line.split()[1] for line in served} == {"DOM101", "DOM104", "DOM201", "DOM301"}
