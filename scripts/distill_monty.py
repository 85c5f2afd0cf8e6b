"""Distil a tbp-monty source tree into the small fixture the Monty preset's precision
test runs on (tests/fixtures/cli/monty_distilled).

Every module is kept, but only what the preset's contracts read: its imports of the
project (the boundary, and which modules only experiment code imports), the class
and function skeletons declaring names that use the vocabulary (the preset's words,
and bare ``target`` and ``step``, whose false positives the test guards against), the
methods and classes its placement symbols name, the telemetry schemas, and the
event constructions. Names, owners and parameters are the real ones, so the
fingerprints are those the preset records on the real tree.

    python scripts/distill_monty.py SRC_DIR OUT_DIR   # SRC_DIR holds tbp/monty
"""

from __future__ import annotations

import shutil
import sys
from collections import defaultdict
from pathlib import Path

from domain_fence.core.families.config import WordRule
from domain_fence.core.families.placement.definitions import definition_matches
from domain_fence.core.families.vocabulary.words import Vocabulary
from domain_fence.core.setup.presets import MONTY
from domain_fence.core.source.facts import extract
from domain_fence.core.source.modules import discover_modules
from domain_fence.core.source.reading import load_tree

ROOT = "tbp.monty"
COPIED = ("tbp/monty/telemetry/schemas.py",)  # the event bases, as they are
WORDS = {*MONTY.words, *MONTY.census_words, "target", "step"}


def vocabulary() -> Vocabulary:
    rules = [WordRule(tuple(w.split("->")[0].split())) for w in sorted(WORDS)]
    return Vocabulary.compile(rules)


class Skeleton:
    """What one module keeps: imports, then classes and functions."""

    def __init__(self) -> None:
        self.imports: list[str] = []
        self.class_members: dict[str, list[str]] = defaultdict(list)  # class -> attribute names
        self.instance_members: dict[str, list[str]] = defaultdict(list)
        self.functions: dict[str, list[str]] = {}  # qualname -> parameters
        self.calls: dict[str, list[str]] = defaultdict(list)  # qualname -> call lines
        self.classes: set[str] = set()
        self.bases: dict[str, list[str]] = {}

    def render(self) -> str:
        lines = [*self.imports, ""] if self.imports else []
        top_level = sorted({q.split(".")[0] for q in self.classes} | {q for q in self.functions if "." not in q})
        for name in top_level:
            if name in self.classes:
                lines += self._class(name, 0)
            else:
                lines += self._function(name, name, 0)
        return "\n".join(lines).rstrip() + "\n"

    def _class(self, qualname: str, depth: int) -> list[str]:
        pad = "    " * depth
        bases = ", ".join(self.bases.get(qualname, []))
        name = qualname.rsplit(".", 1)[-1]
        out = ["", f"{pad}class {name}({bases}):" if bases else f"{pad}class {name}:"]
        out += [f"{pad}    {member} = None" for member in self.class_members.get(qualname, [])]
        methods = sorted(q for q in self.functions if "." in q and q.rsplit(".", 1)[0] == qualname)
        instance = self.instance_members.get(qualname, [])
        if instance and f"{qualname}.__init__" not in methods:
            out += [f"{pad}    def __init__(self):", *(f"{pad}        self.{m} = None" for m in instance)]
        for method in methods:
            extra = instance if method.endswith(".__init__") else []
            out += self._function(method, method.rsplit(".", 1)[-1], depth + 1, extra)
        nested = sorted(q for q in self.classes if "." in q and q.rsplit(".", 1)[0] == qualname)
        for inner in nested:
            out += self._class(inner, depth + 1)
        if len(out) == 2:
            out.append(f"{pad}    pass")
        return out

    def _function(self, qualname: str, name: str, depth: int, assigned: list[str] | None = None) -> list[str]:
        pad = "    " * depth
        body = [*(f"self.{m} = None" for m in assigned or []), *self.calls.get(qualname, [])] or ["pass"]
        return [f"{pad}def {name}({', '.join(self.functions[qualname])}):", *(f"{pad}    {line}" for line in body)]


def distil(module: str, path: Path, is_package: bool, words: Vocabulary, modules: set[str]) -> str:
    facts, declared = extract(module, is_package, load_tree(path))
    skeleton = Skeleton()
    for fact in facts.imports:
        if fact.source.startswith(ROOT + ".") or fact.source == ROOT:
            line = f"import {fact.source}" if fact.name is None else f"from {fact.source} import {fact.name}"
            if line not in skeleton.imports:
                skeleton.imports.append(line)
    for member in declared.members:
        if words.match(member.name.text):
            skeleton.classes.add(member.owner)
            kept = skeleton.class_members if member.class_level else skeleton.instance_members
            kept[member.owner].append(member.name.text)
    symbols = MONTY.symbols
    for definition in declared.definitions:
        owner, _, name = definition.qualname.rpartition(".")
        placed = any(definition_matches(name, owner if definition.kind == "method" else "", s) for s in symbols)
        flagged = [p.text for p in definition.parameters if words.match(p.text)]
        if definition.kind == "class":
            if placed or words.match(name):
                skeleton.classes.add(definition.qualname)
            continue
        if flagged or placed:
            receiver = [definition.parameters[0].text] if definition.kind == "method" and definition.parameters else []
            skeleton.functions[definition.qualname] = list(dict.fromkeys([*receiver, *flagged]))
            if owner and definition.kind == "method":
                skeleton.classes.add(owner)
    for call in facts.names.calls:
        event = call.callee.rsplit(".", 1)[-1]
        if call.callee.startswith(ROOT + ".telemetry") and event.endswith(("Event", "Schema")):
            # A literal string is kept (a kind the events contract reads, DOM103); any other value is None.
            literals = {at: string.text for at, string in call.strings}
            keywords = ", ".join(
                f"{k.text}={literals[at]!r}" if at in literals else f"{k.text}=None"
                for at, k in enumerate(call.keywords)
            )
            skeleton.calls[call.scope].append(f"{event}({keywords})")
            skeleton.functions.setdefault(call.scope, ["self"] if "." in call.scope else [])
            if "." in call.scope:
                skeleton.classes.add(call.scope.rsplit(".", 1)[0])
            line = f"from {call.callee.rsplit('.', 1)[0]} import {event}"
            if line not in skeleton.imports:
                skeleton.imports.append(line)
    for qualname in list(skeleton.classes):
        parts = qualname.split(".")
        skeleton.classes.update(".".join(parts[:end]) for end in range(1, len(parts)))
    return skeleton.render()


def main(source: Path, out: Path) -> None:
    shutil.rmtree(out, ignore_errors=True)
    words = vocabulary()
    found = discover_modules(ROOT, [source / "tbp" / "monty"])
    modules = set(found)
    for module, path in sorted(found.items()):
        if not path.name.endswith(".py"):
            continue
        relative = path.relative_to(source)
        target = out / "src" / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if relative.as_posix() in COPIED:
            target.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
            continue
        target.write_text(distil(module, path, path.name == "__init__.py", words, modules), encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve())
