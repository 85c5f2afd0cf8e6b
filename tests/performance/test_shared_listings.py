"""Directory listings shared by the walks of one run, and only by them."""

from __future__ import annotations

import collections
import os
import sys

from click.testing import CliRunner
from perf_support import edit, leaky_project

from domain_fence.core.source.listing import listed_since, listing, shared_listings
from domain_fence.integrations.cli import main


def counting_scandir(monkeypatch) -> collections.Counter[str]:
    """How often domain-fence lists each directory (grimp's walk is its own)."""
    counts: collections.Counter[str] = collections.Counter()
    real = os.scandir

    def counted(path="."):
        if sys._getframe(1).f_globals["__name__"].startswith("domain_fence."):
            counts[os.path.realpath(os.fspath(path))] += 1
        return real(path)

    monkeypatch.setattr(os, "scandir", counted)
    return counts


def test_within_shared_listings_a_directory_is_listed_once_and_as_it_was(tmp_path, monkeypatch):
    (tmp_path / "b.py").write_text("")
    (tmp_path / "a.py").write_text("")
    counts = counting_scandir(monkeypatch)
    with shared_listings():
        began = listed_since()
        first = [entry.name for entry in listing(tmp_path)]
        (tmp_path / "c.py").write_text("")
        assert [entry.name for entry in listing(str(tmp_path))] == first == ["a.py", "b.py"]
        assert listed_since() == began
    assert counts[str(tmp_path.resolve())] == 1
    assert [entry.name for entry in listing(tmp_path)] == ["a.py", "b.py", "c.py"]  # outside: as it is
    assert [entry.name for entry in listing(tmp_path)] == ["a.py", "b.py", "c.py"]
    assert counts[str(tmp_path.resolve())] == 3


def test_a_check_lists_each_package_directory_once(tmp_path, monkeypatch):
    project = leaky_project(tmp_path)
    monkeypatch.chdir(project)
    packages = {os.path.realpath(directory) for directory, _, files in os.walk(project) if "__init__.py" in files}
    assert len(packages) == 3
    assert CliRunner().invoke(main, ["check"]).exit_code == 1  # the leaky project breaks every contract
    model = project / "leaky" / "runtime" / "model.py"
    edit(model, model.read_text(encoding="utf-8") + "\n# edited\n")  # not replayed
    counts = counting_scandir(monkeypatch)
    result = CliRunner().invoke(main, ["check"])
    assert result.exit_code == 1, result.output
    # The run cache's look, module discovery and the graph's blockers share one listing.
    assert {directory: counts[directory] for directory in packages} == dict.fromkeys(packages, 1)


def test_flake8_lists_each_package_directory_once_before_its_workers_start(tmp_path, monkeypatch):
    from flake8.main.application import Application

    project = leaky_project(tmp_path)
    monkeypatch.chdir(project)
    packages = {os.path.realpath(directory) for directory, _, files in os.walk(project) if "__init__.py" in files}
    counts = counting_scandir(monkeypatch)
    application = Application()
    application.run(["--select", "DOM", "--jobs", "1", "leaky"])
    assert application.result_count > 0  # the leaky project breaks every contract
    # Discovery and the graph's blockers share one listing.
    assert {directory: counts[directory] for directory in packages} == dict.fromkeys(packages, 1)


def test_a_check_after_an_edit_takes_a_package_s_init_from_the_listing(tmp_path, monkeypatch):
    """Discovery, the stamps the run starts from and the graph's blockers take a
    package's ``__init__.py`` (and its status) from the run cache's listing: none of
    them stats it again (the end-of-run look does, which must see it as it is now)."""
    project = leaky_project(tmp_path)
    monkeypatch.chdir(project)
    assert CliRunner().invoke(main, ["check"]).exit_code == 1
    model = project / "leaky" / "runtime" / "model.py"
    edit(model, model.read_text(encoding="utf-8") + "\n# edited\n")
    callers: collections.Counter[tuple[str, str]] = collections.Counter()
    real = os.stat

    def counted(path, *args, **kwargs):
        if os.path.basename(path) == "__init__.py":
            frame = sys._getframe(1)
            while not frame.f_globals["__name__"].startswith("domain_fence."):
                frame = frame.f_back
            callers[frame.f_globals["__name__"], frame.f_code.co_name] += 1
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", counted)
    result = CliRunner().invoke(main, ["check"])
    assert result.exit_code == 1, result.output
    assert callers[("domain_fence.core.engine.resultcache", "unchanged")] == 3  # each package, at the end
    walks = ("domain_fence.core.source.modules", "domain_fence.core.index.blockers")
    assert [caller for caller in callers if caller[0] in walks or caller[1] == "file_stamp"] == []
