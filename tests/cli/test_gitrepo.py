"""The questions asked of git, on a real repository: its top, a file at a revision, the
files renamed since one (names with spaces and non-ASCII letters included)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_support import git, write_tree

from domain_fence.integrations.gitrepo import (
    GitError,
    file_changes,
    last_commit_touching,
    repository_root,
    resolve_revision,
    show_file,
)


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    top = tmp_path / "repo"
    write_tree(top, {"pkg/old name.py": "VALUE = 1\n" * 20, "pkg/modèle.py": "OTHER = 2\n" * 20, "notes.txt": "a\n"})
    git("init", "-q", cwd=top)
    git("add", "-A", cwd=top)
    git("commit", "-q", "-m", "first", cwd=top)
    return top


def test_the_top_of_the_checkout_from_a_subdirectory(repository, tmp_path):
    assert repository_root(repository / "pkg") == repository.resolve()
    outside = tmp_path / "outside"
    outside.mkdir()
    assert repository_root(outside) is None


def test_a_file_at_a_revision_and_one_that_was_not_there(repository):
    (repository / "notes.txt").write_text("changed\n")
    assert show_file(repository, "HEAD", "notes.txt") == b"a\n"
    assert show_file(repository, "HEAD", "missing.txt") is None
    with pytest.raises(GitError, match="'nope' is not a commit"):
        show_file(repository, "nope", "notes.txt")
    with pytest.raises(GitError):
        resolve_revision(repository, "--output=x")  # an option is not a revision


def test_renames_since_a_revision_in_the_working_tree(repository):
    git("mv", "pkg/old name.py", "pkg/new name.py", cwd=repository)
    git("mv", "pkg/modèle.py", "pkg/modèle_2.py", cwd=repository)
    (repository / "notes.txt").write_text("changed\n")
    assert file_changes(repository, "HEAD").renamed == {
        "pkg/old name.py": "pkg/new name.py",
        "pkg/modèle.py": "pkg/modèle_2.py",
    }


def test_renames_not_staged_yet_count_and_the_index_is_left_alone(repository):
    (repository / "pkg/old name.py").rename(repository / "pkg/renamed.py")  # a plain mv
    (repository / "pkg/modèle.py").rename(repository / "pkg/modèle_2.py")
    git("add", "pkg/modèle_2.py", cwd=repository)  # half staged: the new name only
    (repository / "unrelated.py").write_text("NEW = 3\n")
    (repository / ".gitignore").write_text("ignored.py\n")
    (repository / "ignored.py").write_text("VALUE = 1\n" * 20)  # as the old file, but ignored
    status = git("status", "--porcelain", "-z", cwd=repository)
    assert file_changes(repository, "HEAD").renamed == {
        "pkg/old name.py": "pkg/renamed.py",
        "pkg/modèle.py": "pkg/modèle_2.py",
    }
    assert git("status", "--porcelain", "-z", cwd=repository) == status
    assert git("diff", "--cached", "--name-only", "-z", cwd=repository) == "pkg/modèle_2.py\0"


def test_a_file_deleted_and_another_added_is_no_rename(repository):
    git("rm", "-q", "pkg/old name.py", cwd=repository)
    (repository / "pkg/unrelated.py").write_text("import random\n\nDRAW = random.random()\n")
    git("mv", "pkg/modèle.py", "pkg/modèle_2.py", cwd=repository)
    assert file_changes(repository, "HEAD") == ({"pkg/modèle.py": "pkg/modèle_2.py"}, ("pkg/old name.py",))


def test_the_last_commit_of_a_file_else_head(repository):
    head = git("rev-parse", "HEAD", cwd=repository)
    (repository / "later.txt").write_text("x\n")
    git("add", "later.txt", cwd=repository)
    git("commit", "-q", "-m", "second", cwd=repository)
    assert last_commit_touching(repository, "notes.txt") == head
    assert last_commit_touching(repository, "never-committed.json") == git("rev-parse", "HEAD", cwd=repository)
