"""The few questions we ask git, each one ``git`` process (renames: a few): where a
checkout's top is, what a file held at a revision, which files were renamed or deleted
since one.

Every function returns None (or raises :class:`GitError` with git's own one-line
reason) instead of letting a missing git or a failed command escape as a traceback.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from contextlib import suppress
from pathlib import Path
from typing import NamedTuple


class GitError(Exception):
    """git could not answer: not installed, not a repository, an unknown revision."""


def run_git(directory: Path, *args: str, index: Path | None = None) -> bytes:
    """git's standard output for ``args`` run in ``directory`` (with ``index`` as its
    index file, when given); GitError with git's first line of complaint when it fails."""
    env = {**os.environ, "GIT_INDEX_FILE": str(index)} if index is not None else None
    try:
        completed = subprocess.run(["git", "-C", str(directory), *args], capture_output=True, check=False, env=env)
    except OSError as error:
        raise GitError(f"cannot run git: {error.strerror or error}") from None
    if completed.returncode != 0:
        reason = completed.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(reason[0] if reason else f"git {args[0]} failed with status {completed.returncode}")
    return completed.stdout


def repository_root(directory: Path) -> Path | None:
    """The top of the git checkout holding ``directory``, or None outside one."""
    try:
        top = run_git(directory, "rev-parse", "--show-toplevel").decode("utf-8", "surrogateescape").strip()
    except GitError:
        return None
    return Path(top).resolve() if top else None


def show_file(repository: Path, revision: str, path: str) -> bytes | None:
    """The bytes of ``path`` (relative to the repository's top) at ``revision``, or None
    when the file did not exist there. GitError when the revision itself is unknown."""
    commit = resolve_revision(repository, revision)
    try:
        return run_git(repository, "show", f"{commit}:{path}")
    except GitError:
        return None


def resolve_revision(repository: Path, revision: str) -> str:
    """The commit ``revision`` names; GitError naming the revision when there is none."""
    try:
        output = run_git(repository, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{revision}^{{commit}}")
    except GitError:
        raise GitError(f"{revision!r} is not a commit of the repository at {repository}") from None
    return output.decode("ascii").strip()


class FileChanges(NamedTuple):
    """What became of the files a revision held, in the working tree."""

    renamed: dict[str, str]  # old path -> new path
    deleted: tuple[str, ...]  # gone, and renamed to no file git could pair it with


def file_changes(repository: Path, revision: str) -> FileChanges:
    """The files git sees renamed, and those it sees deleted, between ``revision`` and
    the working tree (paths relative to the repository's top), as ``git add -A`` would
    stage them: a file renamed by a plain ``mv``, its new name untracked yet, counts.

    git's rename detection pairs only the files its index knows, so it is asked with
    a copy of the index in which every untracked file (the ignored ones aside) is
    recorded with ``--intent-to-add``: the user's index is never touched, and nothing
    is staged (git writes no object but its empty blob)."""
    commit = resolve_revision(repository, revision)
    diff = ("diff", "--find-renames", "--name-status", "-z", commit, "--")
    with tempfile.TemporaryDirectory(prefix="domain-fence-index-") as directory:
        index = Path(directory) / "index"
        try:
            real = run_git(repository, "rev-parse", "--git-path", "index").decode("utf-8", "surrogateescape").strip()
            with suppress(FileNotFoundError):  # no index yet: every file is untracked
                shutil.copyfile(repository / real, index)
            run_git(repository, "add", "--all", "--intent-to-add", "--", ".", index=index)
            output = run_git(repository, *diff, index=index)
        except (GitError, OSError):  # an index git cannot copy (a split index...): the index as it is
            output = run_git(repository, *diff)
    return _changes(output)


def _changes(output: bytes) -> FileChanges:
    """The renames (old path -> new path) and deletions of ``git diff --name-status -z``."""
    fields = output.decode("utf-8", "surrogateescape").split("\0")
    renames: dict[str, str] = {}
    deleted: list[str] = []
    index = 0
    while index < len(fields) and fields[index]:
        status = fields[index]
        if status.startswith(("R", "C")):
            if status.startswith("R"):
                renames[fields[index + 1]] = fields[index + 2]
            index += 3
        else:
            if status == "D":
                deleted.append(fields[index + 1])
            index += 2
    return FileChanges(renames, tuple(sorted(deleted)))


def last_commit_touching(repository: Path, path: str) -> str | None:
    """The latest commit that changed ``path``, else HEAD; None without a commit."""
    for args in (("log", "-1", "--format=%H", "--", path), ("rev-parse", "--verify", "--quiet", "HEAD")):
        try:
            commit = run_git(repository, *args).decode("ascii").strip()
        except GitError:
            continue
        if commit:
            return commit
    return None
