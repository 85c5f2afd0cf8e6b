"""Time one tool run as a whole process: wall time, CPU time and peak RSS.

Peak RSS is ``ru_maxrss`` of the tool's process: the largest resident set of that
process and of any descendant it waited for (the largest single process, not a sum:
for flake8's worker processes it is one worker's or the parent's peak). Linux carries
the high-water mark of the *forking* process across ``exec``, so a tool started
directly from this (large) harness would report at least the harness's own RSS; the
tool is therefore started through GNU time (a few MB), which reports its child's.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Sample:
    wall: float  # seconds
    cpu: float  # user + system seconds, the process and its waited-for children
    rss_mb: float
    exit_status: int
    failure: str | None = None  # set when the run did not do its job


GNU_TIME = Path("/usr/bin/time")


def run_once(argv: list[str], cwd: Path, env: dict[str, str], output: Path) -> Sample:
    rss_file = output.with_name(output.name + ".rss")
    rss_file.unlink(missing_ok=True)
    wrapped = [str(GNU_TIME), "--format", "%M", "--output", str(rss_file), *argv] if GNU_TIME.exists() else argv
    with output.open("wb") as sink:
        start = time.perf_counter()
        process = subprocess.Popen(
            wrapped, cwd=cwd, env=env, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)  # already reaped: tell Popen
    rss_kib = _gnu_time_rss(rss_file) or usage.ru_maxrss  # the fallback includes the harness's RSS
    return Sample(wall, usage.ru_utime + usage.ru_stime, rss_kib / 1024, process.returncode)


def _gnu_time_rss(path: Path) -> int | None:
    """GNU time's %M (KiB); it writes "Command exited with non-zero status" first."""
    try:
        lines = path.read_text().split()
    except OSError:
        return None
    return int(lines[-1]) if lines and lines[-1].isdigit() else None


@dataclass(frozen=True)
class Series:
    samples: tuple[Sample, ...]

    @property
    def wall(self) -> float:
        return statistics.median(s.wall for s in self.samples)

    @property
    def cpu(self) -> float:
        return statistics.median(s.cpu for s in self.samples)

    @property
    def rss_mb(self) -> float:
        return max(s.rss_mb for s in self.samples)

    @property
    def spread(self) -> float:
        """(max - min) / median of the wall times: how noisy the series was."""
        walls = [s.wall for s in self.samples]
        return (max(walls) - min(walls)) / self.wall if self.wall else 0.0

    @property
    def failure(self) -> str | None:
        return next((s.failure for s in self.samples if s.failure), None)

    @property
    def exit_statuses(self) -> tuple[int, ...]:
        return tuple(sorted({s.exit_status for s in self.samples}))
