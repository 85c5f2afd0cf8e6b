"""A small project whose findings cross modules every way a check can: an event base
re-exported by a package, a hierarchy through another module, a mixin elsewhere, a
class code outside the contract lends an event, a helper one call deep (DOM105), a kind constant of another module (DOM103), a kind
given by position to an emit function another module defines (DOM103), placement
matches in allowed modules, a forbidden import; and the edits that move findings
between modules."""

from __future__ import annotations

import contextlib
import itertools
import json
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from perf_support import SETTLED, edit, settle
from support import Result, run_tool

from domain_fence.core.engine import resultcache
from domain_fence.core.engine.engine import Engine
from domain_fence.integrations.cli import main
from domain_fence.integrations.importlinter.configuration import load_configuration
from domain_fence.integrations.importlinter.session import engine_for

# Each edit settles at its own time: grimp's cache tells versions of a file apart by
# modification time only (and so would serve a stale graph after two edits at one).
_MOMENTS = itertools.count(int(SETTLED) + 60, 60)


def changed(path: Path, text: str) -> None:
    edit(path, text, when=next(_MOMENTS))


CONFIG = """\
[importlinter]
root_package = shop
contract_types =
    boundary: domain_fence.integrations.importlinter.BoundaryContract
    vocabulary: domain_fence.integrations.importlinter.VocabularyContract
    placement: domain_fence.integrations.importlinter.PlacementContract

[importlinter:contract:runtime-knows-no-experiment]
name = Runtime does not import experiment code
type = boundary
source_modules =
    shop.runtime
forbidden_modules =
    shop.experiment

[importlinter:contract:events-speak-runtime]
name = Runtime events carry no experiment vocabulary
type = vocabulary
modules =
    shop.runtime
event_bases =
    shop.runtime.base.Event
words =
    episode
emit_functions =
    *.emit_step

[importlinter:contract:declarations-speak-runtime]
name = Runtime attributes carry no experiment vocabulary
type = vocabulary
modules =
    shop.runtime
scope =
    attributes
    parameters
words =
    episode

[importlinter:contract:experiment-owns-its-machinery]
name = Experiment machinery lives under experiment
type = placement
symbols =
    init_telemetry
    configure_*
allowed_modules =
    shop.experiment
"""

FILES = {
    ".importlinter": CONFIG,
    "shop/__init__.py": "",
    "shop/runtime/__init__.py": "from shop.runtime.base import Event as Event\n",
    "shop/runtime/base.py": "class Event:\n    pass\n",
    "shop/runtime/middle.py": "class Middle:\n    pass\n",
    "shop/runtime/mixins.py": (
        "class EpisodeMixin:\n    episode_id: int = 0\n\n\nclass CountMixin:\n    episode_total: int = 0\n"
    ),
    "shop/runtime/events.py": (
        "from shop.runtime import Event\n"
        "from shop.runtime.middle import Middle\n"
        "from shop.runtime.mixins import EpisodeMixin\n\n\n"
        "class StepEvent(Event, EpisodeMixin):\n    step: int = 0\n\n\n"
        "class Later(Middle):\n    episode_tag: int = 0\n"
    ),
    "shop/runtime/helpers.py": (
        "def current_step(state):\n    return state.episode_index\n\n\ndef plain(state):\n    return state.size\n"
    ),
    "shop/runtime/emit.py": (
        "from shop.runtime.events import StepEvent\n"
        "from shop.runtime.helpers import current_step\n"
        "from shop.runtime.kinds import DONE, emit_step\n\n\n"
        'def emit(state):\n    value = current_step(state)\n    emit_step("EpisodeEnd")\n'
        "    return StepEvent(step=value, kind=DONE)\n"
    ),
    "shop/runtime/kinds.py": 'DONE = "StepDone"\n\n\ndef emit_step(kind, **fields):\n    return fields\n',
    "shop/runtime/other.py": "from shop.runtime.events import StepEvent\n\n\nclass Quiet:\n    pass\n",
    "shop/runtime/enums.py": "from enum import Enum\n\n\nclass StrKinds(str, Enum):\n    pass\n",
    "shop/runtime/valued.py": (
        "from shop.runtime.enums import StrKinds\nfrom shop.runtime.kinds import emit_step\n\n\n"
        'class Kinds(StrKinds):\n    DONE = "EpisodeDone"\n\n\ndef done():\n    emit_step(kind=Kinds.DONE.value)\n'
    ),
    "shop/runtime/leaf.py": "def area(width, height):\n    return width * height\n",
    "shop/runtime/setup.py": "def init_telemetry():\n    return None\n",
    "shop/runtime/bad.py": "from shop.experiment import runner\n\nVALUE = runner\n",
    "shop/runtime/borrowing.py": (
        "from shop.tools.lent import Lent\nfrom shop.runtime.base import Event\n\n\n"
        "class Borrowing(Event, Lent):\n    pass\n"
    ),
    "shop/experiment/__init__.py": "",
    "shop/tools/__init__.py": "",
    "shop/tools/lent.py": "class Lent:\n    size: int = 0\n",
    "shop/experiment/runner.py": "from shop.runtime import leaf\n\n\ndef init_telemetry():\n    return leaf\n",
    # After runner in module order: its pattern is matched by then, so it is never parsed.
    "shop/experiment/zlate.py": '"""Not yet: def init_telemetry() moves here."""\n',
}


def write_project(root: Path) -> Path:
    for name, text in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    settle(root)
    return root


def append(root: Path, name: str, text: str) -> None:
    path = root / name
    changed(path, path.read_text(encoding="utf-8") + text)


def replace(root: Path, name: str, old: str, new: str) -> None:
    path = root / name
    before = path.read_text(encoding="utf-8")
    assert old in before, (name, old)
    changed(path, before.replace(old, new))


def create(root: Path, name: str, text: str) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    changed(path, text)


def delete(root: Path, name: str) -> None:
    (root / name).unlink()


# Each edit, and what it changes for a module other than the one edited (or for all).
EDITS = {
    "a leaf edited": lambda root: append(root, "shop/runtime/leaf.py", "\n\ndef _added(value):\n    return value\n"),
    "a base class in another module now derives from an event": lambda root: create(
        root, "shop/runtime/middle.py", "from shop.runtime.base import Event\n\n\nclass Middle(Event):\n    pass\n"
    ),
    "an event subclass added elsewhere takes a mixin": lambda root: append(
        root,
        "shop/runtime/other.py",
        "\n\nfrom shop.runtime.mixins import CountMixin\n\n\nclass Extra(StepEvent, CountMixin):\n    pass\n",
    ),
    "a re-export renamed": lambda root: replace(
        root, "shop/runtime/__init__.py", "import Event as Event", "import Event as BaseEvent"
    ),
    "a helper's return value changed": lambda root: replace(
        root, "shop/runtime/helpers.py", "state.episode_index", "state.step_index"
    ),
    "a kind constant given in another module changed": lambda root: replace(
        root, "shop/runtime/kinds.py", "StepDone", "EpisodeDone"
    ),
    "an emit function given a kind by position takes it at another place": lambda root: replace(
        root, "shop/runtime/kinds.py", "def emit_step(kind,", 'def emit_step(source, kind="",'
    ),
    "an enumeration's base in another module decides what its members hold": lambda root: replace(
        root,
        "shop/runtime/enums.py",
        "    pass\n",
        "    @staticmethod\n    def _generate_next_value_(name, start, count, last_values):\n        return name\n",
    ),
    "a helper's lines moved": lambda root: replace(
        root, "shop/runtime/helpers.py", "def current_step", "\n\n# moved down\ndef current_step"
    ),
    "a field added to a class code outside the contract lends": lambda root: replace(
        root, "shop/tools/lent.py", "size: int = 0", "size: int = 0\n    episode_size: int = 0"
    ),
    "a class code outside the contract lends moves down": lambda root: replace(
        root, "shop/tools/lent.py", "class Lent:", "# moved down\n\n\nclass Lent:"
    ),
    "a module added": lambda root: create(
        root,
        "shop/runtime/added.py",
        "from shop.runtime.base import Event\n\n\nclass Added(Event):\n    episode_count: int = 0\n",
    ),
    "a module deleted": lambda root: delete(root, "shop/runtime/middle.py"),
    "a module made unreadable": lambda root: append(root, "shop/runtime/leaf.py", "\ndef broken(:\n"),
    "an allowed module matches a pattern": lambda root: append(
        root, "shop/experiment/runner.py", "\n\ndef configure_run():\n    return None\n"
    ),
    "an allowed module never parsed defines a matched pattern": lambda root: append(
        root, "shop/experiment/zlate.py", "\n\ndef init_telemetry():\n    return None\n"
    ),
    "an allowed match moves to a module never parsed": lambda root: (
        replace(root, "shop/experiment/runner.py", "def init_telemetry", "def start_telemetry"),
        append(root, "shop/experiment/zlate.py", "\n\ndef init_telemetry():\n    return None\n"),
    ),
    "an import made forbidden": lambda root: append(
        root, "shop/runtime/leaf.py", "\nfrom shop.experiment import runner\n"
    ),
    "a noqa comment added": lambda root: replace(
        root, "shop/runtime/events.py", "episode_tag: int = 0", "episode_tag: int = 0  # noqa: DOM101"
    ),
    "the configuration changed": lambda root: replace(
        root, ".importlinter", "words =\n    episode\n", "words =\n    episode\n    step\n"
    ),
}


def check(root: Path, *args: str) -> Result:
    """``domain-fence check`` with its caches, as a user runs it."""
    return run_tool("domain-fence", "check", "--format", "json", *args, cwd=root)


def uncached(root: Path) -> tuple[int, str]:
    """The report of a run reading every file afresh: in this process (the command is
    the same), to spare a start-up per comparison."""
    with contextlib.chdir(root):
        result = CliRunner().invoke(main, ["check", "--format", "json", "--no-cache"])
    return result.exit_code, result.stdout


def assert_same_as_uncached(root: Path) -> dict:
    """The cached run's report, asserted equal to an uncached run's."""
    cached = check(root)
    code, report = uncached(root)
    assert cached.returncode == code, (cached.output, report)
    assert json.loads(cached.stdout) == json.loads(report)
    return json.loads(report)


def checked_engine(root: Path, cache: bool = True) -> Engine:
    """The engine that checked every contract as ``domain-fence check`` does (its
    ``checked`` says which modules each contract checked)."""
    configuration = load_configuration(root / ".importlinter")
    if not cache:
        configuration.cache_dir = None
    engine = engine_for(configuration)
    engine.validate()
    engine.check()
    engine.save()
    return engine


def rewrite_stored(path: Path, change: Callable[[list[Any]], object]) -> None:
    """Change the stored results at ``path`` by hand: ``change`` is given the parts of
    their body (views, covered modules, findings, warnings, failures, answers, noqa
    comments, extra) as a list to change in place; the body is written anew, under the
    digest of its bytes, and the stored results name it."""
    body = stored_body(path)
    parts = list(pickle.loads(body.read_bytes()))
    change(parts)
    data = pickle.dumps(tuple(parts))
    name = resultcache.content_name(data)
    (path.parent / f"body-{path.stem}-{name}.pickle").write_bytes(data)
    stored = pickle.loads(path.read_bytes())
    path.write_bytes(pickle.dumps((*stored[:3], name)))


def stored_body(path: Path) -> Path:
    """The file of the body the stored results at ``path`` name."""
    return path.parent / f"body-{path.stem}-{pickle.loads(path.read_bytes())[3]}.pickle"
