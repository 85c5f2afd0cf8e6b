"""Carrying baseline entries over module renames: which stale entries go to which new
fingerprints, and which stay where they are."""

from __future__ import annotations

from domain_fence.core.engine.rekey import Rekeyed, carried_entries, deleted_modules, module_renames, renamed_modules

LEGACY = "boundary:app.runtime.legacy->app.experiment.modes"
HERITAGE = "boundary:app.runtime.heritage->app.experiment.modes"
OLD_WORKER = "boundary:app.runtime.oldpkg.worker->app.experiment.modes"
NEW_WORKER = "boundary:app.runtime.newpkg.worker->app.experiment.modes"
MODULES = {"app.runtime.heritage", "app.runtime.newpkg", "app.runtime.newpkg.worker", "app.experiment.modes"}


def test_fingerprints_differing_only_in_dotted_names_give_the_renames():
    assert renamed_modules(LEGACY, HERITAGE) == {"app.runtime.legacy": "app.runtime.heritage"}
    assert renamed_modules("DOM101:a.events:Stats.episode", "DOM101:b.events:Stats.episode") == {"a.events": "b.events"}
    assert renamed_modules(LEGACY, LEGACY) is None
    assert renamed_modules("DOM101:a:S.f", "DOM102:a:S.f") == {"DOM101": "DOM102"}  # not modules: refused later
    assert renamed_modules("boundary:a->b", "boundary:a-c") is None  # a separator differs
    assert renamed_modules("boundary:a->a", "boundary:b->c") is None  # one name, two ways


def test_a_single_rename_is_carried_on_its_fingerprints_alone():
    assert carried_entries([("c", LEGACY)], [("c", HERITAGE)], MODULES) == [Rekeyed("c", LEGACY, HERITAGE)]


def test_nothing_is_carried_to_another_contract_or_from_a_module_still_there():
    assert carried_entries([("c", LEGACY)], [("d", HERITAGE)], MODULES) == []
    assert carried_entries([("c", LEGACY)], [("c", HERITAGE)], MODULES | {"app.runtime.legacy"}) == []
    assert carried_entries([("c", LEGACY)], [("c", HERITAGE)], MODULES - {"app.runtime.heritage"}) == []
    code_changed = [("c", "DOM102:app.runtime.heritage:S.f")]
    assert carried_entries([("c", "DOM101:app.runtime.heritage:S.f")], code_changed, MODULES) == []


def test_two_renames_at_once_are_ambiguous_without_history_and_carried_with_it():
    stale, new = [("c", LEGACY), ("c", OLD_WORKER)], [("c", HERITAGE), ("c", NEW_WORKER)]
    assert carried_entries(stale, new, MODULES) == []
    history = {"app.runtime.legacy": "app.runtime.heritage", "app.runtime.oldpkg.worker": "app.runtime.newpkg.worker"}
    assert carried_entries(stale, new, MODULES, history) == [
        Rekeyed("c", LEGACY, HERITAGE),
        Rekeyed("c", OLD_WORKER, NEW_WORKER),
    ]


def test_history_decides_one_pair_and_the_fingerprints_the_rest_unless_only_history_counts():
    stale, new = [("c", LEGACY), ("c", OLD_WORKER)], [("c", HERITAGE), ("c", NEW_WORKER)]
    history = {"app.runtime.legacy": "app.runtime.heritage"}
    both = [Rekeyed("c", LEGACY, HERITAGE), Rekeyed("c", OLD_WORKER, NEW_WORKER)]
    assert carried_entries(stale, new, MODULES, history) == both
    assert carried_entries(stale, new, MODULES, history, only_confirmed=True) == [Rekeyed("c", LEGACY, HERITAGE)]


def test_a_module_git_saw_deleted_or_renamed_elsewhere_is_not_paired_by_fingerprints():
    stale, new = [("c", LEGACY)], [("c", HERITAGE)]
    assert carried_entries(stale, new, MODULES, {}, deleted={"app.runtime.legacy"}) == []
    assert carried_entries(stale, new, MODULES, {"app.runtime.legacy": "app.runtime.other"}) == []
    assert carried_entries(stale, new, MODULES, {}, deleted={"app.runtime.unrelated"}) == [
        Rekeyed("c", LEGACY, HERITAGE)
    ]


def test_deleted_files_name_modules_in_the_project_source_directories():
    module_of = {"src/app/__init__.py": "app", "src/app/runtime/heritage.py": "app.runtime.heritage"}
    deleted = ["src/app/runtime/legacy.py", "src/app/oldpkg/__init__.py", "README.md", "docs/conf.py"]
    assert deleted_modules(deleted, module_of) == {"app.runtime.legacy", "app.oldpkg"}


def test_file_renames_name_module_renames_in_any_source_directory():
    renames = {
        "src/app/runtime/legacy.py": "src/app/runtime/heritage.py",
        "src/app/runtime/oldpkg/__init__.py": "src/app/runtime/newpkg/__init__.py",
        "src/app/runtime/oldpkg/worker.py": "src/app/runtime/newpkg/worker.py",
        "README.md": "README.rst",
        "src/app/runtime/gone.py": "elsewhere/gone.py",  # not a module any more
    }
    module_of = {
        "src/app/runtime/heritage.py": "app.runtime.heritage",
        "src/app/runtime/newpkg/__init__.py": "app.runtime.newpkg",
        "src/app/runtime/newpkg/worker.py": "app.runtime.newpkg.worker",
    }
    assert module_renames(renames, module_of) == {
        "app.runtime.legacy": "app.runtime.heritage",
        "app.runtime.oldpkg": "app.runtime.newpkg",
        "app.runtime.oldpkg.worker": "app.runtime.newpkg.worker",
    }
