"""The Monty corpus: ``tbp.monty`` as published on PyPI (the sdist), x1 and xN.

domain-fence is written for this codebase, so this corpus is checked with exactly the
contracts ``domain-fence init --preset monty`` writes for it (boundary, events
vocabulary, census, placement) and the baseline it records. lint-imports gets the
same boundary as import-linter's ``forbidden`` contract, with the baseline's edges as
``ignore_imports`` (what the baseline does to our boundary), so both do the same
graph work.

``monty-xN`` holds N renamed copies of the code *inside* each package the preset
names (``tbp.monty.frameworks.models.c01 ... cNN``, ``tbp.monty.telemetry.c01``...;
a preset module such as ``tbp.monty.math`` becomes a package of N modules), with every
import rewritten to its own copy: the contracts keep their size while the code they
cover grows N times, as for the Django trees. Files outside those packages
(``tbp.monty.conf``) are kept once and import copy ``c01``. Relative imports are made
absolute first, so none climbs out of its copy.
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

from domain_fence.core.setup.presets import MONTY

from .corpora import Corpus, _reset, _stale, _stamp, rewrite_nodes
from .spec import RuleSpec

MONTY_VERSION = "0.55.0"
RECIPE = "2"  # bump when the generated trees change shape
PACKAGE_DIR = Path("tbp") / "monty"
BOUNDARY_BASELINE = ".boundary-baseline.json"  # boundary.ini's
MONTY_TOOLS = ("domain-fence", "lint-imports", "lint-imports+fence", "flake8")


def monty(work: Path, scale: int, source: Path | None = None) -> Corpus:
    """``monty-x<scale>``: built once from the sdist (downloaded when absent, or the
    unpacked sdist at ``source``), then reused while the recipe is unchanged."""
    root = work / "corpora" / f"monty-x{scale}"
    stamp = f"{RECIPE} tbp-monty=={MONTY_VERSION} x{scale}"
    if _stale(root, stamp):
        _reset(root)
        package = _package_source(work, source)
        files = {p.relative_to(package).as_posix(): p.read_text(encoding="utf-8") for p in package.rglob("*.py")}
        copies = [f"c{i:02d}" for i in range(1, scale + 1)]
        units = _units(files)
        for relative, text in sorted(_copies(files, units, copies).items()):
            path = root / "src" / PACKAGE_DIR / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        _write_configuration(root)
        _stamp(root, stamp)
    return Corpus(f"monty-x{scale}", root, _spec(root), scale=scale, tools=MONTY_TOOLS, written=True)


def _package_source(work: Path, source: Path | None) -> Path:
    """The ``tbp/monty`` directory of the unpacked sdist."""
    if source is not None:
        return Path(source) / "src" / PACKAGE_DIR
    unpacked = work / "downloads" / f"tbp_monty-{MONTY_VERSION}"
    if not unpacked.is_dir():
        downloads = work / "downloads"
        archives = sorted(downloads.glob(f"tbp_monty-{MONTY_VERSION}.tar.gz"))
        if not archives:
            downloads.mkdir(parents=True, exist_ok=True)
            subprocess.run(
                [
                    *(sys.executable, "-m", "pip", "download", "--quiet", "--no-binary", ":all:", "--no-deps"),
                    *("--dest", str(downloads), f"tbp-monty=={MONTY_VERSION}"),
                ],
                check=True,
            )
            archives = sorted(downloads.glob(f"tbp_monty-{MONTY_VERSION}.tar.gz"))
        with tarfile.open(archives[0]) as archive:
            archive.extractall(downloads, filter="data")
    return unpacked / "src" / PACKAGE_DIR


# The runtime packages of Monty 0.55 the copies are made in (the preset itself says
# "everything but the experiment", which names none of them).
RUNTIME_UNITS = (
    *(
        f"tbp.monty.frameworks.{name}"
        for name in ("models", "environments", "environment_utils", "actions", "agents", "sensors", "utils")
    ),
    "tbp.monty.simulators",
    *(
        f"tbp.monty.{name}"
        for name in (
            *("cmp", "context", "runtime", "geometry", "math", "memento", "path"),
            *("attention", "sensor_modules", "observations"),
        )
    ),
    "tbp.monty.frameworks.telemetry",
    "tbp.monty.telemetry",
)


def _units(files: dict[str, str]) -> list[str]:
    """The modules and packages the preset names that the sdist has, as dotted names
    below ``tbp.monty`` (``frameworks.models``, ``math``)."""
    present = {relative.removesuffix(".py").removesuffix("/__init__").replace("/", ".") for relative in files}
    units = []
    for name in (*RUNTIME_UNITS, *MONTY.experiment):
        below = name.removeprefix("tbp.monty.")
        if below.endswith("*"):
            parent, _, prefix = below[:-1].rpartition(".")
            units += sorted(
                m for m in present if m.rpartition(".")[0] == parent and m.rpartition(".")[2].startswith(prefix)
            )
        elif below in present:
            units.append(below)
    return sorted(set(units))


def _unit_of(relative_module: str, units: list[str]) -> str | None:
    return next((u for u in units if relative_module == u or relative_module.startswith(u + ".")), None)


def _copies(files: dict[str, str], units: list[str], copies: list[str]) -> dict[str, str]:
    """Relative path below tbp/monty -> text, for every copy."""
    written: dict[str, str] = {}
    for relative, text in files.items():
        is_package = relative.endswith("__init__.py")
        module = relative.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        unit = _unit_of(module, units) if module else None
        if unit is None:
            written[relative] = rename_imports(text, module, is_package, units, copies[0])
            continue
        rest = module[len(unit) + 1 :] if module != unit else ""
        for copy in copies:
            target = f"{unit}.{copy}" + (f".{rest}" if rest else "")
            path = target.replace(".", "/") + ("/__init__.py" if is_package else ".py")
            written[path] = rename_imports(text, module, is_package, units, copy)
    for unit in units:  # a preset module becomes the package of its copies
        written.setdefault(unit.replace(".", "/") + "/__init__.py", f'"""Copies of tbp.monty.{unit}."""\n')
    return written


def rename_imports(source: str, module: str, is_package: bool, units: list[str], copy: str) -> str:
    """Point every import of a preset unit at ``copy`` of it; relative imports are made
    absolute first. Statements are rewritten whole, one line each."""
    scope = f"tbp.monty.{module}" if module else "tbp.monty"
    return rewrite_nodes(source, lambda node: _renamed(node, scope, is_package, units, copy))


def _renamed(node: ast.AST, module: str, is_package: bool, units: list[str], copy: str) -> str | None:
    if isinstance(node, ast.Import):
        names = [(_renamed_module(a.name, units, copy), a) for a in node.names]
        if all(renamed is None for renamed, _ in names):
            return None
        return "import " + ", ".join(_alias(renamed or a.name, a.asname) for renamed, a in names)
    if not isinstance(node, ast.ImportFrom):
        return None
    source = _absolute(node, module, is_package)
    if source is None:
        return None
    renamed = _renamed_module(source, units, copy)
    if renamed is not None:
        return f"from {renamed} import " + ", ".join(_alias(a.name, a.asname) for a in node.names)
    below = source.removeprefix("tbp.monty").lstrip(".")
    moved = [a for a in node.names if (f"{below}.{a.name}" if below else a.name) in units]
    if not moved:
        return (
            None
            if node.level == 0
            else f"from {source} import " + ", ".join(_alias(a.name, a.asname) for a in node.names)
        )
    kept = [a for a in node.names if a not in moved]
    statements = [f"from {source}.{a.name} import {copy} as {a.asname or a.name}" for a in moved]
    if kept:
        statements.append(f"from {source} import " + ", ".join(_alias(a.name, a.asname) for a in kept))
    return "; ".join(statements)


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str | None:
    if node.level == 0:
        return node.module
    parts = module.split(".")
    base = parts if is_package else parts[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _renamed_module(name: str, units: list[str], copy: str) -> str | None:
    if not name.startswith("tbp.monty."):
        return None
    below = name.removeprefix("tbp.monty.")
    unit = _unit_of(below, units)
    if unit is None:
        return None
    return f"tbp.monty.{unit}.{copy}" + below[len(unit) :]


def _alias(name: str, asname: str | None) -> str:
    return f"{name} as {asname}" if asname else name


def _write_configuration(root: Path) -> None:
    """What ``domain-fence init --preset monty`` writes, then the same boundary for
    lint-imports (``forbidden.ini``) and for domain-fence alone (``boundary.ini``)."""
    domain_fence = Path(sys.executable).with_name("domain-fence")
    subprocess.run([str(domain_fence), "init", "--preset", "monty"], cwd=root, check=True, capture_output=True)
    (root / ".flake8").write_text("# The benchmark passes its options on the command line.\n[flake8]\n")
    for cache in (".domain_fence_cache", ".import_linter_cache"):
        shutil.rmtree(root / cache, ignore_errors=True)
    spec = _spec(root)
    baseline = json.loads((root / ".domain-fence-baseline.json").read_text())
    edges = sorted(
        entry["fingerprint"].removeprefix("boundary:").replace("->", " -> ")
        for entry in baseline["entries"]
        if entry["fingerprint"].startswith("boundary:")
    )
    session = "[importlinter]\nroot_packages =\n    tbp.monty\n"
    forbidden = (
        session
        + "\n[importlinter:contract:runtime-knows-no-experiment]\nname = Runtime code does not import experiment code\n"
        + "type = forbidden\n"
        + _lines("source_modules", spec.sources)
        + _lines("forbidden_modules", spec.forbidden)
        + _lines("ignore_imports", tuple(edges))
    )
    (root / "forbidden.ini").write_text(forbidden)
    boundary = (
        session
        + "contract_types =\n    boundary: domain_fence.integrations.importlinter.BoundaryContract\n"
        + "\n[importlinter:contract:runtime-knows-no-experiment]\nname = Runtime code does not import experiment code\n"
        + "type = boundary\n"
        + _lines("source_modules", spec.sources)
        + _lines("forbidden_modules", spec.forbidden)
        + f"baseline = {BOUNDARY_BASELINE}\n"
    )
    (root / "boundary.ini").write_text(boundary)
    # Its own baseline, as a project configured with this contract alone has: the
    # shared one's entries of the other contracts would each be reported as stale.
    shutil.copyfile(root / ".domain-fence-baseline.json", root / BOUNDARY_BASELINE)
    prune = [str(domain_fence), "baseline", "--prune", "--no-cache", "--config", "boundary.ini"]
    subprocess.run(prune, cwd=root, check=True, capture_output=True)


def _lines(key: str, values: tuple[str, ...]) -> str:
    return f"{key} =\n" + "".join(f"    {v}\n" for v in values)


def _spec(root: Path) -> RuleSpec:
    """The rules init wrote, read back from its .importlinter."""
    import configparser

    parser = configparser.ConfigParser()
    parser.read(root / ".importlinter")

    def values(section: str, key: str) -> tuple[str, ...]:
        return tuple(line.strip() for line in parser.get(section, key, fallback="").splitlines() if line.strip())

    boundary = "importlinter:contract:runtime-knows-no-experiment"
    vocabulary = "importlinter:contract:runtime-events-speak-runtime"
    placement = "importlinter:contract:experiment-owns-its-machinery"
    return RuleSpec(
        root_packages=("tbp.monty",),
        sources=values(boundary, "source_modules"),
        forbidden=values(boundary, "forbidden_modules"),
        vocabulary_modules=values(vocabulary, "modules"),
        event_bases=values(vocabulary, "event_bases"),
        words=values(vocabulary, "words"),
        placement_symbols=values(placement, "symbols"),
        placement_allowed=values(placement, "allowed_modules"),
        boundary_name=parser.get(boundary, "name", fallback=""),
        vocabulary_name=parser.get(vocabulary, "name", fallback=""),
        placement_name=parser.get(placement, "name", fallback=""),
    )
