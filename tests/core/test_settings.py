"""The engine's settings, as callers of the Python API build them."""

from __future__ import annotations

from pathlib import Path

import pytest

from domain_fence.core.engine import Settings
from domain_fence.core.engine.resultcache import stable


def test_settings_without_session_options_have_none():
    settings = Settings(Path("project/.importlinter"), ("pkg",), ())

    assert dict(settings.session) == {}
    assert settings.cache_dir is None
    assert settings.root == Path("project")


def test_the_default_session_options_can_not_be_changed_through_one_settings():
    settings = Settings(Path(".importlinter"), ("pkg",), ())

    with pytest.raises(TypeError):
        settings.session["include_external_packages"] = "True"  # type: ignore[index]
    assert dict(Settings(Path(".importlinter"), ("pkg",), ()).session) == {}


def test_the_default_session_options_key_results_as_an_empty_mapping_does():
    assert stable(Settings(Path(".importlinter"), ("pkg",), ()).session) == stable({})
