"""What `init` reads from a tree (core.layout) and the plans it makes (core.presets)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import FIXTURES

from domain_fence.core.setup.layout import LayoutError, read_layout, runtime_partition
from domain_fence.core.setup.preset_names import PRESET_NAMES
from domain_fence.core.setup.presets import MONTY, PRESETS, plan_detected, plan_preset, render_importlinter


def make_tree(root: Path, *files: str) -> Path:
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("")
    return root


def test_root_packages_in_src_include_namespace_portions(tmp_path):
    make_tree(tmp_path, "src/tbp/monty/__init__.py", "src/solo/__init__.py", "tests/__init__.py", "setup.py")
    layout = read_layout(tmp_path)
    assert layout.root_packages == ("solo", "tbp.monty")
    assert layout.src_layout


def test_root_packages_at_the_top_skip_tests_and_docs(tmp_path):
    make_tree(tmp_path, "app/__init__.py", "tests/__init__.py", "docs/conf/__init__.py", "_private/__init__.py")
    layout = read_layout(tmp_path)
    assert layout.root_packages == ("app",)
    assert not layout.src_layout


def test_a_tree_without_packages_is_refused(tmp_path):
    make_tree(tmp_path, "script.py")
    with pytest.raises(LayoutError, match="no Python package found here or in src/"):
        read_layout(tmp_path)


def test_expand_keeps_a_star_within_one_segment():
    layout = read_layout(FIXTURES / "cli" / "monty")
    assert layout.expand("tbp.monty.frameworks.run*") == [
        "tbp.monty.frameworks.run",
        "tbp.monty.frameworks.run_parallel",
    ]
    assert layout.expand("tbp.monty.hydra") == []


def test_runtime_is_everything_that_holds_no_experiment_package(tmp_path):
    make_tree(
        tmp_path,
        "app/__init__.py",
        "app/__main__.py",
        "app/core.py",
        "app/frameworks/__init__.py",
        "app/frameworks/models/__init__.py",
        "app/frameworks/experiments/__init__.py",
        "app/experiment/__init__.py",
    )
    layout = read_layout(tmp_path)
    plan = plan_detected(layout)
    assert plan.experiment == ("app.experiment", "app.frameworks.experiments")
    assert plan.runtime == ("app.core", "app.frameworks.models")
    assert runtime_partition(layout, []) == ["app.core", "app.experiment", "app.frameworks"]


def test_the_command_line_offers_every_preset_and_no_other():
    # `init --preset` offers these names without importing the presets.
    assert tuple(sorted(PRESETS)) == PRESET_NAMES


def test_monty_preset_plan_leaves_out_missing_modules():
    plan = plan_preset(read_layout(FIXTURES / "cli" / "monty"), MONTY)
    assert plan.runtime == (
        "tbp.monty.frameworks.environments",
        "tbp.monty.frameworks.models",
        "tbp.monty.frameworks.telemetry",
        "tbp.monty.frameworks.utils",
    )
    assert "tbp.monty.frameworks.run*" not in plan.left_out
    assert plan.left_out == ("tbp.monty.conf", "tbp.monty.hydra")
    assert plan.event_bases == ("tbp.monty.frameworks.telemetry.schemas.TelemetrySchema",)
    # A pattern names that base: only the patterns are written.
    assert plan.written_event_bases == MONTY.event_base_patterns


def test_without_event_bases_the_vocabulary_contract_is_left_out_with_a_note(tmp_path):
    make_tree(tmp_path, "app/__init__.py", "app/runtime/__init__.py", "app/experiment/__init__.py")
    plan = plan_detected(read_layout(tmp_path))
    assert plan.event_bases == ()
    assert plan.notes[0].startswith("event vocabulary contract left out: no event base class")
    text = render_importlinter(plan, "domain-fence init")
    assert "type = vocabulary" not in text and "type = boundary" in text and "type = placement" in text


def test_the_runtime_is_written_as_the_root_packages_less_the_other_sides(tmp_path):
    make_tree(
        tmp_path,
        "app/__init__.py",
        "app/__main__.py",
        "app/core.py",
        "app/tests/__init__.py",
        "app/experiment/__init__.py",
    )
    plan = plan_detected(read_layout(tmp_path))
    assert plan.neither == ("app.__main__", "app.tests")
    text = render_importlinter(plan, "domain-fence init")
    boundary = text[text.index("type = boundary") : text.index("\n\n", text.index("type = boundary"))]
    assert boundary == (
        "type = boundary\nsource_modules =\n    app\nforbidden_modules =\n    app.experiment\n"
        "exclude_modules =\n    app.__main__\n    app.tests\nbaseline = .domain-fence-baseline.json"
    )
    placement = text[text.index("type = placement") :]
    assert "allowed_modules =\n    app.experiment\n" in placement
