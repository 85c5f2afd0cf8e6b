"""What DOM105 (values derived from experiment knowledge) costs a cold check.

DOM105 runs on flow facts: where the values a module passes come from. They are
extracted from the same tree as the module's other facts, for the files that may
build an event, and kept in the fact cache like any fact, so a warm run, a restored
cache or an edit of another file traces nothing again. What is left to measure is the
cold run. This script times ``domain-fence check`` on a corpus as a whole process,
cold (every cache deleted before each run), in pairs: the check as it is, and the same
check with flow extraction switched off inside the process (so DOM105 finds nothing
and nothing is traced), alternating so the machine's drift hits both alike. It prints
the median wall and CPU time of each and the median of the pair-by-pair ratios, with
their spread: a difference inside the spread is not measurable.

    python benchmarks/rule_cost.py benchmarks/.work/corpora/monty-x20 --pairs 7
    python benchmarks/rule_cost.py benchmarks/.work/corpora/django-x50 --no-cache

Run benchmarks/run.py first: it builds the corpora. Run it with the interpreter
domain-fence is installed in.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

CACHES = (".domain_fence_cache", ".import_linter_cache")
RUN = """
import sys
if {off}:
    from domain_fence.core.index import project
    extract = project._extract
    project._extract = lambda job, keep_walk=False: extract(job._replace(trace=()))
    project.ProjectIndex.flows = lambda self, module, needs=(): None
    project.ProjectIndex.prefetch_flows = lambda self, modules, *args, **kwargs: None
    project.ProjectIndex.function_returns = lambda self, module, qualname: None
from domain_fence.integrations.cli import run  # the console script's entry, as users run it
sys.argv = ["domain-fence", "check", "--config", ".importlinter", "-q", *{extra!r}]
run()
"""


def timed(corpus: Path, off: bool, extra: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, the parsing workers included) of one cold run."""
    for cache in CACHES:
        shutil.rmtree(corpus / cache, ignore_errors=True)
    env = {**os.environ, "PYTHONPATH": str(corpus / "src")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # compiled once, not on every run
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", RUN.format(off=off, extra=extra)],
        cwd=corpus,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1) or "Traceback" in done.stderr:  # else the switch broke the run
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise SystemExit(f"rule_cost: the check {'without' if off else 'with'} DOM105 exited {done.returncode}: {last}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def spread(values: list[float]) -> str:
    return f"{min(values):.3f}-{max(values):.3f}"


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--pairs", type=int, default=7)
    parser.add_argument("--no-cache", action="store_true", help="check --no-cache (no cache written either)")
    args = parser.parse_args(argv)
    corpus = args.corpus.resolve()
    if not (corpus / ".importlinter").is_file():
        raise SystemExit(f"rule_cost: {corpus}: no .importlinter; run benchmarks/run.py first to build the corpora")
    extra = ["--no-cache"] if args.no_cache else []
    timed(corpus, False, extra)  # warm the page cache and the bytecode
    on: list[tuple[float, float]] = []
    off: list[tuple[float, float]] = []
    for _ in range(args.pairs):
        on.append(timed(corpus, False, extra))
        off.append(timed(corpus, True, extra))
    print(f"{corpus.name}, check {' '.join(extra) or '(caches written)'}, {args.pairs} cold pairs")
    print("| | wall s (median, range) | CPU s (median, range) |")
    print("|---|---:|---:|")
    for label, runs in (("with DOM105", on), ("flow extraction off", off)):
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        print(
            f"| {label} | {statistics.median(walls):.3f} ({spread(walls)}) | {statistics.median(cpus):.3f} ({spread(cpus)}) |"
        )
    wall_ratios = [a[0] / b[0] for a, b in zip(on, off, strict=True)]
    cpu_ratios = [a[1] / b[1] for a, b in zip(on, off, strict=True)]
    print(
        f"| ratio, pair by pair | {statistics.median(wall_ratios):.3f} ({spread(wall_ratios)}) "
        f"| {statistics.median(cpu_ratios):.3f} ({spread(cpu_ratios)}) |"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
