"""Helpers shared by the test modules: paths, and running the real console scripts.

A plain module rather than conftest.py: test modules import it by name, and several
conftest.py files would shadow each other in ``sys.modules``."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from domain_fence.core.source.cachedir import sealed, unsealed

REPO = Path(__file__).resolve().parents[1]
MINIMONTY_SRC = REPO / "examples" / "minimonty" / "src" / "minimonty"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
BIN = Path(sys.executable).parent

# Source the import graph's parser (grimp's) reads and the running Python cannot: an
# ``except`` naming several types without parentheses (PEP 758, Python 3.14). A file
# holding it is DOM001 for the contracts that read sources, while the graph builds.
NEWER_SYNTAX = "try:\n    pass\nexcept ValueError, TypeError:\n    pass\n"
NEWER_SYNTAX_LINE = 3
NEWER_SYNTAX_ERROR = "multiple exception types must be parenthesized"


def placement_config(package: str) -> str:
    """An .importlinter for the project ``package`` with the reference placement contract:
    ``init_telemetry`` and the post-episode handlers live under ``package``.experiment."""
    return f"""\
[importlinter]
root_package = {package}
contract_types =
    placement: domain_fence.integrations.importlinter.PlacementContract

[importlinter:contract:experiment-owns-its-telemetry]
name = init_telemetry and post-episode handlers live under experiment
type = placement
symbols =
    init_telemetry
    *PostEpisode*
allowed_modules =
    {package}.experiment
"""


PARSES_NEWER_SYNTAX = sys.version_info >= (3, 14)


@dataclass(frozen=True)
class Result:
    returncode: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def run_tool(tool: str, *args: str, cwd: Path, env: dict[str, str] | None = None) -> Result:
    """Run a console script of this environment (``lint-imports``, ``flake8``,
    ``domain-fence``) as a user would, in a subprocess, without inheriting
    PYTHONPATH tweaks of the test process."""
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    environment.update(env or {})
    completed = subprocess.run(
        [str(BIN / tool), *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return Result(completed.returncode, completed.stdout, completed.stderr)


def flake8_in_process(*argv: str, cwd: Path) -> Result:
    """flake8 with the plugin, in this process (its own ``main``, the plugin found
    through its entry point as the console script finds it), from ``cwd``; the exit
    status of a configuration the plugin refuses too. ``sys.path`` is given back as it
    was (the graph builder puts the project on it, as lint-imports does)."""
    from flake8.main.cli import main

    # flake8's formatter writes to ``sys.stdout.buffer``: a text stream over bytes.
    written, errors = io.BytesIO(), io.StringIO()
    stdout = io.TextIOWrapper(written, encoding="utf-8", newline="")
    saved = list(sys.path)
    with contextlib.chdir(cwd), contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(errors):
        try:
            status = main(list(argv))
        except SystemExit as stop:  # a configuration the plugin refuses
            status = stop.code if isinstance(stop.code, int) else 1
        finally:
            sys.path[:] = saved
        stdout.flush()
    return Result(status, written.getvalue().decode("utf-8"), errors.getvalue())


# The experiment vocabulary the annotated fixtures are written against, as a contract's
# `words` option lists it (the monty preset's words, and the census's, are narrower).
EXPERIMENT_WORDS = [
    "episode",
    "epoch",
    "experiment",
    "mode",
    "primary target",
    "target",
    "ground truth",
    "label",
    "train",
    "eval",
    "post episode",
    "terminal state -> recognized state",
]


def write_tree(root: Path, files: dict[str, str]) -> None:
    """Write each file of ``files`` (path relative to ``root``: text) below ``root``."""
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def flake8_stdin(project: Path, path: str, text: str) -> subprocess.CompletedProcess[str]:
    """flake8 on ``text`` read from stdin as ``path``, as an editor's flake8 runs it."""
    return subprocess.run(
        [str(BIN / "flake8"), "--select", "DOM", f"--stdin-display-name={path}", "-"],
        input=text,
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )


def kept_bytes(path: Path) -> bytes:
    """What a cache file behind its checksum holds (see cachedir.sealed)."""
    data = unsealed(path.read_bytes())
    assert data is not None, f"{path}: not as written"
    return data


def keep_bytes(path: Path, data: bytes) -> None:
    """``data`` written as the tool writes a cache file, behind its checksum."""
    path.write_bytes(sealed(data))


def kept_json(path: Path) -> Any:
    return json.loads(kept_bytes(path))


def keep_json(path: Path, value: Any) -> None:
    keep_bytes(path, json.dumps(value).encode("utf-8"))
