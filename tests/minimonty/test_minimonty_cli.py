"""``python -m minimonty.experiment`` end to end, in a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "minimonty.experiment", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def test_writes_stats_to_output(tmp_path: Path) -> None:
    output = tmp_path / "nested.jsonl"
    result = run_cli("--output", str(output), cwd=tmp_path)

    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.splitlines() == [f"5 episodes: 2 correct, 1 confused, 1 no_match, 1 time_out -> {output}"]
    records = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    assert [r["outcome"] for r in records] == [
        "correct",
        "correct",
        "confused",
        "no_match",
        "time_out",
    ]


def test_default_output_in_cwd(tmp_path: Path) -> None:
    result = run_cli(cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert len((tmp_path / "episode_stats.jsonl").read_text(encoding="utf-8").splitlines()) == 5
