"""The ratchet in review: a baseline may only shrink.

``domain-fence check --ratchet-since REV`` reads each baseline file as it was at the
git revision REV (a pull request's base) and fails on every entry the working tree's
holds that REV's did not: a branch that re-records its baseline accepts its own new
violations, and this is where a reviewer sees them. An entry carried over a module
rename (git's rename detection between REV and the working tree confirms it) is not
added. ``domain-fence baseline`` prints the same kind of list for what it changes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from domain_fence.core.engine.baseline import Baseline, BaselineEntry, load_baseline, parse_baseline
from domain_fence.core.engine.rekey import changes, might_carry, module_renames
from domain_fence.core.index.project import ProjectIndex
from domain_fence.core.model.report import baseline_entry_lines

from .gitrepo import GitError, last_commit_touching, renamed_files, repository_root, resolve_revision, show_file
from .reporters.github import escape_data, escape_property

if TYPE_CHECKING:
    from domain_fence.integrations.importlinter.configuration import Configuration


class ReviewError(Exception):
    """The comparison cannot be made (no git checkout, an unknown revision); one line."""


@dataclass(frozen=True, order=True)
class AddedEntry:
    """An entry of the baseline file ``path`` (shown relative to the project root) at
    ``line`` that the file did not hold at the revision compared with."""

    path: str
    line: int
    entry: BaselineEntry


def baseline_files(configuration: Configuration) -> list[Path]:
    paths: set[Path] = {contract.config.baseline.path for contract in configuration.fence_contracts()}
    return sorted(paths)


def entries_added_since(configuration: Configuration, revision: str) -> list[AddedEntry]:
    """Every baseline entry of ``configuration`` added since git ``revision``."""
    root = configuration.root.resolve()
    top = repository_root(root)
    if top is None:
        raise ReviewError(f"{configuration.path}: comparing baselines with {revision!r} needs a git checkout")
    try:
        commit = resolve_revision(top, revision)
    except GitError as error:
        raise ReviewError(str(error)) from None
    versions = [
        (path, baseline_at(top, commit, revision, path), load_baseline(path)) for path in baseline_files(configuration)
    ]
    index = ProjectIndex.build(root, configuration.root_packages, cache_dir=None)
    confirmed: dict[str, str] = {}
    if any(might_carry(before, current) for _, before, current in versions):  # git's rename detection costs
        try:
            confirmed = project_module_renames(index, top, renamed_files(top, commit))
        except GitError as error:
            raise ReviewError(str(error)) from None
    added: list[AddedEntry] = []
    for path, before, current in versions:
        fresh = changes(before, current, index.modules, confirmed, only_confirmed=True)
        shown = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
        lines = baseline_entry_lines(_text(path))
        added += [AddedEntry(shown, lines.get((e.contract, e.fingerprint), 1), e) for e in fresh.added]
    return sorted(added)


def baseline_at(top: Path, commit: str, revision: str, path: Path) -> Baseline:
    """The baseline file ``path`` as it was at ``commit`` (empty when it did not exist)."""
    resolved = path.resolve()
    if not resolved.is_relative_to(top):
        raise ReviewError(f"{path}: the baseline is outside the git checkout at {top}")
    relative = resolved.relative_to(top).as_posix()
    try:
        data = show_file(top, commit, relative)
    except GitError as error:
        raise ReviewError(str(error)) from None
    return parse_baseline(data, Path(f"{revision}:{relative}")) if data is not None else Baseline(path)


def renames_since_recorded(root: Path, baseline: Path, index: ProjectIndex) -> dict[str, str] | None:
    """The module renames git sees between the commit that last changed ``baseline``
    and the working tree; None outside a git checkout (or before its first commit)."""
    top = repository_root(root)
    resolved = baseline.resolve()
    if top is None or not resolved.is_relative_to(top):
        return None
    commit = last_commit_touching(top, resolved.relative_to(top).as_posix())
    if commit is None:
        return None
    try:
        return project_module_renames(index, top, renamed_files(top, commit))
    except GitError:
        return None


def project_module_renames(index: ProjectIndex, top: Path, renamed: Mapping[str, str]) -> dict[str, str]:
    """old module -> new module for the project's files git sees renamed."""
    module_of = {}
    for module, file in index.modules.items():
        resolved = file.resolve()
        if resolved.is_relative_to(top):
            module_of[resolved.relative_to(top).as_posix()] = module
    return module_renames(renamed, module_of)


def ratchet_report(added: Iterable[AddedEntry], revision: str, annotate: Callable[[AddedEntry], str] | None) -> str:
    """The lines that fail the check: each added entry, then what to do about them."""
    added = list(added)
    if not added:
        return ""
    describe = annotate or (lambda a: f"{a.path}:{a.line}: {added_message(a, revision)}")
    entries = "entry" if len(added) == 1 else "entries"
    lines = [describe(a) for a in added]
    lines.append(
        f"domain-fence: {len(added)} baseline {entries} added since {revision}: "
        "fix the new findings instead of recording them"
    )
    return "".join(line + "\n" for line in lines)


def github_annotation(added: AddedEntry, revision: str, prefix: str) -> str:
    """An ``::error`` on the added entry's line of the baseline file."""
    properties = f"file={escape_property(prefix + added.path)},line={added.line},title=baseline"
    return f"::error {properties}::{escape_data(added_message(added, revision))}"


def added_message(added: AddedEntry, revision: str) -> str:
    return f"baseline entry added since {revision}: {added.entry.contract} {added.entry.fingerprint}"


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return ""
