"""The tools under test: their environments, command lines and caches.

domain-fence, import-linter and flake8-with-the-plugin run from the interpreter that
runs the benchmark (the project's environment). tach, ruff, pytest-archon and a
plugin-free flake8 are installed from PyPI, pinned, into their own virtual
environments under ``benchmarks/.work/venvs``.
"""

from __future__ import annotations

import importlib.metadata
import os
import shlex
import shutil
import subprocess
import sys
import venv
from dataclasses import dataclass, field
from pathlib import Path

from .corpora import Corpus

PINS = {
    "tach": ("tach==0.35.3",),
    "ruff": ("ruff==0.17.6",),
    "archon": ("pytest-archon==0.0.7", "pytest==9.2.0"),
}
FLAKE8_DISTRIBUTIONS = ("flake8", "pycodestyle", "pyflakes", "mccabe")
FLAKE8_ARGS = ("--extend-select", "DOM", "src")
# domain-fence's front ends all cache in .domain_fence_cache unless this says otherwise:
# each row gets its own, so one row's runs never warm (or clear) another's cache.
FENCE_CACHE_ENV = "DOMAIN_FENCE_CACHE_DIR"


@dataclass(frozen=True)
class Tool:
    name: str
    argv: tuple[str, ...]
    caches: tuple[str, ...] = ()  # relative to the corpus root; deleted for cold runs
    note: str = ""
    skip: str = ""  # why it cannot run here, if it cannot
    must_print: str = ""  # a run that did its job prints this (lint-imports exits 1 on crashes too)
    must_not_print: str = ""  # ... and never this (flake8 exits 1 when a plugin crashes)
    env: tuple[tuple[str, str], ...] = ()  # extra environment, e.g. a cache directory of its own

    def failure(self, exit_status: int, output: str) -> str | None:
        """Why a run did not do its job (exit statuses 0 and 1 mean kept and broken)."""
        if exit_status not in (0, 1):
            return f"exit status {exit_status}: {_last_line(output)}"
        if self.must_print and self.must_print not in output:
            return f"crashed: {_last_line(output)}"
        if self.must_not_print and self.must_not_print in output:
            crash = next(line for line in output.splitlines() if self.must_not_print in line)
            return f"crashed: {crash.strip()[:160]}"
        return None

    def command(self) -> list[str]:
        return list(self.argv)

    def shell_line(self, shorten=lambda text: text) -> str:
        """The command as one would type it, extra environment first."""
        words = [f"{name}={value}" for name, value in self.env] + [shorten(a) for a in self.argv]
        return shlex.join(words)

    def clear_caches(self, root: Path) -> None:
        for cache in self.caches:
            shutil.rmtree(root / cache, ignore_errors=True)


@dataclass
class Environments:
    """Where each tool's executables live, and what this checkout can run."""

    work: Path
    project_bin: Path = field(default_factory=lambda: Path(sys.executable).parent)
    venvs: dict[str, Path] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)

    def prepare(self, names: set[str]) -> None:
        """Create (once) and pin the third-party tools' virtual environments."""
        wanted = {"tach": "tach", "ruff": "ruff", "pytest-archon": "archon", "flake8": "flake8"}
        flake8_pins = tuple(f"{d}=={importlib.metadata.version(d)}" for d in FLAKE8_DISTRIBUTIONS)
        for tool, venv_name in wanted.items():
            if tool in names:
                pins = flake8_pins if venv_name == "flake8" else PINS[venv_name]
                self.venvs[venv_name] = ensure_venv(self.work / "venvs" / venv_name, pins)
                self.versions[tool] = ", ".join(pins)
        for distribution in ("domain-fence", "import-linter", "grimp", "flake8"):
            self.versions.setdefault(distribution, f"{distribution}=={importlib.metadata.version(distribution)}")

    def venv_bin(self, name: str) -> Path:
        return self.venvs[name] / "bin"


def ensure_venv(path: Path, pins: tuple[str, ...]) -> Path:
    stamp = path / "benchmark-pins.txt"
    wanted = "\n".join(pins) + "\n"
    if stamp.is_file() and stamp.read_text() == wanted:
        return path
    shutil.rmtree(path, ignore_errors=True)
    print(f"creating {path} with {' '.join(pins)}", flush=True)
    venv.EnvBuilder(with_pip=True, clear=True).create(path)
    subprocess.run(
        [str(path / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *pins],
        check=True,
    )
    stamp.write_text(wanted)
    return path


def fence_check_options(project_bin: Path) -> tuple[str | None, tuple[str, ...]]:
    """Whether ``domain-fence check`` exists here, and how to point it at a file."""
    result = subprocess.run([str(project_bin / "domain-fence"), "check", "--help"], capture_output=True, text=True)
    if result.returncode != 0:
        return "`domain-fence check` is not available in this checkout", ()
    return None, ("--config", ".importlinter") if "--config" in result.stdout else ()


def fence_families() -> tuple[tuple[str, ...], str]:
    """The contract families whose classes import, and a note on any that do not."""
    families, missing = ["boundary"], []
    for family, cls in (("vocabulary", "VocabularyContract"), ("placement", "PlacementContract")):
        try:
            module = __import__("domain_fence.integrations.importlinter", fromlist=[cls])
            getattr(module, cls)
            families.append(family)
        except (ImportError, AttributeError):
            missing.append(family)
    note = f"without {' and '.join(missing)} (contract class not importable yet)" if missing else ""
    return tuple(families), note


def dom_plugin_registered() -> bool:
    return any(e.name == "DOM" for e in importlib.metadata.entry_points(group="flake8.extension"))


def build_tools(envs: Environments, names: set[str], families_note: str) -> list[Tool]:
    project = envs.project_bin
    tools: list[Tool] = []
    if "domain-fence" in names:
        skip, options = fence_check_options(project)
        tools.append(
            Tool(
                "domain-fence",
                (str(project / "domain-fence"), "check", *options),
                caches=(".import_linter_cache", ".domain_fence_cache"),
                note=families_note,
                skip=skip or "",
            )
        )
    if "lint-imports" in names:
        tools.append(
            Tool(
                "lint-imports",
                (str(project / "lint-imports"), "forbidden.ini", "--cache-dir", ".lint_imports_cache"),
                caches=(".lint_imports_cache",),
                note="forbidden contract alone: the reference",
                must_print="Contracts:",
            )
        )
    if "lint-imports+fence" in names:
        tools.append(
            Tool(
                "lint-imports+fence",
                (str(project / "lint-imports"), ".importlinter", "--cache-dir", ".lint_imports_fence_cache"),
                caches=(".lint_imports_fence_cache", ".lint_imports_fence_facts"),
                env=((FENCE_CACHE_ENV, ".lint_imports_fence_facts"),),
                note="our contracts run by lint-imports " + (families_note or "(all three families)"),
                must_print="Contracts:",
            )
        )
    if "flake8" in names:
        tools.append(
            Tool(
                "flake8",
                (str(envs.venv_bin("flake8") / "flake8"), *FLAKE8_ARGS),
                note="same flake8 and checkers, in a venv without domain-fence",
                must_not_print="failed during execution",
            )
        )
        plugin = dom_plugin_registered()
        tools.append(
            Tool(
                "flake8+DOM",
                (str(project / "flake8"), *FLAKE8_ARGS),
                caches=(".flake8_dom_facts",),
                env=((FENCE_CACHE_ENV, ".flake8_dom_facts"),),
                note="with the domain-fence plugin" if plugin else "DOM plugin NOT registered: same as flake8",
                must_not_print="failed during execution",
            )
        )
    if "tach" in names:
        tools.append(
            Tool("tach", (str(envs.venv_bin("tach") / "tach"), "check"), note="direct imports only; no cache for check")
        )
    if "ruff" in names:
        tools.append(
            Tool(
                "ruff",
                (
                    str(envs.venv_bin("ruff") / "ruff"),
                    "check",
                    "--select",
                    "TID251",
                    "--output-format",
                    "concise",
                    "src",
                ),
                caches=(".ruff_cache",),
                note="TID251 banned-api; direct absolute imports only",
            )
        )
    if "pytest-archon" in names:
        tools.append(
            Tool(
                "pytest-archon",
                (
                    str(envs.venv_bin("archon") / "python"),
                    "-m",
                    "pytest",
                    "-q",
                    "-p",
                    "no:cacheprovider",
                    "test_boundary_archon.py",
                ),
                note="transitive (its default); no cache",
            )
        )
    return tools


TOOL_NAMES = ("domain-fence", "lint-imports", "lint-imports+fence", "flake8", "tach", "ruff", "pytest-archon")


def tool_environment(corpus: Corpus, tool: Tool | None = None) -> dict[str, str]:
    env = dict(os.environ)
    # PYTHONDONTWRITEBYTECODE: an editable install would be compiled again on every run.
    for name in ("PYTHONSTARTUP", "PYTHONDONTWRITEBYTECODE", FENCE_CACHE_ENV, "DOMAIN_FENCE_NO_CACHE"):
        env.pop(name, None)
    env["PYTHONPATH"] = str(corpus.src)
    env.update(dict(tool.env) if tool else {})
    return env


def _last_line(output: str) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return lines[-1][:160] if lines else "(no output)"
