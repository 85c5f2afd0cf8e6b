"""The persistent fact cache: what a later run reuses, what makes it parse again, and
that nothing wrong with the cache is ever an error or a wrong answer."""

from __future__ import annotations

import dataclasses
import io
import multiprocessing
import os
import pickle
import re
import shutil
from pathlib import Path

import pytest
from perf_support import edit, leaky_project, recorded, settle
from support import MINIMONTY_SRC, run_tool

from domain_fence.core.families.config import parse_vocabulary
from domain_fence.core.families.vocabulary.events import all_vocabulary_findings
from domain_fence.core.index import project as index_module
from domain_fence.core.index.project import ProjectIndex
from domain_fence.core.source import factcache, factpack, facts, reading
from domain_fence.core.source.factcache import FactCache, Stamp, cache_key
from domain_fence.core.source.facts import records
from domain_fence.core.source.flow import records as flow_records
from domain_fence.core.source.modules import ModuleFiles


@pytest.fixture(autouse=True)
def new_process(monkeypatch):
    """Each test starts as a new process would: nothing in memory."""
    monkeypatch.setattr(index_module, "_MEMORY", {})
    monkeypatch.setattr(factcache, "_OPEN", {})


@pytest.fixture
def parsed(monkeypatch) -> list[Path]:
    """The files the index parses (rather than finds in memory or in the cache)."""
    files: list[Path] = []
    for name in ("load_tree", "_read_tree"):  # the latter keeps the bytes too
        real = getattr(index_module, name)

        def recording(path, *stamp, _real=real):
            files.append(Path(path))
            return _real(path, *stamp)

        monkeypatch.setattr(index_module, name, recording)
    return files


def forget(monkeypatch) -> None:
    """What a new process starts from: the cache on disk, nothing in memory."""
    monkeypatch.setattr(index_module, "_MEMORY", {})
    monkeypatch.setattr(factcache, "_OPEN", {})


def read_everything(root: Path, cache_dir: Path | None = None) -> ProjectIndex:
    index = ProjectIndex.build(root, ["leaky"], cache_dir=cache_dir or root / ".cache")
    index.prefetch(index.modules)
    index.save()
    return index


def snapshot(index: ProjectIndex) -> dict:
    return {module: (index.file_facts(module), index.declarations(module)) for module in index.modules}


def sources(root: Path) -> list[Path]:
    return sorted((root / "leaky").rglob("*.py"))


def test_a_later_run_reads_every_fact_from_the_cache(tmp_path, monkeypatch, parsed):
    root = leaky_project(tmp_path)
    first = snapshot(read_everything(root))
    assert sorted(parsed) == sources(root)
    forget(monkeypatch)
    parsed.clear()
    again = read_everything(root)
    assert parsed == []
    assert snapshot(again) == first


def test_a_file_whose_bytes_changed_is_parsed_again_and_one_only_touched_is_not(tmp_path, monkeypatch, parsed):
    root = leaky_project(tmp_path)
    read_everything(root)
    grown, touched = root / "leaky" / "runtime" / "model.py", root / "leaky" / "shared.py"
    edit(grown, grown.read_text() + "\nfrom leaky.experiment import runner\n")
    edit(touched)  # a new modification time, the same bytes: as a fresh checkout gives
    forget(monkeypatch)
    parsed.clear()
    index = read_everything(root)
    assert sorted(parsed) == [grown]
    assert index.file_facts("leaky.runtime.model").imports[-1].source == "leaky.experiment"


def test_facts_written_by_another_version_of_the_extractor_are_not_read(tmp_path, monkeypatch, parsed):
    root = leaky_project(tmp_path)
    read_everything(root)
    forget(monkeypatch)
    parsed.clear()
    monkeypatch.setattr(factcache, "_KEY", "another extractor")
    read_everything(root)
    assert sorted(parsed) == sources(root)


def test_the_key_follows_the_extractor_source():
    key = cache_key()
    assert len(key) == 64 and key == cache_key()


_SOURCE_IMPORT = re.compile(r"from domain_fence\.core\.source\.(\w+) import")


def test_the_key_follows_every_module_of_the_extractor(monkeypatch):
    """The facts are extracted by a package of modules: an edit to any of them (not only
    its ``__init__``) is another extractor, whose facts an edited checkout must not read."""
    monkeypatch.setattr(factcache, "_KEY", None)
    unedited = cache_key()
    read_bytes = Path.read_bytes
    package = sorted(Path(facts.__file__).parent.glob("*.py"))
    # And every module of the source layer the package imports (flow, keys, reading...).
    imported = {m for path in package for m in _SOURCE_IMPORT.findall(path.read_text())} - {"facts"}
    source = Path(facts.__file__).parent.parent

    def files(name: str) -> list[Path]:  # a module, or every module of a package
        return sorted((source / name).glob("*.py")) if (source / name).is_dir() else [source / f"{name}.py"]

    modules = package + [path for name in sorted(imported) for path in files(name)]
    assert len(package) > 1 and {"flow", "keys"} <= imported and len(files("flow")) > 1
    for module in modules:

        def edited(path: Path, module: Path = module) -> bytes:
            return read_bytes(path) + (b"\n# edited\n" if path == module else b"")

        monkeypatch.setattr(Path, "read_bytes", edited)
        monkeypatch.setattr(factcache, "_KEY", None)
        assert cache_key() != unedited, module.name


def test_every_fact_class_is_one_the_cache_reads_back():
    """A fact class the cache's unpickler refuses would make every entry holding one
    look damaged: parsed again on every run, without a word."""
    classes = {
        (module.__name__, name)
        for module in (records, flow_records, reading)
        for name, value in vars(module).items()
        if isinstance(value, type)
        and (dataclasses.is_dataclass(value) or issubclass(value, tuple))
        and value.__module__ == module.__name__
        and not name.startswith("_")
        and name != "PayloadSite"  # flow's own, never stored: it holds syntax nodes
    }
    assert {
        (records.__name__, "Text"),
        (flow_records.__name__, "FlowFacts"),
        (reading.__name__, "Unreadable"),
    } <= classes
    assert classes <= factcache._FACT_CLASSES


def test_a_file_read_as_another_module_is_parsed_again(tmp_path, monkeypatch, parsed):
    root = leaky_project(tmp_path)
    read_everything(root)
    forget(monkeypatch)
    parsed.clear()
    path = root / "leaky" / "shared.py"
    cache = FactCache.open(root / ".cache", root.resolve())
    renamed = ProjectIndex(root.resolve(), ModuleFiles({"other.shared": str(path)}), cache=cache)
    assert renamed.file_facts("other.shared").module == "other.shared"
    assert parsed == [path]


def test_the_facts_serve_every_configuration(tmp_path, monkeypatch, parsed):
    """The facts do not depend on the contracts: a cache written under one
    configuration gives another the findings it would get from parsing."""
    root = leaky_project(tmp_path)
    words = {"modules": "leaky.runtime", "event_bases": "leaky.runtime.telemetry.TelemetrySchema"}
    first = parse_vocabulary("v", "v", {**words, "words": ["episode"]}, root)
    second = parse_vocabulary("v", "v", {**words, "words": ["step", "math"], "scope": ["events", "parameters"]}, root)
    configs = (first, second)
    uncached = [all_vocabulary_findings(c, ProjectIndex.build(root, ["leaky"], cache_dir=None)) for c in configs]
    forget(monkeypatch)
    read_everything(root)
    forget(monkeypatch)
    parsed.clear()
    cached_index = ProjectIndex.build(root, ["leaky"], cache_dir=root / ".cache")
    cached = [all_vocabulary_findings(c, cached_index) for c in configs]
    assert parsed == []
    assert cached == uncached
    assert uncached[0] and uncached[1]


def test_a_file_modified_a_moment_ago_is_kept_only_once_it_has_settled(tmp_path, monkeypatch, parsed):
    root = leaky_project(tmp_path)
    fresh = root / "leaky" / "shared.py"
    os.utime(fresh)  # now
    read_everything(root)
    forget(monkeypatch)
    parsed.clear()
    read_everything(root)
    assert parsed == [fresh]  # it might change again within its modification time's tick
    settle(root)
    read_everything(root)
    forget(monkeypatch)
    parsed.clear()
    read_everything(root)
    assert parsed == []


def test_declarations_read_from_the_cache_are_decoded_when_first_asked_for(tmp_path, monkeypatch):
    root = leaky_project(tmp_path)
    expected = snapshot(read_everything(root))
    forget(monkeypatch)
    index = ProjectIndex.build(root, ["leaky"], cache_dir=root / ".cache")
    index.prefetch(index.modules)
    assert all(isinstance(value, bytes) for value in index._declarations.values())
    assert snapshot(index) == expected
    index._declarations["leaky.shared"] = b"damaged"  # read again from the file
    assert index.declarations("leaky.shared") == expected["leaky.shared"][1]


def planted(marker: str) -> None:
    Path(marker).write_text("ran")


class Planted:
    """Unpickling this would write the marker file."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (planted, (self.marker,))


def pack_entries(path: Path) -> dict:
    return factpack.read_pack(path, cache_key(), factcache._FactUnpickler).entries()


def damaged_packs(pack: Path, marker: Path) -> list[bytes]:
    good = pack.read_bytes()
    entries = pack_entries(pack)
    path, entry = next(iter(entries.items()))
    stream = io.BytesIO(good)
    index = pickle.load(stream)[2]  # the index alone: (path -> row), each pickle by its place
    row, pickles = index[path], good[stream.tell() :]
    planted_entry = {path: (*entry[:4], pickle.dumps(Planted(marker)), entry[5], None)}

    def header(rows: object) -> bytes:
        return pickle.dumps((factcache.PACK_FORMAT, cache_key(), rows), protocol=pickle.HIGHEST_PROTOCOL)

    def facts_placed(offset: int, length: int) -> tuple[object, ...]:
        fields = list(factpack.INDEX_ROW.unpack(row[2]))
        fields[5:7] = offset, length
        return (*row[:2], factpack.INDEX_ROW.pack(*fields))

    return [
        b"",
        b"garbage",
        good[: len(good) // 2],  # the index whole, the pickles cut short
        good[:-1],
        pickle.dumps(Planted(marker)),
        pickle.dumps(("another format", cache_key(), index)) + pickles,
        header(["not", "a", "dict"]),
        header({path: (42, *row[1:])}),
        header({path: facts_placed(0, 10**15)}),  # a place far beyond the end
        header({path: facts_placed(len(pickles), 1)}),
        header({path: (*row[:2], row[2][:-1])}),  # packed short
        header({path: (*row[:2], "not packed")}),
        header({path: row[:2]}),
        factpack.pack_bytes(cache_key(), planted_entry),
    ]


def test_a_damaged_or_planted_pack_is_never_trusted_and_is_rebuilt(tmp_path, monkeypatch):
    root = leaky_project(tmp_path)
    expected = snapshot(read_everything(root))
    [pack] = (root / ".cache").glob("facts-*.pickle")
    marker = tmp_path / "PLANTED-PICKLE-RAN"
    for damage in damaged_packs(pack, marker):
        pack.write_bytes(damage)
        forget(monkeypatch)
        assert snapshot(read_everything(root)) == expected
        forget(monkeypatch)
        index = ProjectIndex.build(root, ["leaky"], cache_dir=root / ".cache")
        assert index.cache.load(Stamp.of(root / "leaky" / "shared.py"), "leaky.shared", False) is not None  # rebuilt
    assert not marker.exists()


@pytest.mark.parametrize("fields", [lambda text: (*text, 0), lambda text: tuple(text)[:2]], ids=["more", "fewer"])
def test_a_fact_stored_with_another_number_of_fields_is_a_miss(tmp_path, monkeypatch, parsed, fields):
    """A record is pickled as its class and its values: an entry of another shape of a
    class (a pack of another version, a forged one) is parsed again, not a crash."""
    root = leaky_project(tmp_path)
    expected = snapshot(ProjectIndex.build(root, ["leaky"], cache_dir=None))
    with monkeypatch.context() as patched:
        patched.setattr(records.Text, "__getnewargs__", fields)
        read_everything(root)
    forget(monkeypatch)
    parsed.clear()
    assert snapshot(read_everything(root)) == expected
    assert sorted(parsed) == sources(root)


@pytest.mark.parametrize("obstacle", ["a file where the directory goes", "a directory where the pack goes"])
def test_a_cache_that_cannot_be_written_is_done_without(tmp_path, monkeypatch, obstacle):
    root = leaky_project(tmp_path)
    expected = snapshot(read_everything(root, cache_dir=tmp_path / "elsewhere"))
    cache = root / ".cache"
    if obstacle == "a file where the directory goes":
        cache.write_text("not a directory")
    else:
        FactCache(cache, root.resolve()).path.mkdir(parents=True)
    forget(monkeypatch)
    assert snapshot(read_everything(root)) == expected
    forget(monkeypatch)
    assert snapshot(read_everything(root)) == expected


def save_repeatedly(root: str, modules: list[str], rounds: int) -> None:
    for _ in range(rounds):
        index_module._MEMORY.clear()
        factcache._OPEN.clear()
        index = ProjectIndex.build(Path(root), ["leaky"], cache_dir=Path(root) / ".cache")
        index.parallel = False
        index.prefetch(modules)
        for module in modules:  # as if parsed: stored again, saved again
            stamp = Stamp.of(index.modules[module])
            index.cache.store(stamp, factcache.encode(index.file_facts(module)), b"", module, index.is_package(module))
        index.save()


def test_processes_saving_at_once_always_leave_a_whole_pack(tmp_path):
    root = leaky_project(tmp_path)
    modules = sorted(ProjectIndex.build(root, ["leaky"], cache_dir=None).modules)
    context = multiprocessing.get_context("spawn" if os.name == "nt" else "fork")
    writers = [
        context.Process(target=save_repeatedly, args=(str(root), part, 15)) for part in (modules[::2], modules[1::2])
    ]
    for writer in writers:
        writer.start()
    pack = FactCache(root / ".cache", root.resolve()).path
    reads = 0
    while any(writer.is_alive() for writer in writers):
        try:
            data = pack.read_bytes()
        except FileNotFoundError:
            continue
        stream = io.BytesIO(data)
        kind, key, index = factcache._FactUnpickler(stream).load()  # never half a pack
        assert (kind, key) == (factcache.PACK_FORMAT, cache_key()) and isinstance(index, dict)
        start = stream.tell()  # every entry's pickles are there, whole
        fields = [factpack.INDEX_ROW.unpack(row[2]) for row in index.values()]
        assert all(
            start + offset + length <= len(data)
            for f in fields
            for offset, length in zip(f[5:11:2], f[6:11:2], strict=True)
        )
        reads += 1
    for writer in writers:
        writer.join()
        assert writer.exitcode == 0
    assert [p.name for p in pack.parent.iterdir() if p.name.startswith(".tmp-")] == []
    assert reads > 0


def test_parsing_in_parallel_gives_the_facts_of_parsing_in_turn(tmp_path, monkeypatch):
    root = tmp_path / "project"
    shutil.copytree(MINIMONTY_SRC, root / "minimonty", ignore=shutil.ignore_patterns("__pycache__"))
    serial = ProjectIndex.build(root, ["minimonty"], cache_dir=None)
    serial.parallel = False
    serial.prefetch(serial.modules)
    expected = {m: (serial.file_facts(m), serial.declarations(m)) for m in serial.modules}
    forget(monkeypatch)
    monkeypatch.setattr(index_module, "PARALLEL_MIN_FILES", 2)
    parallel = ProjectIndex.build(root, ["minimonty"], cache_dir=None)
    parallel.prefetch(parallel.modules)
    assert {m: (parallel.file_facts(m), parallel.declarations(m)) for m in parallel.modules} == expected


# -- the options and the environment, through every front end ---------------------------


def check(root: Path, *args: str, env: dict[str, str] | None = None):
    return run_tool("domain-fence", "check", *args, cwd=root, env=env)


def test_no_cache_writes_no_cache_at_all(tmp_path):
    root = leaky_project(tmp_path)
    cached = check(root)
    shutil.rmtree(root / ".domain_fence_cache")
    shutil.rmtree(root / ".import_linter_cache")
    uncached = check(root, "--no-cache")
    assert (uncached.returncode, uncached.stdout) == (cached.returncode, cached.stdout)
    assert not (root / ".domain_fence_cache").exists() and not (root / ".import_linter_cache").exists()
    baseline = run_tool("domain-fence", "baseline", "--no-cache", cwd=root)
    assert baseline.returncode == 0, baseline.output
    assert not (root / ".domain_fence_cache").exists() and not (root / ".import_linter_cache").exists()


def test_cache_dir_holds_every_cache(tmp_path):
    root = leaky_project(tmp_path)
    elsewhere = tmp_path / "caches"
    result = check(root, "--cache-dir", str(elsewhere))
    assert result.returncode == 1, result.output
    assert not (root / ".domain_fence_cache").exists() and not (root / ".import_linter_cache").exists()
    assert list(elsewhere.glob("facts-*.pickle"))
    assert (elsewhere / "import_linter").is_dir()
    assert (elsewhere / ".gitignore").read_text().strip().endswith("*")


def test_lint_imports_no_cache_writes_no_cache_of_ours(tmp_path):
    root = leaky_project(tmp_path)
    cached = run_tool("lint-imports", "--no-logo", cwd=root)
    assert list((root / ".domain_fence_cache").glob("facts-*.pickle")), cached.output
    shutil.rmtree(root / ".domain_fence_cache")
    shutil.rmtree(root / ".import_linter_cache")
    uncached = run_tool("lint-imports", "--no-logo", "--no-cache", cwd=root)
    assert uncached.returncode == cached.returncode == 1, uncached.output
    assert "DOM101" in uncached.stdout
    assert not (root / ".domain_fence_cache").exists() and not (root / ".import_linter_cache").exists()


def test_lint_imports_cache_dir_holds_our_caches_beside_grimps(tmp_path):
    root = leaky_project(tmp_path)
    elsewhere = tmp_path / "caches"
    result = run_tool("lint-imports", "--no-logo", "--cache-dir", str(elsewhere), cwd=root)
    assert result.returncode == 1, result.output
    assert not (root / ".domain_fence_cache").exists() and not (root / ".import_linter_cache").exists()
    assert list(elsewhere.glob("facts-*.pickle")), result.output
    assert list(elsewhere.glob("*.data.json")), "grimp's cache is there too"


FLAKE8_CONFIG = "[flake8]\nselect = DOM\n"
PYTEST_TEST = "def test_findings(fence):\n    assert fence.findings()\n"


@pytest.mark.parametrize("front_end", ["domain-fence", "lint-imports", "flake8", "pytest"])
def test_every_front_end_honours_the_environment(tmp_path, front_end):
    root = leaky_project(tmp_path)
    (root / ".flake8").write_text(FLAKE8_CONFIG)
    (root / "test_fence.py").write_text(PYTEST_TEST)
    settle(root)
    commands = {
        "domain-fence": ("domain-fence", "check"),
        "lint-imports": ("lint-imports",),
        "flake8": ("flake8", "--jobs", "1", "leaky"),
        "pytest": ("pytest", "-q", "-p", "no:cacheprovider", "test_fence.py"),
    }
    tool, *args = commands[front_end]
    elsewhere = tmp_path / "caches"
    moved = run_tool(tool, *args, cwd=root, env={"DOMAIN_FENCE_CACHE_DIR": str(elsewhere)})
    assert list(elsewhere.glob("facts-*.pickle")), moved.output
    assert not (root / ".domain_fence_cache").exists()
    off = run_tool(tool, *args, cwd=root, env={"DOMAIN_FENCE_NO_CACHE": "1"})
    assert off.returncode == moved.returncode, off.output
    if front_end in ("domain-fence", "flake8"):
        assert off.stdout == moved.stdout
    assert not (root / ".domain_fence_cache").exists()


def test_flake8_over_a_large_tree_reports_what_it_reports_file_by_file(tmp_path):
    """A whole-tree run reads the covered modules before flake8 forks its workers (in
    parallel, then frozen out of the garbage collector's sight); the findings are
    those of one process reading each file when it is checked, and the workers'
    facts are in the cache for the next run."""
    root = leaky_project(tmp_path)
    runtime = root / "leaky" / "runtime"
    for number in range(70):
        (runtime / f"generated_{number:02d}.py").write_text(
            "from leaky.runtime.telemetry import TelemetrySchema\n\n\n"
            f"class Event{number}(TelemetrySchema):\n    episode_{number}: int\n"
        )
    (root / ".flake8").write_text(FLAKE8_CONFIG)
    settle(root)
    whole = run_tool("flake8", "--jobs", "2", "leaky", cwd=root)
    assert whole.stdout.count("DOM101") == 71, whole.output
    assert list((root / ".domain_fence_cache").glob("facts-*.pickle"))
    files = sorted(str(path.relative_to(root)) for path in (root / "leaky").rglob("*.py"))
    one_by_one = run_tool("flake8", "--jobs", "1", *files, cwd=root, env={"DOMAIN_FENCE_NO_CACHE": "1"})
    assert sorted(whole.stdout.splitlines()) == sorted(one_by_one.stdout.splitlines())
    again = run_tool("flake8", "--jobs", "2", "leaky", cwd=root)
    assert again.returncode == whole.returncode
    assert sorted(again.stdout.splitlines()) == sorted(whole.stdout.splitlines())


def test_a_cache_restored_onto_a_fresh_checkout_is_used(tmp_path, monkeypatch, parsed):
    # CI: the cache of an earlier run restored, the repository checked out anew, so
    # every file has a new modification time, change time and inode, and the same bytes.
    root = leaky_project(tmp_path)
    read_everything(root)
    forget(monkeypatch)
    saved = tmp_path / "saved"
    shutil.move(root, saved)
    shutil.copytree(saved, root, copy_function=shutil.copy)  # new stamps, same bytes
    settle(root)
    parsed.clear()
    read_everything(root)
    assert parsed == []  # every file known by its bytes: none parsed again
    # ...and a file whose bytes differ under the same size is parsed again.
    forget(monkeypatch)
    model = root / "leaky" / "runtime" / "model.py"
    text = model.read_text()
    model.write_text(text.replace("import", "IMPORT", 1) if "import" in text else text + "#")
    settle(root)
    parsed.clear()
    read_everything(root)
    assert parsed == [model]


def test_a_few_new_entries_go_to_the_journal_and_many_are_merged_into_the_pack(tmp_path, monkeypatch, parsed):
    root = leaky_project(tmp_path)
    expected = snapshot(read_everything(root))
    cache = FactCache(root / ".cache", root.resolve())
    packed = cache.path.read_bytes()
    assert not cache.journal.exists()
    shared = root / "leaky" / "shared.py"
    edit(shared, shared.read_text(encoding="utf-8") + "\n# edited\n")
    forget(monkeypatch)
    read_everything(root)
    # One file of fifteen changed: the pack of every file is not written again.
    assert cache.path.read_bytes() == packed
    assert list(pack_entries(cache.journal)) == [str(shared.resolve())]
    forget(monkeypatch)
    parsed.clear()
    assert snapshot(read_everything(root)) == expected
    assert parsed == []  # the edited file from the journal, the others from the pack
    # A file gone and two more changed: the journal would hold an eighth of the pack,
    # so both are merged into a new pack, without the gone file's entry.
    removed = root / "leaky" / "runtime" / "legacy.py"
    before = set(pack_entries(cache.path))
    assert str(removed.resolve()) in before
    for path in sorted((root / "leaky").rglob("*.py"))[:2]:
        if path != removed:
            edit(path, path.read_text(encoding="utf-8") + "\n# edited\n")
    removed.unlink()
    forget(monkeypatch)
    read_everything(root)
    assert not cache.journal.exists()
    after = set(pack_entries(cache.path))
    assert str(removed.resolve()) not in after and str(shared.resolve()) in after


def test_a_damaged_journal_costs_its_entries_only(tmp_path, monkeypatch, parsed):
    root = leaky_project(tmp_path)
    expected = snapshot(read_everything(root))
    shared = root / "leaky" / "shared.py"
    edit(shared, shared.read_text(encoding="utf-8") + "\n\ndef added():\n    return 1\n")
    forget(monkeypatch)
    edited = snapshot(read_everything(root))
    journal = FactCache(root / ".cache", root.resolve()).journal
    for damage in damaged_packs(journal, tmp_path / "PLANTED-PICKLE-RAN"):
        journal.write_bytes(damage)
        forget(monkeypatch)
        parsed.clear()
        now = snapshot(read_everything(root))
        assert [m for m in now if now[m] != edited[m]] == []
        assert parsed == [shared.resolve()] or parsed == [shared]  # the pack serves every other file
    assert not (tmp_path / "PLANTED-PICKLE-RAN").exists()
    assert edited != expected


def test_the_facts_of_a_file_edited_a_moment_ago_are_not_pickled_for_a_cache_that_would_not_keep_them(
    tmp_path, monkeypatch
):
    root = leaky_project(tmp_path)
    edited = root / "leaky" / "shared.py"
    edited.write_text(edited.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")  # not settled yet
    pickled = recorded(monkeypatch, index_module, "encode")
    index = ProjectIndex.build(root, ["leaky"], cache_dir=root / ".cache")
    index.prefetch(["leaky.shared", "leaky.runtime.model"])
    assert {argument.module for argument, _ in pickled} == {"leaky.runtime.model"}
    assert index.file_facts("leaky.shared") is not None


@pytest.mark.parametrize("pickled", ["facts", "declarations", "flows"])
def test_an_entry_whose_pickles_changed_on_disk_is_missing(tmp_path, pickled):
    # A bit flipped on disk or in a restored copy mostly leaves a valid pickle: the
    # entry's checksum tells it, and the file is parsed again.
    blobs = {name: pickle.dumps((name, "episode_count")) for name in ("facts", "declarations", "flows")}
    entry = ((10, 20, 30, 40), b"d" * 32, "pkg.mod", False, blobs["facts"], blobs["declarations"], blobs["flows"])
    data = bytearray(factpack.pack_bytes("key", {"pkg/mod.py": entry}))
    path = tmp_path / "facts.pickle"
    path.write_bytes(data)
    assert factpack.read_pack(path, "key", pickle.Unpickler).get("pkg/mod.py") == entry
    at = data.rindex(pickled.encode())  # the name, inside its entry's pickle (after the index)
    data[at + 1] ^= 0x04
    path.write_bytes(data)
    assert factpack.read_pack(path, "key", pickle.Unpickler).get("pkg/mod.py") is None


def test_a_cache_made_right_after_the_files_were_written_has_its_markers(tmp_path):
    # Files a moment old are read again next time, their facts not kept (a checkout, an
    # `init` right after): what the run does keep, its results, must not leave a cache
    # directory that `git add -A` would commit.
    root = leaky_project(tmp_path)
    for path in root.rglob("*.py"):
        os.utime(path)  # now: within the time's tick of the run
    run_tool("domain-fence", "baseline", cwd=root)  # (check keeps its discovery, which makes them)
    cache = root / ".domain_fence_cache"
    assert cache.is_dir()
    assert (cache / ".gitignore").read_text().strip().endswith("*")
    assert (cache / "CACHEDIR.TAG").is_file()


def test_the_markers_go_into_no_directory_that_is_not_a_cache(tmp_path):
    # DOMAIN_FENCE_CACHE_DIR=src, or $HOME: a '.gitignore' holding '*' there would have
    # git ignore the whole source tree. The caches are kept there all the same.
    root = leaky_project(tmp_path)
    source = next(path.parent for path in root.rglob("__init__.py"))
    before = {path.name for path in source.iterdir()}
    for args, env in (((), {"DOMAIN_FENCE_CACHE_DIR": str(source)}), (("--cache-dir", str(source)), None)):
        assert check(root, *args, env=env).returncode == 1
        assert not {".gitignore", "CACHEDIR.TAG"} & {path.name for path in source.iterdir()}
    assert {path.name for path in source.iterdir()} > before  # what the run kept
    # Nor beside another tool's .gitignore.
    (foreign := tmp_path / "foreign").mkdir()
    (foreign / ".gitignore").write_text("*.log\n")
    assert check(root, "--cache-dir", str(foreign)).returncode == 1
    assert (foreign / ".gitignore").read_text() == "*.log\n" and not (foreign / "CACHEDIR.TAG").exists()


@pytest.mark.parametrize("present", ["nothing", ".gitignore", "CACHEDIR.TAG"])
def test_an_empty_or_marked_cache_directory_gets_the_markers_it_lacks(tmp_path, present):
    root = leaky_project(tmp_path)
    (cache := tmp_path / "cache").mkdir()
    if present == ".gitignore":
        (cache / ".gitignore").write_text("# created by domain-fence\n*\n")
    elif present == "CACHEDIR.TAG":
        (cache / "CACHEDIR.TAG").write_text("Signature: 8a477f597d28d172789f06886806bc55\n# another tool's\n")
    if present != "nothing":
        (cache / "facts-stale.pickle").write_bytes(b"")  # what an earlier run kept
    assert check(root, "--cache-dir", str(cache)).returncode == 1
    assert (cache / ".gitignore").read_text().strip().endswith("*")
    assert (cache / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55\n")
