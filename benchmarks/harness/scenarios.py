"""Where users wait: domain-fence and lint-imports (boundary alone) in the same states
of tree and cache, run by run, on one corpus.

- cold: no cache at all;
- CI-restored: the caches a run on the unchanged tree left (restored, as
  ``actions/cache`` does), every file's modification time new (a fresh checkout), and
  1 % of the files edited;
- warm: the caches of a run on this very tree;
- one file edited: warm, then one runtime module edited;
- boundary-only cold and warm: ``domain-fence check`` with our boundary contract alone
  (the work import-linter does), against the same lint-imports runs.

Each state is made afresh before every run of every tool: the tree is put back as
built, the tool's caches are restored from a snapshot taken after one run on the
unchanged tree (or deleted), then the state's change is applied. Runs alternate
between the two tools, so a burst of load on the shared machine hits both alike.
"""

from __future__ import annotations

import os
import shutil
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from .corpora import Corpus
from .measure import Sample, run_once
from .plugin import summary
from .tools import Tool, tool_environment

EDITED_SHARE = 100  # CI-restored: one file in this many is edited
APPENDED = "\n\ndef _edited_in_this_change(value):\n    return value\n"


@dataclass(frozen=True)
class Scenario:
    name: str
    fence: str  # "full" (the corpus's .importlinter) or "boundary" (boundary.ini)
    cache: str  # "none", "snapshot" (restored as it was) or "primed" (restored, then one run)
    change: str  # "none", "ci" (every mtime new, 1 % edited) or "one" (one file edited)
    target: float | None  # domain-fence / lint-imports must not exceed it
    reference: str = "same"  # lint-imports' state: "same" as ours, or "cold"


SCENARIOS = (
    Scenario("cold", "full", "none", "none", None),
    Scenario("CI-restored", "full", "snapshot", "ci", 1.0),
    Scenario("warm", "full", "primed", "none", 0.3),
    Scenario("one file edited", "full", "primed", "one", 0.5),
    Scenario("boundary-only cold", "boundary", "none", "none", 1.0),
    Scenario("boundary-only warm", "boundary", "primed", "none", 0.5),
)


@dataclass(frozen=True)
class Outcome:
    scenario: Scenario
    fence: tuple[Sample, ...]
    reference: tuple[Sample, ...]

    @property
    def ratio(self) -> float:
        return _median(self.fence, "wall") / _median(self.reference, "wall")

    @property
    def cpu_ratio(self) -> float:
        return _median(self.fence, "cpu") / max(_median(self.reference, "cpu"), 1e-9)


def _median(samples: tuple[Sample, ...], what: str) -> float:
    return statistics.median(getattr(s, what) for s in samples)


class Tree:
    """The corpus's sources as built, to put back after every run."""

    def __init__(self, corpus: Corpus) -> None:
        self.root = corpus.root
        self.files = sorted(str(p) for p in corpus.src.rglob("*.py"))
        self.times = {path: (os.stat(path).st_atime_ns, os.stat(path).st_mtime_ns) for path in self.files}
        self.changed: dict[str, bytes] = {}
        self.touched: list[str] = []
        runtime = [f for f in self.files if "/frameworks/models/" in f] or self.files
        self.one = max(runtime, key=os.path.getsize)  # the largest model module: a real edit

    def restore(self) -> None:
        """Put back the bytes and modification times of every file changed, then wait
        until the caches' racy window has passed (else they would not trust the files)."""
        if not (self.changed or self.touched):
            return
        for path, data in self.changed.items():
            Path(path).write_bytes(data)
        for path in {*self.changed, *self.touched}:
            os.utime(path, ns=self.times[path])
        self.changed, self.touched = {}, []
        time.sleep(2.1)

    def edit(self, path: str) -> None:
        data = Path(path).read_bytes()
        self.changed.setdefault(path, data)
        Path(path).write_bytes(data + APPENDED.encode())

    def apply(self, change: str) -> None:
        if change == "ci":
            now = time.time()
            for path in self.files:
                os.utime(path, (now, now))
            self.touched = list(self.files)
            for path in self.files[::EDITED_SHARE]:
                self.edit(path)
        elif change == "one":
            self.edit(self.one)


def bench_scenarios(corpus: Corpus, fence: Tool, reference: Tool, runs: int, logs: Path, work: Path) -> list[Outcome]:
    logs.mkdir(parents=True, exist_ok=True)
    tree = Tree(corpus)
    tools = {"full": fence, "boundary": boundary_tool(fence), "reference": reference}
    snapshots = {
        name: _snapshot(tree, tool, corpus, work / "snapshots" / corpus.name / name, logs)
        for name, tool in tools.items()
    }
    samples: dict[tuple[str, str], list[Sample]] = {}
    for index in range(runs):
        for scenario in SCENARIOS:
            for side in ("fence", "reference"):
                name = scenario.fence if side == "fence" else "reference"
                tool = tools[name]
                run = _prepare(tree, tool, corpus, scenario, snapshots[name], logs)
                sample = run(logs / f"{_slug(scenario.name)}.{side}.txt")
                samples.setdefault((scenario.name, side), []).append(sample)
                print(
                    f"  {corpus.name:<12} {scenario.name:<19} {tool.name:<21} {index + 1}/{runs}: "
                    f"{sample.wall:7.3f} s  {sample.rss_mb:6.0f} MB  exit {sample.exit_status}"
                    + (f"  FAILED: {sample.failure}" if sample.failure else ""),
                    flush=True,
                )
                tree.restore()
    return [Outcome(s, tuple(samples[(s.name, "fence")]), tuple(samples[(s.name, "reference")])) for s in SCENARIOS]


def boundary_tool(fence: Tool) -> Tool:
    return replace(
        fence,
        name="domain-fence boundary",
        argv=(fence.argv[0], "check", "--config", "boundary.ini"),
        note="our boundary contract alone",
    )


def _snapshot(tree: Tree, tool: Tool, corpus: Corpus, where: Path, logs: Path) -> Path:
    """The tool's caches after one run on the tree as built."""
    tree.restore()
    tool.clear_caches(corpus.root)
    _timed(tool, corpus, logs / "snapshot.txt")
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    for cache in tool.caches:
        if (corpus.root / cache).exists():
            shutil.copytree(corpus.root / cache, where / cache, symlinks=True)
    return where


def _prepare(tree: Tree, tool: Tool, corpus: Corpus, scenario: Scenario, snapshot: Path, logs: Path) -> Callable:
    tree.restore()
    tool.clear_caches(corpus.root)
    if scenario.cache in ("snapshot", "primed"):
        for cache in tool.caches:
            if (snapshot / cache).exists():
                shutil.copytree(snapshot / cache, corpus.root / cache, symlinks=True)
    if scenario.cache == "primed":
        _timed(tool, corpus, logs / "priming.txt")
    tree.apply(scenario.change)
    return lambda log: _timed(tool, corpus, log)


def _timed(tool: Tool, corpus: Corpus, log: Path) -> Sample:
    sample = run_once(tool.command(), corpus.root, tool_environment(corpus, tool), log)
    failure = tool.failure(sample.exit_status, log.read_text(encoding="utf-8", errors="replace"))
    return replace(sample, failure=failure) if failure else sample


def _slug(name: str) -> str:
    return name.replace(" ", "-").lower()


def render(
    corpus: Corpus,
    outcomes: list[Outcome],
    flake8: tuple[Sample, Sample] | None,
    counted: list[dict[str, float]] | None = None,
) -> list[str]:
    """The scenario table and the issue's verdicts for one corpus; ``counted``: runs of
    flake8 with the plugin's own time counted inside them (see :mod:`.plugin`)."""
    files, lines = corpus.size()
    out = [
        f"### Where users wait: {corpus.name} ({files} files, {lines:,} lines)",
        "",
        "| scenario | domain-fence s | lint-imports s | ratio | CPU ratio | target | peak RSS MB | runs (spread) |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for outcome in outcomes:
        target = f"<= {outcome.scenario.target}x" if outcome.scenario.target is not None else ""
        verdict = (
            ""
            if outcome.scenario.target is None
            else (" MET" if outcome.ratio <= outcome.scenario.target else " **MISSED**")
        )
        rss = max(s.rss_mb for s in outcome.fence)
        spread = "/".join(f"{_spread(samples):.0%}" for samples in (outcome.fence, outcome.reference))
        failure = next((s.failure for s in (*outcome.fence, *outcome.reference) if s.failure), None)
        walls = f"{_median(outcome.fence, 'wall'):.3f} | {_median(outcome.reference, 'wall'):.3f}"
        out.append(
            f"| {outcome.scenario.name} | {walls} | "
            f"{outcome.ratio:.2f}x | {outcome.cpu_ratio:.2f}x | {target}{verdict} | {rss:.0f} | "
            f"{len(outcome.fence)} ({spread})" + (f" FAILED: {failure}" if failure else "") + " |"
        )
    if flake8 is not None:
        bare, plugin = flake8
        overhead = plugin.wall / bare.wall - 1
        verdict = " MET" if overhead <= 0.05 else " **MISSED**"
        out.append(
            f"| flake8 with the plugin (warm) over flake8 alone | {plugin.wall:.2f} | {bare.wall:.2f} (flake8) | "
            f"{overhead:+.1%} | {plugin.cpu / bare.cpu - 1:+.1%} | <= +5%{verdict} | {plugin.rss_mb:.0f} | |"
        )
    if counted:
        total = summary(counted)
        wall = statistics.median(run["wall"] for run in counted)
        over = _over(total["wall_share"])
        verdict = " MET" if over <= 0.05 else " **MISSED**"
        out.append(
            f"| the plugin's time counted inside flake8's run (warm) | {total['wall_share'] * wall:.2f} | "
            f"{wall:.2f} (flake8+DOM) | {over:+.1%} | {_over(total['share']):+.1%} | "
            f"<= +5%{verdict} | | {len(counted)} ({_over(total['wall_share_min']):+.1%} to "
            f"{_over(total['wall_share_max']):+.1%}) |"
        )
    rss = max(s.rss_mb for outcome in outcomes for s in outcome.fence)
    edited = Path(Tree(corpus).one).relative_to(corpus.root)
    out += [
        "",
        f"Peak RSS of domain-fence over every scenario: {rss:.0f} MB (target <= 300 MB: "
        f"{'MET' if rss <= 300 else '**MISSED**'}). The ratio is domain-fence's median wall time over "
        "lint-imports' (the `forbidden` contract alone, `forbidden.ini`) in the same state; CI-restored "
        f"edits one file in {EDITED_SHARE}, one file edited appends a function to `{edited}`."
        + (
            " The plugin's counted time is its import, its options (before flake8's workers start) and "
            "its per-file checks spread over the workers, over the rest of the run (`benchmarks/plugin_cost.py`)."
            if counted
            else ""
        ),
        "",
    ]
    return out


def _over(share: float) -> float:
    """The plugin's part of a run, over the rest of it: flake8's own work."""
    return share / (1 - share)


def _spread(samples: tuple[Sample, ...]) -> float:
    walls = [s.wall for s in samples]
    middle = statistics.median(walls)
    return (max(walls) - min(walls)) / middle if middle else 0.0
