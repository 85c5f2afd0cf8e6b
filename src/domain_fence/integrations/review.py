"""The ratchet in review: a baseline may only shrink.

``domain-fence check --ratchet-since REV`` reads each baseline file as it was at the
git revision REV (a pull request's base) and fails on every entry the working tree's
holds that REV's did not: a branch that re-records its baseline accepts its own new
violations, and this is where a reviewer sees them. An entry carried over a module
rename (git's rename detection between REV and the working tree confirms it) is not
added. What it finds goes into the report (:class:`~..core.model.report.Ratchet`),
which every format renders. ``domain-fence baseline`` prints the same kind of list
for what it changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from domain_fence.core.engine.baseline import Baseline, load_baseline, parse_baseline
from domain_fence.core.engine.rekey import ModuleHistory, changes, deleted_modules, might_carry, module_renames
from domain_fence.core.index.project import ProjectIndex
from domain_fence.core.model.findings import Finding
from domain_fence.core.model.report import Ratchet, added_finding, baseline_entry_lines

from .gitrepo import (
    GitError,
    file_changes,
    last_commit_touching,
    repository_root,
    resolve_revision,
    show_file,
)

if TYPE_CHECKING:
    from domain_fence.integrations.importlinter.configuration import Configuration


class ReviewError(Exception):
    """The comparison cannot be made (no git checkout, an unknown revision); one line."""


def baseline_files(configuration: Configuration) -> list[Path]:
    paths: set[Path] = {contract.config.baseline.path for contract in configuration.fence_contracts()}
    return sorted(paths)


def ratchet_since(configuration: Configuration, revision: str) -> Ratchet:
    """Every baseline entry of ``configuration`` added since git ``revision``, each a
    DOM003 finding at its line of the baseline file."""
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
    deleted: frozenset[str] = frozenset()
    if any(might_carry(before, current) for _, before, current in versions):  # git's rename detection costs
        try:
            files = file_changes(top, commit)
        except GitError as error:
            raise ReviewError(str(error)) from None
        module_of = _module_of(index, top)
        confirmed, deleted = module_renames(files.renamed, module_of), deleted_modules(files.deleted, module_of)
    added: list[Finding] = []
    for path, before, current in versions:
        # Confirmed renames alone (a module moved with its package included): a pairing
        # by fingerprint would let an entry added since pass as an old one moved.
        fresh = changes(before, current, index.modules, confirmed, only_confirmed=True, deleted=deleted)
        shown = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
        lines = baseline_entry_lines(_text(path))
        added += [
            added_finding(e.contract, e.fingerprint, shown, lines.get((e.contract, e.fingerprint), 1), revision)
            for e in fresh.added
        ]
    return Ratchet(since=revision, added=tuple(sorted(added)))


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


def renames_since_recorded(root: Path, baseline: Path, index: ProjectIndex) -> ModuleHistory | None:
    """The module renames and deletions git sees between the commit that last changed
    ``baseline`` and the working tree; None outside a git checkout (or before its first
    commit)."""
    top = repository_root(root)
    resolved = baseline.resolve()
    if top is None or not resolved.is_relative_to(top):
        return None
    commit = last_commit_touching(top, resolved.relative_to(top).as_posix())
    if commit is None:
        return None
    try:
        files = file_changes(top, commit)
    except GitError:
        return None
    return ModuleHistory(
        project_module_renames(index, top, files.renamed), deleted_modules(files.deleted, _module_of(index, top))
    )


def project_module_renames(index: ProjectIndex, top: Path, renamed: Mapping[str, str]) -> dict[str, str]:
    """old module -> new module for the project's files git sees renamed."""
    return module_renames(renamed, _module_of(index, top))


def _module_of(index: ProjectIndex, top: Path) -> dict[str, str]:
    """The project's module of each file in the checkout (posix path from its top)."""
    module_of = {}
    for module, file in index.modules.items():
        resolved = file.resolve()
        if resolved.is_relative_to(top):
            module_of[resolved.relative_to(top).as_posix()] = module
    return module_of


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return ""
