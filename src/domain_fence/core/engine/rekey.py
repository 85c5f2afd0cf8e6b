"""Baseline entries carried over a module or package rename.

Renaming a module changes the fingerprint of every finding in it, so its recorded
entries would turn stale while the same violations came back as new. An entry is
carried to a new fingerprint when the two are identical but for module names, each
old name no longer a module of the project and each new one a module of it. Renames
git detected decide first, and a module git saw deleted (not renamed) is carried by
nothing else: a violation in an unrelated new module is new. Fingerprints alone pair
what git cannot tell of (no checkout, a file it never tracked), and only one to one:
when an entry could go to two findings, or two entries to one finding, none of them
is, and the user decides.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import NamedTuple

from domain_fence.core.engine.baseline import Baseline, BaselineEntry

# A dotted name: the parts of a fingerprint that can name a module.
DOTTED = re.compile(r"(\w+(?:\.\w+)*)")


@dataclass(frozen=True, order=True)
class Rekeyed:
    """The entry of ``contract`` recorded as ``old`` now fingerprinted ``new``."""

    contract: str
    old: str
    new: str


class ModuleHistory(NamedTuple):
    """What git tells of the project's modules since a baseline was recorded."""

    renamed: Mapping[str, str]  # old module -> new module
    deleted: frozenset[str]  # modules whose file git sees deleted, renamed to nothing


def renamed_modules(old: str, new: str) -> dict[str, str] | None:
    """old name -> new name of the dotted names in which fingerprint ``old`` differs
    from ``new``; None when they differ in anything else, or name one thing twice."""
    old_parts, new_parts = DOTTED.split(old), DOTTED.split(new)
    if len(old_parts) != len(new_parts) or old == new:
        return None
    renames: dict[str, str] = {}
    for index, (before, after) in enumerate(zip(old_parts, new_parts, strict=True)):
        if before == after:
            continue
        if index % 2 == 0 or renames.get(before, after) != after:  # a separator differs, or one name two ways
            return None
        renames[before] = after
    return renames


def carried_entries(
    stale: Iterable[tuple[str, str]],
    new: Iterable[tuple[str, str]],
    modules: Collection[str],
    confirmed: Mapping[str, str] | None = None,
    only_confirmed: bool = False,
    deleted: Collection[str] = (),
) -> list[Rekeyed]:
    """The stale entries (contract, fingerprint) that a rename carries to a new finding
    (contract, fingerprint), given the project's ``modules`` now.

    ``confirmed`` holds the module renames the project's history shows (old -> new,
    from git's rename detection), ``deleted`` the modules it shows deleted: pairs it
    confirms are matched first, then, unless ``only_confirmed``, the pairs left that
    only their fingerprints join, from modules the history says nothing of.
    """
    stale, new = sorted(set(stale)), sorted(set(new))
    chosen: list[Rekeyed] = []
    if confirmed is not None:
        confirmed = {**moved_with_their_package(deleted, confirmed, modules), **confirmed}
        chosen = _one_to_one(_confirmed_pairs(stale, new, modules, confirmed))
    if only_confirmed:
        return chosen
    olds = {(p.contract, p.old) for p in chosen}
    news = {(p.contract, p.new) for p in chosen}
    rest = _candidates([s for s in stale if s not in olds], [n for n in new if n not in news], modules)
    # Where git saw a module renamed or deleted, it has said where its file went.
    told = {*(confirmed or ()), *deleted}
    return sorted(chosen + _one_to_one([pair for pair, renames in rest if not told.intersection(renames)]))


def moved_with_their_package(
    deleted: Collection[str], confirmed: Mapping[str, str], modules: Collection[str]
) -> dict[str, str]:
    """old module -> new module for each module git saw deleted from a package whose
    other files it saw moved (``confirmed``): a package renamed whose module was edited
    past git's rename detection (its imports of the package's new name, say). Moved with
    them, where the new package holds its name now; a package whose files went two ways
    tells nothing."""
    targets: dict[str, set[str]] = defaultdict(set)
    for old, new in confirmed.items():
        before, after = old.split("."), new.split(".")
        while len(before) > 1 and len(after) > 1 and before[-1] == after[-1]:
            before, after = before[:-1], after[:-1]  # ``a.old.util -> a.new.util``: ``a.old -> a.new``
        targets[".".join(before)].add(".".join(after))
    moved = {}
    for module in deleted:
        parts = module.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            package = targets.get(".".join(parts[:cut]))
            if package is not None:
                if len(package) == 1:
                    candidate = ".".join([*next(iter(package)).split("."), *parts[cut:]])
                    if candidate in modules:
                        moved[module] = candidate
                break  # the innermost package moved decides
    return moved


def _confirmed_pairs(
    stale: list[tuple[str, str]], new: list[tuple[str, str]], modules: Collection[str], confirmed: Mapping[str, str]
) -> list[Rekeyed]:
    """The stale entries whose fingerprint, with the confirmed renames applied, is a new one."""
    present = set(new)
    pairs = []
    for contract, old in stale:
        parts = DOTTED.split(old)
        renamed = "".join(confirmed.get(part, part) if i % 2 else part for i, part in enumerate(parts))
        renames = renamed_modules(old, renamed)
        if (
            (contract, renamed) in present
            and renames
            and all(o not in modules and n in modules for o, n in renames.items())
        ):
            pairs.append(Rekeyed(contract, old, renamed))
    return pairs


def _candidates(
    stale: Iterable[tuple[str, str]], new: Iterable[tuple[str, str]], modules: Collection[str]
) -> list[tuple[Rekeyed, dict[str, str]]]:
    """Every (stale, new) pair of a contract whose fingerprints differ only in module
    names gone from the project and names of its modules, with those renames."""
    # A new fingerprint can only pair with an old one equal to it in every name that is
    # not a module of the project: index the new ones by those names.
    index: dict[tuple[str, tuple[str, ...]], dict[tuple[int, ...], dict[tuple[str, ...], list[str]]]] = {}
    for contract, fingerprint in sorted(set(new)):
        separators, names = _split(fingerprint)
        masked = tuple(i for i, name in enumerate(names) if name in modules)
        key = tuple(name for i, name in enumerate(names) if i not in masked)
        index.setdefault((contract, separators), {}).setdefault(masked, {}).setdefault(key, []).append(fingerprint)
    candidates = []
    for contract, old in sorted(set(stale)):
        separators, names = _split(old)
        for masked, by_key in index.get((contract, separators), {}).items():
            key = tuple(name for i, name in enumerate(names) if i not in masked)
            for fingerprint in by_key.get(key, ()):
                renames = renamed_modules(old, fingerprint)
                if renames and all(o not in modules and n in modules for o, n in renames.items()):
                    candidates.append((Rekeyed(contract, old, fingerprint), renames))
    return sorted(candidates, key=lambda candidate: candidate[0])


def _split(fingerprint: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The separators and the dotted names of ``fingerprint``."""
    parts = DOTTED.split(fingerprint)
    return tuple(parts[::2]), tuple(parts[1::2])


def _one_to_one(pairs: list[Rekeyed]) -> list[Rekeyed]:
    """The pairs whose old and new fingerprints are in no other pair."""
    olds = _counts((p.contract, p.old) for p in pairs)
    news = _counts((p.contract, p.new) for p in pairs)
    return [p for p in pairs if olds[p.contract, p.old] == 1 and news[p.contract, p.new] == 1]


def _counts(keys: Iterable[tuple[str, str]]) -> dict[tuple[str, str], int]:
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for key in keys:
        counts[key] += 1
    return counts


def module_renames(file_renames: Mapping[str, str], module_of: Mapping[str, str]) -> dict[str, str]:
    """old module -> new module for each renamed file (old path -> new path, posix,
    relative to one directory) whose new path is the module ``module_of[new path]``:
    the old module is named by the old path as the new module is by the new one. A
    package renamed is its ``__init__.py`` and each of its modules renamed."""
    modules: dict[str, str] = {}
    for old_path, new_path in sorted(file_renames.items()):
        module = module_of.get(new_path)
        if module is None:
            continue
        old_module = _module_like(old_path, new_path, module)
        if old_module is not None and old_module != module:
            modules[old_module] = module
    return modules


def deleted_modules(deleted: Iterable[str], module_of: Mapping[str, str]) -> frozenset[str]:
    """The modules the deleted files (posix paths relative to one directory) were, named
    as the project's modules (``module_of``: path -> module) are from their source
    directories; a file in no such directory was none."""
    bases = set()
    for path, module in module_of.items():
        parts, depth = _module_parts(path), len(module.split("."))
        if parts is not None and len(parts) >= depth:
            bases.add(tuple(parts[: len(parts) - depth]))
    modules = set()
    for path in deleted:
        parts = _module_parts(path)
        for base in bases:
            if parts is not None and len(parts) > len(base) and tuple(parts[: len(base)]) == base:
                modules.add(".".join(parts[len(base) :]))
    return frozenset(modules)


def _module_like(old_path: str, new_path: str, module: str) -> str | None:
    new_parts = _module_parts(new_path)
    old_parts = _module_parts(old_path)
    depth = len(module.split("."))
    if new_parts is None or old_parts is None or len(new_parts) < depth or len(old_parts) < depth:
        return None
    base = new_parts[: len(new_parts) - depth]
    if old_parts[: len(base)] != base or len(old_parts) - len(base) < 1:
        return None  # moved to another source directory: not the same kind of name
    return ".".join(old_parts[len(base) :])


def _module_parts(path: str) -> list[str] | None:
    """``src/pkg/mod.py`` -> [src, pkg, mod]; ``pkg/__init__.py`` -> [pkg]."""
    parts = path.split("/")
    name = parts[-1]
    if name.endswith(".pyi"):
        stem = name[: -len(".pyi")]
    elif name.endswith(".py"):
        stem = name[: -len(".py")]
    else:
        return None
    return parts[:-1] if stem == "__init__" else [*parts[:-1], stem]


@dataclass(frozen=True)
class Changes:
    """What changed between two versions of one baseline, an entry carried over a
    rename counted once, as re-keyed."""

    added: tuple[BaselineEntry, ...]
    pruned: tuple[BaselineEntry, ...]
    rekeyed: tuple[Rekeyed, ...]


def changes(
    before: Baseline,
    after: Baseline,
    modules: Collection[str],
    confirmed: Mapping[str, str] | None = None,
    only_confirmed: bool = False,
    deleted: Collection[str] = (),
) -> Changes:
    """The entries ``after`` added to and pruned from ``before``, with those a rename
    carried (see :func:`carried_entries`) apart."""
    old = {(e.contract, e.fingerprint): e for e in before.entries}
    new = {(e.contract, e.fingerprint): e for e in after.entries}
    gone = [key for key in old if key not in new]
    came = [key for key in new if key not in old]
    rekeyed = carried_entries(gone, came, modules, confirmed, only_confirmed, deleted)
    moved_from = {(r.contract, r.old) for r in rekeyed}
    moved_to = {(r.contract, r.new) for r in rekeyed}
    return Changes(
        added=tuple(sorted(new[key] for key in came if key not in moved_to)),
        pruned=tuple(sorted(old[key] for key in gone if key not in moved_from)),
        rekeyed=tuple(sorted(rekeyed)),
    )


def might_carry(before: Baseline, after: Baseline) -> bool:
    """Whether some contract lost an entry and gained one: only then can a rename have
    carried one (and is the project's history worth asking about renames)."""
    old = {(e.contract, e.fingerprint) for e in before.entries}
    new = {(e.contract, e.fingerprint) for e in after.entries}
    return bool({c for c, _ in old - new} & {c for c, _ in new - old})


def change_lines(change: Changes) -> list[str]:
    """One indented line per entry added, pruned or re-keyed, in that order."""
    lines = [f"  added {e.contract} {e.fingerprint}" for e in change.added]
    lines += [f"  pruned {e.contract} {e.fingerprint}" for e in change.pruned]
    lines += [f"  re-keyed {r.contract} {r.old}, now {r.new}" for r in change.rekeyed]
    return lines
