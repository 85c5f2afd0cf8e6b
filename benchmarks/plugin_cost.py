"""What the flake8 plugin costs flake8, counted inside flake8's own run.

Comparing flake8 with the plugin against flake8 without it (the harness's flake8 and
flake8+DOM rows) takes two environments and two series of 40-second runs, and this
machine's load moves one run of the same command by 15% or more: a 5% target cannot
be judged that way. Here the plugin's time is counted in the very run it is part of:
flake8 runs as it does for users (its defaults, its worker processes), with the
plugin's three ways in wrapped to count the CPU time spent in them, in the parent and
in each worker:

- importing the plugin (flake8 imports every installed plugin);
- ``parse_options`` (finding the configuration, and learning what the files will
  report before flake8 starts its workers; with a cold cache, that parses the covered
  files in worker processes of the plugin's own, counted too);
- ``run``, once per file flake8 checks.

The share is that time over the CPU time of the whole run (the flake8 process and its
workers). What the counting cannot see is the plugin's indirect cost: a larger parent
process to fork, and memory. The wall-time share is an estimate: the import and the
options' wall time in the parent, before flake8's workers start, plus the per-file time
spread over the workers.

    python benchmarks/plugin_cost.py benchmarks/.work/corpora/monty-x20 --runs 3
    python benchmarks/plugin_cost.py benchmarks/.work/corpora/monty-x20 --cold   # no fact cache

Run benchmarks/run.py first: it builds the corpora. Run it with the interpreter
domain-fence (and so the plugin) is installed in.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FACTS = ".flake8_dom_facts"  # the plugin's cache in the corpus, as the harness names it
RUN = """
import json, os, sys, time
from multiprocessing import util

import resource

spent = {"import": 0.0, "prepare": 0.0, "prepare_wall": 0.0, "files": 0.0, "checked": 0}


def cpu():  # this process's, and that of the children it waited for (parsing workers)
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


started = time.process_time()
from domain_fence.integrations import flake8 as plugin
spent["import"] = time.process_time() - started
owner = [os.getpid()]


def flush():
    with open(os.path.join(os.environ["PLUGIN_COST_DIR"], f"{os.getpid()}.json"), "w") as out:
        json.dump(spent, out)


def counting():
    if owner[0] != os.getpid():  # a worker, forked with the parent's counts: its own start at zero
        owner[0] = os.getpid()
        spent.update({"import": 0.0, "prepare": 0.0, "prepare_wall": 0.0, "files": 0.0, "checked": 0})
        util.Finalize(None, flush, exitpriority=100)  # run as the worker exits
    return spent


original_run = plugin.DomainFenceChecker.run
original_options = plugin.DomainFenceChecker.parse_options.__func__


def run(self):
    counts = counting()
    found = original_run(self)
    while True:
        started = time.process_time()
        try:
            item = next(found)
        except StopIteration:
            counts["files"] += time.process_time() - started
            counts["checked"] += 1
            return
        counts["files"] += time.process_time() - started
        yield item


def parse_options(cls, options):
    started, began = cpu(), time.perf_counter()
    try:
        return original_options(cls, options)
    finally:
        counting()["prepare"] += cpu() - started
        spent["prepare_wall"] += time.perf_counter() - began


plugin.DomainFenceChecker.run = run
plugin.DomainFenceChecker.parse_options = classmethod(parse_options)
import atexit
atexit.register(flush)
from flake8.main.cli import main
main(["--extend-select", "DOM", "src"])
"""


def one_run(corpus: Path, cold: bool) -> dict[str, float]:
    """One flake8 run: its wall and CPU seconds, the plugin's CPU seconds by part,
    and how many processes checked files."""
    if cold:
        shutil.rmtree(corpus / FACTS, ignore_errors=True)
    with tempfile.TemporaryDirectory() as counts:
        env = {**os.environ, "PYTHONPATH": str(corpus / "src"), "DOMAIN_FENCE_CACHE_DIR": FACTS}
        env["PLUGIN_COST_DIR"] = counts
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", RUN],
            cwd=corpus,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode not in (0, 1) or "Traceback" in done.stderr:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise SystemExit(f"plugin_cost: flake8 exited {done.returncode}: {last}")
        processes = [json.loads(path.read_text()) for path in Path(counts).glob("*.json")]
    if not processes:
        raise SystemExit("plugin_cost: no process reported its counts")
    parts = {
        part: sum(p[part] for p in processes) for part in ("import", "prepare", "prepare_wall", "files", "checked")
    }
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    workers = sum(1 for p in processes if p["checked"]) or 1
    plugin = parts["import"] + parts["prepare"] + parts["files"]
    return {
        "wall": wall,
        "cpu": cpu,
        **parts,
        "workers": workers,
        "share": plugin / cpu,
        "wall_share": (parts["import"] + parts["prepare_wall"] + parts["files"] / workers) / wall,
    }


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path, help="a corpus directory built by benchmarks/run.py")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cold", action="store_true", help="delete the plugin's fact cache before each run")
    options = parser.parse_args(argv)
    corpus = options.corpus.resolve()
    if not (corpus / "src").is_dir():
        raise SystemExit(f"plugin_cost: {corpus} is no corpus (no src/): run benchmarks/run.py first")
    if not options.cold:
        one_run(corpus, cold=False)  # prime the plugin's cache: what a warm run finds
    runs = []
    for number in range(1, options.runs + 1):
        r = one_run(corpus, options.cold)
        runs.append(r)
        print(
            f"run {number}: {r['wall']:.2f} s wall, {r['cpu']:.2f} s CPU; plugin {r['import']:.2f} import + "
            f"{r['prepare']:.2f} options + {r['files']:.2f} over {int(r['checked'])} files in {int(r['workers'])} "
            f"process(es) = {r['share']:.2%} of the CPU, about {r['wall_share']:.2%} of the wall time"
        )
    shares = [r["share"] for r in runs]
    walls = [r["wall_share"] for r in runs]
    state = "cold" if options.cold else "warm"
    print(
        f"{corpus.name}, {state} plugin cache, {len(runs)} runs: the plugin's share of flake8's CPU time "
        f"{statistics.median(shares):.2%} ({min(shares):.2%}-{max(shares):.2%}), of its wall time about "
        f"{statistics.median(walls):.2%} ({min(walls):.2%}-{max(walls):.2%})"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
