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
process to fork, memory, flake8's own handling of each finding the plugin yields; and,
the other way, the plugin's ``gc.freeze()`` in the parent, which spares flake8's workers
collections over what flake8 itself loaded. A run in which the plugin failed, or whose
counts do not cover every file flake8 checked, is refused. The wall-time share is an estimate: the import and the
options' wall time in the parent, before flake8's workers start, plus the per-file time
spread over the workers.

    python benchmarks/plugin_cost.py benchmarks/.work/corpora/monty-x20 --runs 3
    python benchmarks/plugin_cost.py benchmarks/.work/corpora/monty-x20 --cold   # no fact cache

Run benchmarks/run.py first: it builds the corpora. Run it with the interpreter
domain-fence (and so the plugin) is installed in.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness.plugin import one_run, summary


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
    state = "cold" if options.cold else "warm"
    total = summary(runs)
    print(
        f"{corpus.name}, {state} plugin cache, {len(runs)} runs: the plugin's share of flake8's CPU time "
        f"{total['share']:.2%} ({total['share_min']:.2%}-{total['share_max']:.2%}), of its wall time about "
        f"{total['wall_share']:.2%} ({total['wall_share_min']:.2%}-{total['wall_share_max']:.2%})"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
