"""A contract's stored results read back exactly as written, and anything else refused."""

from __future__ import annotations

import dataclasses
import errno
import hashlib
import json
import multiprocessing
import os
import pickle
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from domain_fence.core.engine import resultcache
from domain_fence.core.engine.resultcache import Digests, ResultStore, StoredResults
from domain_fence.core.families.config import BaselineOptions, WordRule
from domain_fence.core.model.findings import Finding
from domain_fence.core.model.report import Domains, Link
from domain_fence.core.source.files import file_stamp
from domain_fence.core.source.listing import listing, shared_listings

FINDING = Finding("pkg/a.py", 3, 4, "DOM101", "event field 'episode'", "pkg.a.E.episode", "DOM101:pkg.a:E.episode")
TABLE = (
    ("pkg", "pkg.a", "pkg.b"),
    (None, (12, 1_700_000_000_000_000_000, 1_700_000_000_000_000_001, 77), None),
    (b"", b"d" * 64, None),
)
VIEWS = (None, b"v" * 16, None)


def _stored() -> StoredResults:
    return StoredResults(TABLE, VIEWS, ["pkg.a", "pkg.b"], {"pkg.a": [FINDING]}, ("a warning",))


def test_stored_results_read_back_as_written(tmp_path):
    store = ResultStore(tmp_path, tmp_path, "contract", "key")
    store.save(_stored())
    assert store.load() == _stored()
    assert ResultStore(tmp_path, tmp_path, "contract", "another key").load() is None


@pytest.mark.parametrize(
    "stamp",
    [(12, 1, 1, 2**64 + 7), (12, -(2**63) - 1, 1, 77), (12, 1, -11_644_473_600 * 10**9, 77)],
    ids=["128-bit-inode", "before-1677", "windows-1601"],
)
def test_a_stamp_eight_bytes_cannot_hold_is_stored_as_none(tmp_path, stamp, monkeypatch):
    # Its digest decides then, and the results of every module are kept all the same.
    monkeypatch.setattr(resultcache, "_tables", {})
    store = ResultStore(tmp_path, tmp_path, "contract", "key")
    table = (TABLE[0], (None, stamp, None), TABLE[2])
    store.save(StoredResults(table, VIEWS, ["pkg.a", "pkg.b"], {"pkg.a": [FINDING]}, ("a warning",)))
    monkeypatch.setattr(resultcache, "_tables", {})  # read from the file, as another process would
    loaded = store.load()
    assert loaded is not None
    assert loaded.table == (TABLE[0], (None, None, None), TABLE[2])
    assert loaded.findings == _stored().findings


def _table(store: ResultStore) -> Path:
    [table] = store.directory.glob("modules-*.pickle")
    return table


def _rewrite(store: ResultStore, change: Callable[[list[Any]], object] = list, table: str | None = None) -> None:
    """The stored results changed by hand: ``change`` is given the parts of their body
    (views, covered modules, findings, warnings, failures, answers, noqa, extra) as a
    list to change in place; ``table``: the name of another table."""
    kind, key, name, body = pickle.loads(store.path.read_bytes())
    parts = list(pickle.loads(store.body_path(body).read_bytes()))
    change(parts)
    encoded = pickle.dumps(tuple(parts))
    body = resultcache.content_name(encoded)
    store.body_path(body).write_bytes(encoded)
    store.path.write_bytes(pickle.dumps((kind, key, name if table is None else table, body)))


@pytest.mark.parametrize(
    "columns",
    [
        (("pkg", "pkg.a"), (bytes(64), ()), (b"",)),  # columns of unequal length
        (("pkg", "pkg"), (bytes(64), ()), (b"", b"")),  # a module twice
        ((b"pkg",), (bytes(32), ()), (b"",)),  # a name that is no string
        (("pkg",), (bytes(24), ()), (b"",)),  # a stamp of three numbers
        (("pkg",), (((1, 2, 3, 4),), ()), (b"",)),  # stamps not packed
        (("pkg",), (bytes(32), (True,)), (b"",)),  # a flag for a stampless row
        (("pkg",), (bytes(32), (1,)), (b"",)),  # a stampless row past the last
        (("pkg",), (bytes(32), ()), ("digest",)),  # a digest that is no bytes
        (("pkg",), (bytes(32), ())),  # a column missing
        [("pkg",), (bytes(32), ()), (b"",)],  # a list for the table
    ],
    ids=["unequal", "twice", "name", "short-stamp", "unpacked", "bool", "past", "digest", "two-columns", "list"],
)
def test_a_module_table_of_another_shape_is_a_full_check(tmp_path, columns, monkeypatch):
    monkeypatch.setattr(resultcache, "_tables", {})
    store = ResultStore(tmp_path, tmp_path, "contract", "key")
    store.save(_stored())
    encoded = pickle.dumps((resultcache.TABLE_FORMAT, None, columns))
    name = _table_name(encoded)  # named as it should be
    (store.directory / f"modules-{name}.pickle").write_bytes(encoded)
    _rewrite(store, lambda parts: parts.__setitem__(0, (None,) * len(columns[0])), table=name)
    assert store.load() is None


@pytest.mark.parametrize(
    "damage",
    ["views of another length", "a view that is no bytes", "table gone", "table damaged", "a path for a name"],
)
def test_results_whose_table_is_not_theirs_are_a_full_check(tmp_path, damage, monkeypatch):
    monkeypatch.setattr(resultcache, "_tables", {})
    store = ResultStore(tmp_path, tmp_path, "contract", "key")
    store.save(_stored())
    monkeypatch.setattr(resultcache, "_tables", {})  # read from the file, as another process would
    name = pickle.loads(store.path.read_bytes())[2]
    table = _table(store)
    if damage == "views of another length":
        _rewrite(store, lambda parts: parts.__setitem__(0, parts[0][:-1]))
    elif damage == "a view that is no bytes":
        _rewrite(store, lambda parts: parts.__setitem__(0, (None, 1, None)))
    elif damage == "table gone":
        table.unlink()
    elif damage == "table damaged":
        encoded = table.read_bytes()
        table.write_bytes(encoded.replace(b"pkg.b", b"pkg.c"))  # still a table, not the one it is named after
    else:
        _rewrite(store, table="../" + name)
    assert store.load() is None


def test_the_module_table_is_kept_once_for_every_contract(tmp_path, monkeypatch):
    monkeypatch.setattr(resultcache, "_tables", {})
    stores = [ResultStore(tmp_path, tmp_path, f"contract{n}", "key") for n in range(4)]
    for store in stores:
        store.save(_stored())
    table = _table(stores[0])  # one table, named by its bytes' digest
    data = pickle.loads(table.read_bytes())
    assert data == (resultcache.TABLE_FORMAT, None, _as_written(TABLE))
    assert table.name == f"modules-{_table_name(table.read_bytes())}.pickle"
    for store in stores:
        assert pickle.loads(store.path.read_bytes())[2] == table.name[len("modules-") : -len(".pickle")]
    monkeypatch.setattr(resultcache, "_tables", {})
    assert [store.load() for store in stores] == [_stored()] * 4


def test_the_last_tables_are_kept_and_older_ones_forgotten(tmp_path, monkeypatch):
    monkeypatch.setattr(resultcache, "_tables", {})
    first = ResultStore(tmp_path, tmp_path, "first", "key")
    first.save(_stored())
    table = _table(first)
    os.utime(table, ns=(1, 1))  # the oldest (several may be written in one tick of the clock)
    other = ResultStore(tmp_path, tmp_path, "other", "key")

    def another_version(version: int) -> None:  # another contract's run, on files changed since
        table = (TABLE[0], TABLE[1], (*TABLE[2][:2], bytes([version]) * 64))
        other.save(StoredResults(table, VIEWS, ["pkg.a"], {}))

    for version in range(resultcache.KEPT_TABLES - 1):
        another_version(version)
    assert table.exists()  # among the last ones
    another_version(200)
    assert not table.exists()
    monkeypatch.setattr(resultcache, "_tables", {})
    assert first.load() is None  # its table forgotten: a full check, once
    assert len(list(first.directory.glob("modules-*.pickle"))) == resultcache.KEPT_TABLES


def test_a_table_read_is_made_the_newest(tmp_path, monkeypatch):
    monkeypatch.setattr(resultcache, "_tables", {})
    store = ResultStore(tmp_path, tmp_path, "contract", "key")
    store.save(_stored())
    os.utime(_table(store), ns=(1, 1))
    monkeypatch.setattr(resultcache, "_tables", {})
    assert store.load() == _stored()
    assert _table(store).stat().st_mtime_ns > 1
    os.utime(_table(store), ns=(1, 1))
    assert store.load() == _stored()  # known to this process: touched all the same
    assert _table(store).stat().st_mtime_ns > 1


def test_a_damaged_table_this_process_did_not_write_is_written_again(tmp_path, monkeypatch):
    monkeypatch.setattr(resultcache, "_tables", {})
    store = ResultStore(tmp_path, tmp_path, "contract", "key")
    store.save(_stored())
    table = _table(store)
    table.write_bytes(b"")  # a crash while it was written, say
    monkeypatch.setattr(resultcache, "_tables", {})  # another process
    monkeypatch.setattr(resultcache, "_last_table", [])
    assert store.load() is None
    store.save(_stored())
    monkeypatch.setattr(resultcache, "_tables", {})
    assert store.load() == _stored()


def test_a_read_only_cache_serves_every_contract(tmp_path, monkeypatch):
    monkeypatch.setattr(resultcache, "_tables", {})
    stores = [ResultStore(tmp_path, tmp_path, f"contract{n}", "key") for n in range(3)]
    for store in stores:
        store.save(_stored())
    monkeypatch.setattr(resultcache, "_tables", {})  # another process, which cannot touch the table

    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(os, "utime", read_only)
    assert [store.load() for store in stores] == [_stored()] * 3


def test_findings_read_back_are_the_findings_written(tmp_path):
    """Read back a column at a time and built without ``__init__``: equal, equally
    hashed, with the same attributes in the same order, as the finding written."""
    found = Finding(
        "pkg/a.py", 3, 4, "DOM101", "event field 'episode'", "pkg.a.E.episode", "DOM101:pkg.a:E.episode",
        "contract", ("a detail",), 3, 12, (("word", "episode"),),
    )  # fmt: skip
    store = ResultStore(tmp_path, tmp_path, "contract", "key")
    store.save(StoredResults(TABLE, VIEWS, ["pkg.a", "pkg.b"], {"pkg.a": [FINDING, found], "pkg.b": []}))
    loaded = store.load()
    assert loaded is not None
    assert loaded.findings == {"pkg.a": [FINDING, found]}  # a module without findings is not kept
    for read, written in zip(loaded.findings["pkg.a"], [FINDING, found], strict=True):
        assert type(read) is Finding and hash(read) == hash(written)
        assert list(vars(read).items()) == list(vars(written).items())


def _column(at: int, values: tuple[Any, ...]) -> Callable[[tuple[Any, ...]], tuple[Any, ...]]:
    """The stored findings (modules, counts, columns) with the column ``at`` replaced."""
    return lambda stored: (stored[0], stored[1], (*stored[2][:at], values, *stored[2][at + 1 :]))


@pytest.mark.parametrize(
    "damage",
    [
        lambda stored: (stored[0], stored[1], stored[2][:-1]),  # a field missing
        _column(1, (True,)),  # a flag for a line
        _column(3, (None,)),  # no code
        _column(8, (("a detail", 1),)),  # a detail that is no string
        _column(8, (["a detail"],)),  # details in a list
        _column(11, ((("word",),),)),  # a field without its value
        _column(11, ((("word", 1),),)),  # a field's value that is no string
        _column(0, ("pkg/a.py", "pkg/a.py")),  # a column longer than the others
        lambda stored: (stored[0], stored[1], (list(stored[2][0]), *stored[2][1:])),  # a column in a list
        lambda stored: (stored[0], (2,), stored[2]),  # more findings counted than stored
        lambda stored: (stored[0], (True,), stored[2]),  # a flag for a count
        lambda stored: (("pkg.a", "pkg.b"), (1, 0), stored[2]),  # a module counted without findings
        lambda stored: (("pkg.a", "pkg.a"), (1, 1), tuple(column * 2 for column in stored[2])),  # a module twice
        lambda stored: ((1,), stored[1], stored[2]),  # a number for a module
        lambda stored: list(stored),  # a list for the findings
        lambda stored: {"pkg.a": [tuple(column[0] for column in stored[2])]},  # a finding at a time
    ],
    ids=[
        "short",
        "bool",
        "code",
        "detail",
        "details-list",
        "pair",
        "pair-value",
        "longer",
        "column-list",
        "count",
        "count-bool",
        "count-zero",
        "twice",
        "module",
        "list",
        "by-finding",
    ],
)
def test_stored_findings_of_another_shape_are_a_full_check(tmp_path, damage):
    store = ResultStore(tmp_path, tmp_path, "contract", "key")
    store.save(_stored())
    assert store.load() is not None
    _rewrite(store, lambda parts: parts.__setitem__(2, damage(parts[2])))
    assert store.load() is None


def test_findings_are_stored_a_field_at_a_time_with_equal_values_once(tmp_path):
    """The modules that have findings, how many each has, then a column per field;
    equal messages, details and fields are pickled once."""
    word = "episode"
    first, second = (
        dataclasses.replace(FINDING, line=line, message=f"event field '{word}'", fields=(("word", word),))
        for line in (3, 9)
    )
    fields = first.fields
    assert fields == second.fields and fields is not second.fields and first.message is not second.message
    store = ResultStore(tmp_path, tmp_path, "contract", "key")
    store.save(StoredResults(TABLE, VIEWS, ["pkg.a", "pkg.b"], {"pkg.a": [first], "pkg.b": [second]}))
    body = pickle.loads(store.path.read_bytes())[3]
    modules, counts, columns = pickle.loads(store.body_path(body).read_bytes())[2]
    assert (modules, counts) == (("pkg.a", "pkg.b"), (1, 1))
    assert columns[1] == (3, 9) and columns[11] == (fields, fields) and columns[11][0] is columns[11][1]
    assert columns[4][0] is columns[4][1]
    loaded = store.load()
    assert loaded is not None and loaded.findings == {"pkg.a": [first], "pkg.b": [second]}


@pytest.mark.parametrize(
    "noqa",
    [
        {"pkg/a.py": ((3, ("DOM101", 4)),)},  # a code that is no string
        {"pkg/a.py": ((True, None),)},  # a flag for a line
        {"pkg/a.py": ((3,),)},  # a line without its codes
        {"pkg/a.py": [(3, None)]},  # lines in a list
        {"pkg/a.py": ((3, "DOM101"),)},  # codes in a string
        {1: ((3, None),)},  # a number for a file
    ],
    ids=["code", "bool", "short", "list", "string", "file"],
)
def test_noqa_comments_of_another_shape_are_a_full_check(tmp_path, noqa):
    store = ResultStore(tmp_path, tmp_path, "contract", "key")
    store.save(dataclasses.replace(_stored(), noqa={"pkg/a.py": ((3, ("DOM101",)), (5, None))}))
    assert store.load() is not None
    _rewrite(store, lambda parts: parts.__setitem__(6, noqa))
    assert store.load() is None


CHAIN = (("pkg.a", "pkg.b", (3, 7)), ("pkg.b", "pkg.x", ()))
EXTRA = ((("boundary:pkg.a->pkg.b", CHAIN),), (("pkg",), ("pkg.x",)))


def test_what_a_report_shows_besides_findings_reads_back_as_written(tmp_path):
    store = ResultStore(tmp_path, tmp_path, "contract", "key")
    store.save(dataclasses.replace(_stored(), extra=EXTRA))
    loaded = store.load()
    assert loaded is not None and loaded.extra == EXTRA and loaded.decoded_extra is not None
    chains, domains = loaded.decoded_extra["chains"], loaded.decoded_extra["domains"]
    assert chains == {"boundary:pkg.a->pkg.b": (Link("pkg.a", "pkg.b", (3, 7)), Link("pkg.b", "pkg.x"))}
    assert all(type(link) is Link for link in chains["boundary:pkg.a->pkg.b"])
    assert domains == Domains(("pkg",), ("pkg.x",))
    assert resultcache.plain_extra(loaded.decoded_extra) == EXTRA


@pytest.mark.parametrize(
    "extra",
    [
        ((("boundary:pkg.a->pkg.b", ()),), None),  # a chain without links
        ((("boundary:pkg.a->pkg.b", list(CHAIN)),), None),  # links in a list
        ((("boundary:pkg.a->pkg.b", (("pkg.a", "pkg.b"),)),), None),  # a link without its lines
        ((("boundary:pkg.a->pkg.b", (("pkg.a", "pkg.b", (True,)),)),), None),  # a flag for a line
        ((("boundary:pkg.a->pkg.b", (("pkg.a", 1, ()),)),), None),  # a number for a module
        (((1, CHAIN),), None),  # a number for a fingerprint
        ((), (("pkg",),)),  # domains without the forbidden ones
    ],
    ids=["empty", "list", "short", "bool", "module", "fingerprint", "domains"],
)
def test_what_a_report_shows_of_another_shape_is_a_full_check(tmp_path, extra):
    store = ResultStore(tmp_path, tmp_path, "contract", "key")
    store.save(dataclasses.replace(_stored(), extra=EXTRA))
    _rewrite(store, lambda parts: parts.__setitem__(7, extra))
    assert store.load() is None


def _body_part(store: ResultStore, at: int) -> Any:
    body = pickle.loads(store.path.read_bytes())[3]
    return pickle.loads(store.body_path(body).read_bytes())[at]


def test_covered_modules_in_the_table_s_order_are_stored_as_a_mask_of_it(tmp_path):
    """A byte for each module of the table, 1 for a covered one: read back without
    decoding the names again."""
    store = ResultStore(tmp_path, tmp_path, "contract", "key")
    store.save(_stored())
    assert _body_part(store, 1) == b"\0\1\1"
    loaded = store.load()
    assert loaded is not None and loaded.covered == ["pkg.a", "pkg.b"]
    assert loaded.covered[0] is loaded.table[0][1]  # the table's names, not new ones


@pytest.mark.parametrize("covered", [["pkg.b", "pkg.a"], ["pkg.a", "pkg.a"], ["pkg.a", "pkg.c"], []])
def test_covered_modules_in_another_order_or_not_in_the_table_are_stored_by_name(tmp_path, covered):
    store = ResultStore(tmp_path, tmp_path, "contract", "key")
    store.save(dataclasses.replace(_stored(), covered=covered, findings={}))
    assert _body_part(store, 1) == (covered if covered else b"\0\0\0")
    loaded = store.load()
    assert loaded is not None and loaded.covered == covered


@pytest.mark.parametrize("written", [b"\0\1", b"\0\1\1\1", b"\0\2\1", "\0\1\1", ["pkg.a", 1], ("pkg.a", "pkg.b")])
def test_covered_modules_of_another_shape_are_a_full_check(tmp_path, written):
    store = ResultStore(tmp_path, tmp_path, "contract", "key")
    store.save(_stored())
    _rewrite(store, lambda parts: parts.__setitem__(1, written))
    assert store.load() is None


def test_results_stored_by_the_last_format_are_a_full_check(tmp_path):
    """Format 8 stored the covered modules by name, and named itself so."""
    store = ResultStore(tmp_path, tmp_path, "contract", "key")
    store.save(_stored())
    _rewrite(store, lambda parts: parts.__setitem__(1, ["pkg.a", "pkg.b"]))
    _, key, table, body = pickle.loads(store.path.read_bytes())
    store.path.write_bytes(pickle.dumps(("domain-fence module results 8", key, table, body)))
    assert store.load() is None


def test_findings_of_a_module_not_covered_are_a_full_check(tmp_path):
    store = ResultStore(tmp_path, tmp_path, "contract", "key")
    store.save(_stored())
    _rewrite(store, lambda parts: parts.__setitem__(2, (("pkg",), *parts[2][1:])))
    assert store.load() is None


def _written(monkeypatch) -> list[Path]:
    """Every file the store writes from now on."""
    written: list[Path] = []
    real = resultcache.write_atomically
    monkeypatch.setattr(resultcache, "write_atomically", lambda path, data: written.append(path) or real(path, data))
    return written


def test_results_as_they_were_read_keep_their_body_as_read(tmp_path, monkeypatch):
    """The body of stored results (all but the table) read is kept, neither encoded nor
    written again, when what is stored holds the same; anything else in it is encoded."""
    encoded: list[StoredResults] = []
    real = resultcache._body
    monkeypatch.setattr(resultcache, "_body", lambda stored: encoded.append(stored) or real(stored))
    store = ResultStore(tmp_path, tmp_path, "contract", "key")
    store.save(_stored())
    loaded = store.load()
    assert loaded is not None and loaded.body is not None and len(encoded) == 1
    body = store.body_path(loaded.body)
    before = body.stat()
    written = _written(monkeypatch)
    other_table = (TABLE[0], (None, None, None), (b"", b"e" * 64, None))
    again = dataclasses.replace(_stored(), table=other_table, findings={"pkg.a": [dataclasses.replace(FINDING)]})
    store.save(again, loaded)  # an equal finding, another table
    assert len(encoded) == 1 and pickle.loads(store.path.read_bytes())[3] == loaded.body
    assert written == [store.directory / f"modules-{pickle.loads(store.path.read_bytes())[2]}.pickle", store.path]
    assert body.stat().st_ino == before.st_ino and list(store.directory.glob("body-*")) == [body]
    assert store.load() == again
    for changed in (
        {"warnings": ("another warning",)},
        {"findings": {"pkg.a": [dataclasses.replace(FINDING, line=4)]}},
        {"noqa": {"pkg/a.py": ((3, None),)}},
        {"views": (None, b"w" * 16, None)},
        {"answers": ("an answer",)},
        {"covered": ["pkg.a"]},
    ):
        store.save(dataclasses.replace(_stored(), **changed), loaded)
        assert store.load() == dataclasses.replace(_stored(), **changed)
    assert len(encoded) == 7


def test_a_body_kept_but_gone_meanwhile_is_written_again(tmp_path):
    store = ResultStore(tmp_path, tmp_path, "contract", "key")
    store.save(_stored())
    loaded = store.load()
    assert loaded is not None and loaded.body is not None
    store.body_path(loaded.body).unlink()  # forgotten by another process
    store.save(_stored(), loaded)
    assert store.load() == _stored()


@pytest.mark.parametrize("damage", ["gone", "garbage", "truncated", "planted", "a path for a name", "bytes"])
def test_a_missing_or_damaged_body_is_a_full_check(tmp_path, damage):
    store = ResultStore(tmp_path, tmp_path, "contract", "key")
    store.save(_stored())
    kind, key, table, name = pickle.loads(store.path.read_bytes())
    body = store.body_path(name)
    if damage == "gone":
        body.unlink()
    elif damage == "garbage":
        body.write_bytes(b"not a pickle")
    elif damage == "truncated":
        body.write_bytes(body.read_bytes()[:40])
    elif damage == "planted":
        body.write_bytes(b"\x80\x05cos\nsystem\n.")  # names a function: refused
    elif damage == "a path for a name":
        store.path.write_bytes(pickle.dumps((kind, key, table, "../" + name)))
    else:  # the body itself where its name goes, as the last format had it
        store.path.write_bytes(pickle.dumps((kind, key, table, body.read_bytes())))
    assert store.load() is None


def test_a_contract_s_old_bodies_are_forgotten_not_another_s(tmp_path):
    other = ResultStore(tmp_path, tmp_path, "other", "key")
    other.save(_stored())
    [others] = other.directory.glob(f"body-{other.name}-*")
    store = ResultStore(tmp_path, tmp_path, "contract", "key")
    versions = [
        dataclasses.replace(_stored(), findings={"pkg.a": [dataclasses.replace(FINDING, line=line)]})
        for line in range(resultcache.KEPT_BODIES + 3)
    ]
    for tick, version in enumerate(versions):  # findings that differ each time
        store.save(version)
        os.utime(store.body_path(pickle.loads(store.path.read_bytes())[3]), ns=(tick, tick))  # one per tick
    assert len(list(store.directory.glob(f"body-{store.name}-*"))) == resultcache.KEPT_BODIES
    assert others.exists() and other.load() == _stored()
    assert store.load() == versions[-1]


def _table_name(encoded: bytes) -> str:
    """The name a table written as ``encoded`` is read under: a digest of its bytes."""
    return hashlib.sha256(encoded).hexdigest()[:32]


def _as_written(table: resultcache.Table) -> object:
    """``table`` as written: its stamps packed, zeros where there is none, whose
    positions follow."""
    names, stamps, digests = table
    packed = b"".join(bytes(32) if stamp is None else struct.pack("<QqqQ", *stamp) for stamp in stamps)
    return names, (packed, tuple(at for at, stamp in enumerate(stamps) if stamp is None)), digests


def test_a_table_written_by_hand_as_a_run_writes_it_is_read(tmp_path, monkeypatch):
    """(The damaged tables above are refused for their damage, not their form.)"""
    monkeypatch.setattr(resultcache, "_tables", {})
    store = ResultStore(tmp_path, tmp_path, "contract", "key")
    store.save(_stored())
    encoded = pickle.dumps((resultcache.TABLE_FORMAT, None, _as_written(TABLE)))
    (store.directory / f"modules-{_table_name(encoded)}.pickle").write_bytes(encoded)
    _rewrite(store, table=_table_name(encoded))
    monkeypatch.setattr(resultcache, "_tables", {})
    assert store.load() == _stored()


def test_a_table_named_by_the_digest_the_last_format_took_is_a_full_check(tmp_path, monkeypatch):
    """Format 8 named a table by its bytes' BLAKE2b: read now, its name is not its digest."""
    monkeypatch.setattr(resultcache, "_tables", {})
    store = ResultStore(tmp_path, tmp_path, "contract", "key")
    store.save(_stored())
    encoded = pickle.dumps((resultcache.TABLE_FORMAT, None, _as_written(TABLE)))
    named = hashlib.blake2b(encoded, digest_size=16).hexdigest()
    (store.directory / f"modules-{named}.pickle").write_bytes(encoded)
    _rewrite(store, table=named)
    monkeypatch.setattr(resultcache, "_tables", {})
    assert store.load() is None


def _table_of(size: int) -> resultcache.Table:
    names = tuple(f"pkg.m{n}" for n in range(size))
    return names, tuple((n, 10, 10, n) for n in range(size)), tuple(bytes([n]) * 16 for n in range(size))


def _edited(table: resultcache.Table, *rows: int) -> resultcache.Table:
    """``table`` with the files at ``rows`` edited: a new digest, not settled yet."""
    stamps, digests = list(table[1]), list(table[2])
    for at in rows:
        stamps[at], digests[at] = None, b"e" * 16
    return table[0], tuple(stamps), tuple(digests)


def _another_process(monkeypatch) -> None:
    monkeypatch.setattr(resultcache, "_tables", {})
    monkeypatch.setattr(resultcache, "_last_table", [])


def _stored_on(table: resultcache.Table) -> StoredResults:
    return StoredResults(table, (None,) * len(table[0]), ["pkg.m0"], {})


def _table_data(store: ResultStore) -> object:
    name = pickle.loads(store.path.read_bytes())[2]
    return pickle.loads((store.directory / f"modules-{name}.pickle").read_bytes())


def test_an_edited_table_is_written_as_the_rows_that_differ_from_its_base(tmp_path, monkeypatch):
    _another_process(monkeypatch)
    store = ResultStore(tmp_path, tmp_path, "contract", "key")
    whole = _table_of(64)
    store.save(_stored_on(whole))
    [base] = store.directory.glob("modules-*.pickle")
    for rows in ((3,), (3, 40), (3, 40, 41, 63)):  # a sixteenth of the rows at most
        _another_process(monkeypatch)
        loaded = store.load()
        edited = _edited(whole, *rows)
        store.save(_stored_on(edited), loaded)
        differing = (rows, (bytes(32) * len(rows), tuple(range(len(rows)))), (b"e" * 16,) * len(rows))
        assert _table_data(store) == (resultcache.TABLE_FORMAT, base.name[len("modules-") : -len(".pickle")], differing)
        _another_process(monkeypatch)
        assert store.load() == _stored_on(edited)
    _another_process(monkeypatch)
    loaded = store.load()
    edited = _edited(whole, *range(5))  # more than a sixteenth: whole again
    store.save(_stored_on(edited), loaded)
    assert _table_data(store) == (resultcache.TABLE_FORMAT, None, _as_written(edited))
    assert store.load() == _stored_on(edited)
    renamed = (tuple(f"pkg.n{n}" for n in range(64)), *_edited(whole, 3)[1:])
    store.save(_stored_on(renamed), store.load())  # other modules: whole
    assert _table_data(store) == (resultcache.TABLE_FORMAT, None, _as_written(renamed))


def test_a_base_is_kept_where_files_cannot_be_touched(tmp_path, monkeypatch):
    """A cache whose files' times cannot be set (some shared mounts): the base of the
    table written last is never forgotten, however old its time, and the tables kept
    stay as many as ever."""
    set_times = os.utime

    def refused(*args: object, **kwargs: object) -> None:
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(resultcache.os, "utime", refused)
    store = ResultStore(tmp_path, tmp_path, "contract", "key")
    whole = _table_of(64)
    dated: set[Path] = set()
    for run in range(2 * resultcache.KEPT_TABLES + 2):
        _another_process(monkeypatch)
        loaded = store.load()
        assert run == 0 or loaded is not None, f"run {run}: a full check"
        store.save(_stored_on(_edited(whole, run)), loaded)
        for table in set(store.directory.glob("modules-*.pickle")) - dated:  # written now: the newest
            set_times(table, ns=(run * 10**9, run * 10**9))
            dated.add(table)
        assert len(list(store.directory.glob("modules-*.pickle"))) <= resultcache.KEPT_TABLES


@pytest.mark.parametrize(
    "damage",
    [
        "base gone",
        "base damaged",
        "on a table on a base",
        ((64,), (bytes(32), (0,)), (b"",)),  # a row past the last
        ((-1,), (bytes(32), (0,)), (b"",)),  # a row before the first
        ((3, 3), (bytes(64), (0, 1)), (b"", b"")),  # a row twice
        ((True,), (bytes(32), (0,)), (b"",)),  # a flag for a row
        ((3,), (bytes(24), ()), (b"",)),  # a stamp of three numbers
        ((3,), (bytes(32), (0,)), ("digest",)),  # a digest that is no bytes
        ((3,), (bytes(32), (0,)), (b"", b"")),  # columns of unequal length
        [(3,), (bytes(32), (0,)), (b"",)],  # a list for the rows
    ],
    ids=["base-gone", "base-damaged", "chain", "past", "before", "twice", "bool", "stamp", "digest", "unequal", "list"],
)
def test_a_table_on_a_base_not_there_or_of_another_shape_is_a_full_check(tmp_path, monkeypatch, damage):
    _another_process(monkeypatch)
    store = ResultStore(tmp_path, tmp_path, "contract", "key")
    whole = _table_of(64)
    store.save(_stored_on(whole))
    [base] = store.directory.glob("modules-*.pickle")
    store.save(_stored_on(_edited(whole, 3)), store.load())
    on_base = pickle.loads(store.path.read_bytes())[2]
    _another_process(monkeypatch)
    assert store.load() == _stored_on(_edited(whole, 3))
    _another_process(monkeypatch)
    if damage == "base gone":
        base.unlink()
    elif damage == "base damaged":
        base.write_bytes(base.read_bytes().replace(b"pkg.m1", b"pkg.x1"))  # not the bytes it is named after
    else:
        chained = damage == "on a table on a base"
        base_name, rows = (on_base, ((), (b"", ()), ())) if chained else (base.stem[len("modules-") :], damage)
        encoded = pickle.dumps((resultcache.TABLE_FORMAT, base_name, rows))
        name = _table_name(encoded)
        (store.directory / f"modules-{name}.pickle").write_bytes(encoded)
        _rewrite(store, table=name)
    assert store.load() is None


def _save_versions(directory: str, rounds: int, first: int) -> None:
    """Store results of two versions in turn, as a run after each edit would."""
    store = ResultStore(Path(directory), Path(directory), "contract", "key")
    for round_ in range(rounds):
        version = first + round_ % 2
        store.save(_version(version), store.load())


def _version(version: int) -> StoredResults:
    table = _edited(_table_of(64), version)
    return StoredResults(table, (None,) * 64, ["pkg.m0"], {"pkg.m0": [dataclasses.replace(FINDING, line=version)]})


def test_processes_saving_at_once_never_expose_half_a_file(tmp_path):
    context = multiprocessing.get_context("spawn" if os.name == "nt" else "fork")
    writers = [context.Process(target=_save_versions, args=(str(tmp_path), 40, first)) for first in (1, 3)]
    for writer in writers:
        writer.start()
    store = ResultStore(tmp_path, tmp_path, "contract", "key")
    versions = [_version(version) for version in range(1, 5)]
    hits = 0
    while any(writer.is_alive() for writer in writers):
        try:
            kind, key, table, body = pickle.loads(store.path.read_bytes())  # never half a file
            assert (kind, key) == (resultcache.FORMAT, "key")
            pickle.loads(store.body_path(body).read_bytes())
            pickle.loads((store.directory / f"modules-{table}.pickle").read_bytes())
        except FileNotFoundError:  # not written yet, or forgotten since the file naming it was read
            continue
        loaded = store.load()
        assert loaded is None or loaded in versions
        hits += loaded is not None
    for writer in writers:
        writer.join()
        assert writer.exitcode == 0
    assert [path.name for path in store.directory.iterdir() if path.name.startswith(".tmp-")] == []
    assert hits > 0 and store.load() in versions


def test_the_tool_s_files_are_found_in_the_order_rglob_finds_them(tmp_path):
    """The tool's digest reads its files found by a walk, not ``rglob``: the same files,
    in the same order (by path parts: ``a/b.py`` before ``a.b/c.py``), but in Python's
    compiled caches (unless made a package)."""
    for name in ("a/b.py", "a.b/c.py", "a/z/d.py", "top.py", "a/notes.txt", "a/__pycache__/b.cpython-311.pyc"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    (tmp_path / "linked").symlink_to(tmp_path / "a", target_is_directory=True)  # rglob does not enter it
    (tmp_path / "dir.py").mkdir()  # no file
    expected = [path.relative_to(tmp_path).as_posix() for path in sorted(tmp_path.rglob("*.py")) if path.is_file()]
    (tmp_path / "a" / "__pycache__" / "stray.py").write_text("")
    found = [name for name, entry in resultcache._python_files(str(tmp_path))]
    assert found == expected == ["a/b.py", "a/z/d.py", "a.b/c.py", "top.py"]
    for name in ("__init__.py", "e.py"):  # a package all the same, as grimp and every walk see it
        (tmp_path / "a.b" / "__pycache__" / name).parent.mkdir(exist_ok=True)
        (tmp_path / "a.b" / "__pycache__" / name).write_text("")
    found = [name for name, entry in resultcache._python_files(str(tmp_path))]
    assert found == ["a/b.py", "a/z/d.py", "a.b/__pycache__/__init__.py", "a.b/__pycache__/e.py", "a.b/c.py", "top.py"]


def test_the_tool_s_files_are_listed_and_stamped_once_in_a_run(tmp_path, monkeypatch):
    """Within the listings a run shares, the tool's digest takes its files' stamps from
    the entries an earlier walk (the run cache's) listed and stamped: no file is asked again."""
    monkeypatch.setattr(resultcache, "RACY_WINDOW_NS", -1)
    top = tmp_path / "code"
    (top / "sub").mkdir(parents=True)
    (top / "a.py").write_text("a = 1\n")
    (top / "sub" / "b.py").write_text("b = 1\n")
    with shared_listings():
        for entry in (*listing(top), *listing(top / "sub")):
            entry.stat()
        monkeypatch.setattr(os, "scandir", None)  # listing again would fail
        monkeypatch.setattr(os, "stat", None)
        stamps = resultcache._tool_stamps(resultcache._python_files(str(top)))
    monkeypatch.undo()
    monkeypatch.setattr(resultcache, "RACY_WINDOW_NS", -1)
    assert stamps is not None and stamps == resultcache._tool_stamps(resultcache._python_files(str(top)))


def test_the_code_s_digest_is_kept_under_its_files_stamps(tmp_path, monkeypatch):
    monkeypatch.setattr(resultcache, "RACY_WINDOW_NS", -1)  # a change time cannot be set back
    top, cache = tmp_path / "code", tmp_path / "cache"
    for name in ("a.py", "sub/b.py"):
        (top / name).parent.mkdir(parents=True, exist_ok=True)
        (top / name).write_text(f"# {name}\n")
    read = resultcache.code_digest(str(top))
    assert resultcache.code_digest(str(top), cache) == read
    kept = cache / "results" / "tool.json"
    entry = json.loads(kept.read_text())
    kept.write_text(json.dumps({**entry, "digest": "f" * 64}))
    assert resultcache.code_digest(str(top), cache) == "f" * 64  # kept: the files were not read again
    (top / "sub" / "b.py").write_text("# edited\n")
    assert resultcache.code_digest(str(top), cache) == resultcache.code_digest(str(top)) != read
    kept.write_text("{damaged")
    assert resultcache.code_digest(str(top), cache) == resultcache.code_digest(str(top))


def test_the_digest_of_code_changed_a_moment_ago_is_not_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(resultcache, "RACY_WINDOW_NS", 600 * 10**9)  # modified within ten minutes
    (tmp_path / "code").mkdir()
    (tmp_path / "code" / "a.py").write_text("")
    resultcache.code_digest(str(tmp_path / "code"), tmp_path / "cache")
    assert not (tmp_path / "cache" / "results" / "tool.json").exists()


@pytest.mark.parametrize(
    ("text", "digits"),
    [
        ("0123456789abcdef" * 2, True),
        ("0123456789ABCDEF" * 2, False),
        ("a" * 31, False),
        ("a" * 33, False),
        ("a" * 31 + "\n", False),
        ("a" * 15 + "g" + "a" * 16, False),
        ("a" * 15 + "/" + "a" * 16, False),
        ("\u0661" * 32, False),  # digits of another script
        (int("1" * 32), False),
        (None, False),
    ],
)
def test_a_file_s_name_is_a_digest_only_when_it_is_as_many_lowercase_hex_digits(text, digits):
    assert resultcache._hex_digits(text, 32) is digits


def test_the_key_digests_each_file_and_its_module_in_the_order_of_the_files():
    """The bytes every earlier version fed the key's digest, module then file, in the
    files' order: results stored before read back under the same key."""
    paths = {"/p/src/pkg/b.py": "pkg.b", "/p/src/pkg/__init__.py": "pkg", "/p/src/pkg/a/é.py": "pkg.a.é"}
    expected = hashlib.sha256()
    for path, module in sorted(paths.items()):
        expected.update(f"{module}\0{path}\1".encode("utf-8", "surrogateescape"))
    assert resultcache._paths_digest(paths) == expected.digest()
    assert resultcache._paths_digest(dict(reversed(paths.items()))) == expected.digest()


def test_a_record_is_keyed_with_its_class_and_field_names():
    """A named tuple, as a dataclass: a configuration's key tells apart records of equal
    values but other classes or fields."""
    rule = WordRule(("episode",), "run")
    assert resultcache.stable(rule) == ("WordRule", ("words", ("episode",)), ("replacement", "run"))
    options = BaselineOptions(Path("/b.json"))
    assert resultcache.stable(options) == (
        "BaselineOptions",
        ("path", ("path", "/b.json")),
        ("stale", "error"),
        ("written", None),
    )


def test_a_recorded_digest_stands_for_a_file_only_under_the_stamp_recorded_with_it(tmp_path):
    for name in ("a", "b", "c", "d"):
        (tmp_path / f"{name}.py").write_text(f"{name} = 1\n")
    (tmp_path / "ns").mkdir()
    (tmp_path / "ns2").mkdir()
    names = ("pkg.a", "pkg.b", "pkg.c", "pkg.d", "pkg.ns", "pkg.ns2", "pkg.gone")
    files = ("a.py", "b.py", "c.py", "d.py", "ns", "ns2", "gone.py")
    digests = Digests({str(tmp_path / file): name for file, name in zip(files, names, strict=True)})
    stamps = tuple(file_stamp(tmp_path / file) for file in files[:2]) + ((0, 0, 0, 0),) * 2 + (None,) * 3
    recorded = (
        b"trusted",  # under its stamp
        None,  # unknown
        b"stale",  # under another stamp: the file is read
        hashlib.blake2b((tmp_path / "d.py").read_bytes()).digest(),  # read, and as recorded
        b"",  # a namespace directory
        b"planted",  # a directory has the empty digest, whatever is recorded
        b"gone",
    )
    assert digests.changed((names, stamps, recorded)) == {"pkg.b", "pkg.c", "pkg.ns2", "pkg.gone"}
