"""Run every tool on one corpus: cold series, then warm series.

Runs are interleaved (run 1 of every tool, then run 2 of every tool...) so a burst of
background load on the shared machine hits all tools alike rather than one series.
Cold: the tool's caches are deleted before each run. Warm: caches left by the
previous run; the last cold run is the priming run. A tool that leaves no cache
behind gets no warm series: its warm time is its cold time.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from .corpora import Corpus
from .measure import Sample, Series, run_once
from .tools import Tool, tool_environment


@dataclass(frozen=True)
class Result:
    tool: Tool
    cold: Series
    warm: Series | None  # None: the tool keeps no cache

    @property
    def warm_or_cold(self) -> Series:
        return self.warm or self.cold


def bench_corpus(corpus: Corpus, tools: list[Tool], runs: int, logs: Path) -> dict[str, Result]:
    logs.mkdir(parents=True, exist_ok=True)
    runnable = [t for t in tools if not t.skip]
    cold: dict[str, list[Sample]] = {t.name: [] for t in runnable}
    for index in range(runs):
        for tool in runnable:
            tool.clear_caches(corpus.root)
            cold[tool.name].append(_run(tool, corpus, logs / f"{tool.name}.cold.txt"))
            _progress(corpus, tool, "cold", index, runs, cold[tool.name][-1])
    cached = [t for t in runnable if any((corpus.root / c).exists() for c in t.caches)]
    warm: dict[str, list[Sample]] = {t.name: [] for t in cached}
    for index in range(runs):
        for tool in cached:
            warm[tool.name].append(_run(tool, corpus, logs / f"{tool.name}.warm.txt"))
            _progress(corpus, tool, "warm", index, runs, warm[tool.name][-1])
    return {
        t.name: Result(t, Series(tuple(cold[t.name])), Series(tuple(warm[t.name])) if t.name in warm else None)
        for t in runnable
    }


def _run(tool: Tool, corpus: Corpus, log: Path) -> Sample:
    sample = run_once(tool.command(), corpus.root, tool_environment(corpus, tool), log)
    failure = tool.failure(sample.exit_status, log.read_text(encoding="utf-8", errors="replace"))
    return replace(sample, failure=failure) if failure else sample


def _progress(corpus: Corpus, tool: Tool, mode: str, index: int, runs: int, sample: Sample) -> None:
    print(
        f"  {corpus.name:<12} {tool.name:<19} {mode} {index + 1}/{runs}: "
        f"{sample.wall:7.3f} s  {sample.rss_mb:6.0f} MB  exit {sample.exit_status}"
        + (f"  FAILED: {sample.failure}" if sample.failure else ""),
        flush=True,
    )
