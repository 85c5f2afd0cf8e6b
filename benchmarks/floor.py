"""The least a cold ``domain-fence check`` can cost on a corpus, measured piece by piece.

A cold check must at least start Python and import its tools, build grimp's import
graph (as lint-imports does) and parse, with CPython's parser, every file in which the
vocabulary contracts find an event class or an event construction (whatever decides
which files those are, the findings are in their trees), and every file a contract
with a declaration scope (the census: attributes, parameters) covers. That is the
floor of the findings. A sound check must also tell, for every covered file, whether
Python can parse it (DOM001): the sound floor parses every covered file. This script
measures each cost alone, takes the parse as perfectly spread over every core with no
extraction after it, and compares the sums with lint-imports running the boundary
contract alone.

    .venv/bin/python benchmarks/floor.py                                   # django-x50
    .venv/bin/python benchmarks/floor.py benchmarks/.work/corpora/monty-x20

Run benchmarks/run.py first: it builds the corpora. The numbers are minimums of a few
runs, the floor's most favourable reading.
"""

from __future__ import annotations

import ast
import gc
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNS = 3


def main(argv: list[str]) -> None:
    corpus = Path(argv[1] if len(argv) > 1 else HERE / ".work" / "corpora" / "django-x50").resolve()
    if not (corpus / ".importlinter").is_file():
        raise SystemExit(f"floor: {corpus}: no .importlinter; run benchmarks/run.py first to build the corpora")
    sys.path.insert(0, str(corpus / "src"))
    os.chdir(corpus)
    gc.disable()

    from domain_fence.core.families.vocabulary.declarations import CODES as DECLARATION_SCOPES
    from domain_fence.core.families.vocabulary.events import EventResolver, prefetch_covered
    from domain_fence.core.index.project import ProjectIndex
    from domain_fence.integrations.importlinter.configuration import load_configuration

    configuration = load_configuration(corpus / ".importlinter")
    index = ProjectIndex.build(corpus, configuration.root_packages, cache_dir=None)
    must_parse: set[str] = set()
    covered_anywhere: set[str] = set()
    for contract in configuration.fence_contracts("vocabulary"):
        resolver = EventResolver(index, contract.config.event_bases)
        covered = prefetch_covered(contract.config, index)
        covered_anywhere |= {m for m in covered if str(index.modules[m]).endswith(".py")}
        if any(scope in DECLARATION_SCOPES for scope in contract.config.scope):
            must_parse |= {m for m in covered if str(index.modules[m]).endswith(".py")}
            continue
        for module in covered:
            facts = index.file_facts(module)
            names = facts.names if facts else None
            if names and (
                any(resolver.is_event(f"{module}.{qualname}") for qualname in names.classes)
                or any(resolver.is_event(resolver.canonical(call.callee)) for call in names.calls)
            ):
                must_parse.add(module)
    sources = [index.modules[module].read_bytes() for module in sorted(must_parse)]
    parse = min(_cpu(lambda: [ast.parse(source) for source in sources]) for _ in range(RUNS))
    every = [index.modules[module].read_bytes() for module in sorted(covered_anywhere)]
    parse_every = min(_cpu(lambda: [ast.parse(source) for source in every]) for _ in range(RUNS))
    named = [
        (module, index.is_package(module), index.modules[module].read_bytes()) for module in sorted(covered_anywhere)
    ]
    extraction = min(_extraction_cpu(named) for _ in range(RUNS))

    import grimp

    graph = min(_wall(lambda: grimp.build_graph(*configuration.root_packages, cache_dir=None)) for _ in range(RUNS))
    start = min(
        _wall(
            lambda: subprocess.run(
                [
                    sys.executable,
                    "-c",
                    "import domain_fence.integrations.cli, domain_fence.integrations.importlinter.results",
                ],
                check=True,
            )
        )
        for _ in range(RUNS)
    )
    lint_imports = Path(sys.executable).with_name("lint-imports")
    environment = {**os.environ, "PYTHONPATH": str(corpus / "src")}
    reference = min(
        _wall(
            lambda: subprocess.run(
                [str(lint_imports), "forbidden.ini", "--no-cache"], env=environment, capture_output=True
            )
        )
        for _ in range(RUNS)
    )
    cores = len(os.sched_getaffinity(0))
    floor = start + graph + parse / cores
    sound = start + graph + parse_every / cores
    design = sound + extraction / cores
    megabytes = sum(map(len, sources)) / 1e6
    print(f"corpus: {corpus.name}, {len(index.modules)} modules, load {os.getloadavg()[0]:.2f}")
    print(f"files holding findings (events, event constructions, census): {len(sources)} ({megabytes:.2f} MB)")
    print(f"files covered by a vocabulary contract: {len(every)} ({sum(map(len, every)) / 1e6:.2f} MB)")
    print(f"  start-up and imports (wall)            {start:6.3f} s")
    print(f"  grimp builds the graph (wall)          {graph:6.3f} s")
    print(f"  ast.parse of the first files (CPU)     {parse:6.3f} s, / {cores} cores = {parse / cores:.3f} s")
    spread = parse_every / cores
    print(f"  ast.parse of every covered file (CPU)  {parse_every:6.3f} s, / {cores} cores = {spread:.3f} s")
    print(f"  facts extraction of every covered file, parse excluded (CPU) {extraction:6.3f} s, / {cores} cores")
    print(f"floor of a cold check (findings)         {floor:6.3f} s")
    print(f"floor of a sound cold check (DOM001)     {sound:6.3f} s")
    print(f"  + this design's facts extraction       {design:6.3f} s (what a cold check costs beyond it is the rest)")
    print(f"lint-imports, boundary alone, no cache   {reference:6.3f} s")
    print(f"floor / lint-imports                     {floor / reference:6.2f}x (sound: {sound / reference:.2f}x)")


def _cpu(work) -> float:
    start = time.process_time()
    work()
    return time.process_time() - start


def _extraction_cpu(named: list[tuple[str, bool, bytes]]) -> float:
    """CPU time of the facts extractor over every file, each tree parsed untimed."""
    from domain_fence.core.source.facts import extract

    spent = 0.0
    for module, is_package, source in named:
        tree = ast.parse(source)
        began = time.process_time()
        extract(module, is_package, tree)
        spent += time.process_time() - began
    return spent


def _wall(work) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


if __name__ == "__main__":
    main(sys.argv)
