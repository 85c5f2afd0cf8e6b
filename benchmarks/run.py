"""Benchmark domain-fence against import-linter, flake8, tach, ruff and pytest-archon.

Run it with the project's interpreter (the one domain-fence is installed in):

    .venv/bin/python benchmarks/run.py               # everything, 5 runs per series
    .venv/bin/python benchmarks/run.py --quick       # 1 run, trees x1 and x10
    .venv/bin/python benchmarks/run.py --write-readme
    .venv/bin/python benchmarks/run.py --dry-run --corpora a   # build + validate configs only
    .venv/bin/python benchmarks/run.py --profile     # pyinstrument on the largest tree

See benchmarks/README.md for the design and the latest results.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from harness import configs, corpora, monty, plugin, report, scenarios, tools  # noqa: E402
from harness.measure import Sample, Series  # noqa: E402
from harness.runner import Result, bench_corpus  # noqa: E402

REPO = HERE.parent
CORPUS_KEYS = ("a", "b", "c", "m")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=None, help="runs per series (default 5; 1 with --quick)")
    parser.add_argument(
        "--corpora",
        default="a,b,c,m",
        help="a = minimonty, b = django, c = generated Django trees, m = Monty trees (default a,b,c,m)",
    )
    parser.add_argument("--monty-scales", default="1,20", help="copies in the Monty trees (default 1,20)")
    parser.add_argument(
        "--monty-source",
        type=Path,
        default=None,
        help="an unpacked tbp-monty sdist to build the Monty trees from (default: pip download it)",
    )
    parser.add_argument(
        "--no-scenarios", action="store_true", help="skip the CI-restored / edited / boundary-only runs on Monty"
    )
    parser.add_argument(
        "--scales", default=None, help="copies in the generated trees (default 1,10,50; 1,10 with --quick)"
    )
    parser.add_argument("--tools", default=",".join(tools.TOOL_NAMES), help=f"subset of {','.join(tools.TOOL_NAMES)}")
    parser.add_argument("--quick", action="store_true", help="one run per series and no x50 tree: for development")
    parser.add_argument(
        "--work-dir", type=Path, default=HERE / ".work", help="corpora, venvs, logs (default benchmarks/.work)"
    )
    parser.add_argument(
        "--write-readme", action="store_true", help="replace the results section of benchmarks/README.md"
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="build the corpora and check their configurations; time nothing"
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="profile domain-fence check and lint-imports+vocabulary on the largest tree",
    )
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="re-render the last run's results.json (with --write-readme: into the README); run nothing",
    )
    args = parser.parse_args(argv)
    args.runs = args.runs or (1 if args.quick else 5)
    args.scales = [int(s) for s in (args.scales or ("1,10" if args.quick else "1,10,50")).split(",") if s]
    args.monty_scales = [int(s) for s in args.monty_scales.split(",") if s]
    args.corpora = [c.strip() for c in args.corpora.split(",") if c.strip()]
    args.tools = {t.strip() for t in args.tools.split(",") if t.strip()}
    for key in args.corpora:
        if key not in CORPUS_KEYS:
            parser.error(f"--corpora: unknown corpus {key!r} (choose from {', '.join(CORPUS_KEYS)})")
    unknown = args.tools - set(tools.TOOL_NAMES)
    if unknown:
        parser.error(f"--tools: unknown {', '.join(sorted(unknown))}")
    if args.runs < 1 or any(s < 1 for s in (*args.scales, *args.monty_scales)):
        parser.error("--runs and --scales must be positive")
    return args


def build_corpora(args: argparse.Namespace, families: tuple[str, ...]) -> list[corpora.Corpus]:
    built = []
    if "a" in args.corpora:
        built.append(corpora.minimonty(args.work_dir, REPO))
    if "b" in args.corpora:
        built.append(corpora.django(args.work_dir))
    if "c" in args.corpora:
        built += [corpora.scaled_django(args.work_dir, scale) for scale in args.scales]
    if "m" in args.corpora:
        built += [monty.monty(args.work_dir, scale, args.monty_source) for scale in args.monty_scales]
    for corpus in built:
        if not corpus.written:
            configs.write_all(corpus, families)
        files, lines = corpus.size()
        print(f"corpus {corpus.name}: {files} files, {lines:,} lines in {corpus.root}", flush=True)
    return built


def dry_run(built: list[corpora.Corpus]) -> int:
    """Each configuration must be accepted by lint-imports; clean corpora must pass."""
    lint_imports = str(Path(sys.executable).parent / "lint-imports")
    failures = 0
    for corpus in built:
        for config in ("forbidden.ini", ".importlinter", *(("boundary.ini",) if corpus.written else ())):
            result = subprocess.run(
                [lint_imports, config, "--no-cache"],
                cwd=corpus.root,
                env=tools.tool_environment(corpus),
                capture_output=True,
                text=True,
            )
            counts = re.search(r"Contracts: (\d+) kept, (\d+) broken", result.stdout)
            if counts is None:
                verdict, ok = "INVALID: " + (result.stdout + result.stderr).strip().splitlines()[-1:][0], False
            else:
                verdict = f"{counts[1]} kept, {counts[2]} broken"
                ok = result.returncode == 0 or not corpus.clean
            print(f"{corpus.name} {config}: {verdict}")
            failures += not ok
    print("configurations valid" if not failures else f"{failures} configuration problem(s)")
    return 1 if failures else 0


def profile(built: list[corpora.Corpus], work: Path) -> int:
    try:
        import pyinstrument  # noqa: F401
    except ImportError:
        print("--profile needs pyinstrument in this interpreter: pip install pyinstrument", file=sys.stderr)
        return 2
    corpus = built[-1]
    bin_dir = Path(sys.executable).parent
    out_dir = work / "profiles"
    out_dir.mkdir(parents=True, exist_ok=True)
    missing, check_options = tools.fence_check_options(bin_dir)
    jobs = (
        []
        if missing
        else [
            ("domain-fence-cold", [str(bin_dir / "domain-fence"), "check", *check_options], True),
            ("domain-fence-warm", [str(bin_dir / "domain-fence"), "check", *check_options], False),
        ]
    )
    if missing:
        print(f"note: {missing}; profiling lint-imports only")
    jobs += [
        (
            "lint-imports-vocabulary-cold",
            [str(bin_dir / "lint-imports"), "vocabulary.ini", "--cache-dir", ".profile_cache"],
            True,
        ),
        (
            "lint-imports-forbidden-cold",
            [str(bin_dir / "lint-imports"), "forbidden.ini", "--cache-dir", ".profile_cache"],
            True,
        ),
        (
            "lint-imports-fence-cold",
            [str(bin_dir / "lint-imports"), ".importlinter", "--cache-dir", ".profile_cache"],
            True,
        ),
    ]
    for name, command, cold in jobs:
        if cold:
            for cache in (".import_linter_cache", ".domain_fence_cache", ".profile_cache"):
                subprocess.run(["rm", "-rf", str(corpus.root / cache)], check=True)
        target = out_dir / f"{corpus.name}-{name}.txt"
        argv = [sys.executable, "-m", "pyinstrument", "--renderer", "text", "--outfile", str(target), *command]
        print("$", shlex.join(argv), flush=True)
        subprocess.run(
            argv,
            cwd=corpus.root,
            env=tools.tool_environment(corpus),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        print(f"  -> {target}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    args.work_dir = args.work_dir.resolve()
    if args.report_only:
        return report_only(args)
    families, families_note = tools.fence_families()
    if families_note:
        print(f"note: domain-fence contracts {families_note}", flush=True)
    built = build_corpora(args, families)
    if args.dry_run:
        return dry_run(built)
    if args.profile:
        return profile(built, args.work_dir)
    envs = tools.Environments(args.work_dir)
    envs.prepare(args.tools)
    tool_list = tools.build_tools(envs, args.tools, families_note)
    skipped = [f"{t.name}: {t.skip}" for t in tool_list if t.skip]
    for reason in skipped:
        print(f"note: not run: {reason}", flush=True)
    print("commands (cwd = corpus directory, PYTHONPATH=<corpus>/src):")
    for tool in tool_list:
        if not tool.skip:
            print(f"  {tool.name}: {tool.shell_line()}   # caches: {' '.join(tool.caches) or '-'}")
    info_before = report.machine_info()
    all_results = {}
    scenario_sections: list[str] = []
    for corpus in built:
        print(f"benchmarking {corpus.name} ({args.runs} runs per series)", flush=True)
        applicable = [t for t in tool_list if corpus.tools is None or t.name.split("+")[0] in corpus.tools]
        all_results[corpus.name] = (
            corpus,
            bench_corpus(corpus, applicable, args.runs, args.work_dir / "logs" / corpus.name),
        )
        by_name = {t.name: t for t in applicable if not t.skip}
        if corpus.written and not args.no_scenarios and {"domain-fence", "lint-imports"} <= set(by_name):
            print(f"scenarios on {corpus.name} ({args.runs} runs each)", flush=True)
            outcomes = scenarios.bench_scenarios(
                corpus,
                by_name["domain-fence"],
                by_name["lint-imports"],
                args.runs,
                args.work_dir / "logs" / corpus.name / "scenarios",
                args.work_dir,
            )
            results = all_results[corpus.name][1]
            pair = (results["flake8"].cold, results["flake8+DOM"].warm_or_cold) if "flake8+DOM" in results else None
            counted = None
            if "flake8+DOM" in results:
                print(
                    f"the flake8 plugin's time on {corpus.name}, counted in flake8's run ({args.runs} runs)", flush=True
                )
                plugin.one_run(corpus.root, cold=False)  # the plugin's cache as the warm series left it
                counted = [plugin.one_run(corpus.root, cold=False) for _ in range(args.runs)]
            scenario_sections += scenarios.render(corpus, outcomes, _medians(pair), counted)
    info = report.machine_info()
    info["load"] = f"before {info_before['load']}, after {info['load']} (1, 5, 15 min)"
    info["code"] = f"{info_before['code']} at the start; {info['code']} at the end"
    command_line = "python benchmarks/run.py " + " ".join(
        shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:])
    )
    section = report.render(all_results, REPO, info, envs.versions, args.runs, skipped, command_line.strip())
    if scenario_sections:
        section = "\n".join(scenario_sections) + "\n" + section
        (args.work_dir / "scenarios.md").write_text("\n".join(scenario_sections))
    print()
    print(section)
    _save_json(args.work_dir / "results.json", all_results, info, envs.versions, skipped, command_line.strip())
    if args.write_readme:
        report.write_readme(HERE / "README.md", section)
        print(f"\nwrote {HERE / 'README.md'}")
    return 0


def _medians(pair):
    """The median sample of each of two series (flake8 alone, with the plugin)."""
    if pair is None:
        return None
    return tuple(Sample(s.wall, s.cpu, s.rss_mb, 0) for s in pair)


def _save_json(path: Path, all_results, info, versions, skipped, command_line) -> None:
    data = {"command_line": command_line, "machine": info, "versions": versions, "skipped": skipped, "corpora": {}}
    for name, (corpus, results) in all_results.items():
        data["corpora"][name] = {
            "root": str(corpus.root),
            "scale": corpus.scale,
            "size": corpus.size(),
            "tools": {
                tool: {
                    "command": r.tool.command(),
                    "caches": list(r.tool.caches),
                    "env": [list(pair) for pair in r.tool.env],
                    "note": r.tool.note,
                    "cold": [s.__dict__ for s in r.cold.samples],
                    "warm": [s.__dict__ for s in r.warm.samples] if r.warm else None,
                }
                for tool, r in results.items()
            },
        }
    path.write_text(json.dumps(data, indent=1))


def report_only(args: argparse.Namespace) -> int:
    path = args.work_dir / "results.json"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        print(f"run.py: error: cannot read {path}: {error}", file=sys.stderr)
        return 2
    all_results = {}
    for name, stored in data["corpora"].items():
        corpus = StoredCorpus(name, Path(stored["root"]), stored["scale"], tuple(stored["size"]))
        results = {}
        for tool_name, entry in stored["tools"].items():
            tool = tools.Tool(
                tool_name,
                tuple(entry["command"]),
                tuple(entry["caches"]),
                entry["note"],
                env=tuple(tuple(pair) for pair in entry.get("env", ())),
            )
            warm = Series(tuple(Sample(**s) for s in entry["warm"])) if entry["warm"] else None
            results[tool_name] = Result(tool, Series(tuple(Sample(**s) for s in entry["cold"])), warm)
        all_results[name] = (corpus, results)
    runs = max(len(r.cold.samples) for _, results in all_results.values() for r in results.values())
    section = report.render(
        all_results,
        REPO,
        data["machine"],
        data["versions"],
        runs,
        data["skipped"],
        data["command_line"] + " (re-rendered with --report-only)",
    )
    scenario_file = args.work_dir / "scenarios.md"
    if scenario_file.is_file():
        section = scenario_file.read_text() + "\n" + section
    print(section)
    if args.write_readme:
        report.write_readme(HERE / "README.md", section)
        print(f"\nwrote {HERE / 'README.md'}")
    return 0


@dataclass(frozen=True)
class StoredCorpus:
    """A measured corpus as results.json records it (enough for the report)."""

    name: str
    root: Path
    scale: int | None
    stored_size: tuple[int, int]

    def size(self) -> tuple[int, int]:
        return self.stored_size


if __name__ == "__main__":
    sys.exit(main())
