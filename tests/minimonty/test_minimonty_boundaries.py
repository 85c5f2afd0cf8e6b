"""Architecture invariants of the reference: runtime never sees the harness."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import minimonty.frameworks

FRAMEWORKS_DIR = Path(minimonty.frameworks.__file__).parent
FORBIDDEN = re.compile(r"episode|epoch|experiment|target|mode\b|train|eval|label|ground|terminal", re.IGNORECASE)


def framework_sources() -> list[Path]:
    sources = sorted(FRAMEWORKS_DIR.rglob("*.py"))
    assert sources, FRAMEWORKS_DIR
    return sources


def imported_modules(path: Path) -> set[str]:
    modules: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module)
    return modules


def test_frameworks_never_import_experiment() -> None:
    for path in framework_sources():
        offenders = {m for m in imported_modules(path) if m.startswith("minimonty.experiment")}
        assert not offenders, f"{path}: {offenders}"
        assert "importlib" not in imported_modules(path), path


def test_importing_frameworks_does_not_load_experiment() -> None:
    code = (
        "import sys, minimonty.frameworks.models, minimonty.frameworks.telemetry.subscribers;"
        "print(sorted(m for m in sys.modules if m.startswith('minimonty.experiment')))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30, check=True)
    assert result.stdout.strip() == "[]"


def test_frameworks_source_has_no_harness_vocabulary() -> None:
    for path in framework_sources():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            assert not FORBIDDEN.search(line), f"{path}:{number}: {line.strip()}"
