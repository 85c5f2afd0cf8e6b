"""The flake8 plugin's CPU time counted inside flake8's own run (see
``benchmarks/plugin_cost.py``, which prints it, and the Monty scenario table, which
judges the plugin's overhead by it)."""

from __future__ import annotations

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


from flake8.main.application import Application  # what flake8 imports whatever its plugins

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
application = Application()
application.run(["--extend-select", "DOM", "src"])
# What flake8 checked, to tell a run whose counts are all in from one that lost some.
spent["flake8_files"] = len(application.file_checker_manager.filenames)
flush()
sys.exit(application.exit_code())
"""
# flake8's words for a plugin that raised, and for a run that broke down.
FAILED = ("failed during execution", "critical error during execution")


def one_run(corpus: Path, cold: bool) -> dict[str, float]:
    """One flake8 run: its wall and CPU seconds, the plugin's CPU seconds by part,
    and how many processes checked files."""
    if cold:
        shutil.rmtree(corpus / FACTS, ignore_errors=True)
    with tempfile.TemporaryDirectory() as counts:
        env = {**os.environ, "PYTHONPATH": str(corpus / "src"), "DOMAIN_FENCE_CACHE_DIR": FACTS}
        env["PLUGIN_COST_DIR"] = counts
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env.pop("DOMAIN_FENCE_NO_CACHE", None)  # the cache is what the runs are about
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", RUN],
            cwd=corpus,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        failed = next((line for line in done.stdout.splitlines() if any(f in line for f in FAILED)), None)
        if done.returncode not in (0, 1) or "Traceback" in done.stderr or failed:
            last = failed or (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise SystemExit(f"plugin_cost: flake8 exited {done.returncode}: {last}")
        processes = [json.loads(path.read_text()) for path in Path(counts).glob("*.json")]
    parts = {
        part: sum(p[part] for p in processes) for part in ("import", "prepare", "prepare_wall", "files", "checked")
    }
    files = sum(p.get("flake8_files", 0) for p in processes)
    if not files or parts["checked"] != files:
        # A worker that never reported (killed, or started without the wrapped plugin:
        # a start method other than fork) would make the share look smaller.
        raise SystemExit(
            f"plugin_cost: the plugin's counts cover {parts['checked']} of the {files} files flake8 checked"
        )
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    workers = sum(1 for p in processes if p["checked"])
    plugin = parts["import"] + parts["prepare"] + parts["files"]
    return {
        "wall": wall,
        "cpu": cpu,
        **parts,
        "workers": workers,
        "share": plugin / cpu,
        "wall_share": (parts["import"] + parts["prepare_wall"] + parts["files"] / workers) / wall,
    }


def summary(runs: list[dict[str, float]]) -> dict[str, float]:
    """The median and range of the CPU and wall-time shares of ``runs``."""
    shares = [r["share"] for r in runs]
    walls = [r["wall_share"] for r in runs]
    return {
        "share": statistics.median(shares),
        "share_min": min(shares),
        "share_max": max(shares),
        "wall_share": statistics.median(walls),
        "wall_share_min": min(walls),
        "wall_share_max": max(walls),
    }
