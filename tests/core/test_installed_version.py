"""The installed grimp's version keys a boundary contract's kept results: read from its
``.dist-info`` directory's name (no importlib.metadata start-up in every run), as
importlib.metadata reads it."""

from __future__ import annotations

from importlib import metadata

import pytest

from domain_fence.core.engine.resultcache import installed_version


def test_grimps_version_is_the_one_importlib_metadata_reads():
    assert installed_version("grimp") == metadata.version("grimp")


def install(site, version: str, name: str = "fakepkg") -> None:
    (site / name).mkdir(exist_ok=True)
    (site / name / "__init__.py").write_text("")
    info = site / f"{name}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")


@pytest.fixture
def site(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_another_version_installed_is_another_version(site):
    install(site, "1.2")
    assert installed_version("fakepkg") == "1.2"
    (site / "fakepkg-1.2.dist-info" / "METADATA").unlink()
    (site / "fakepkg-1.2.dist-info").rmdir()
    install(site, "1.3")
    assert installed_version("fakepkg") == "1.3"


def test_two_dist_info_directories_are_left_to_importlib_metadata(site):
    install(site, "1.2")
    install(site, "1.3")
    assert installed_version("fakepkg") == metadata.version("fakepkg")


def test_a_package_not_installed_has_an_unknown_version(site):
    (site / "loose").mkdir()
    (site / "loose" / "__init__.py").write_text("")
    assert installed_version("loose") == "unknown"
    assert installed_version("not_a_package_anywhere") == "unknown"
