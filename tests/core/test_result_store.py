"""A contract's stored results read back exactly as written, and anything else refused."""

from __future__ import annotations

import pickle

import pytest

from domain_fence.core.engine import resultcache
from domain_fence.core.engine.resultcache import ModuleEntry, ResultStore, StoredResults
from domain_fence.core.model.findings import Finding

FINDING = Finding("pkg/a.py", 3, 4, "DOM101", "event field 'episode'", "pkg.a.E.episode", "DOM101:pkg.a:E.episode")
MODULES = {
    "pkg": ModuleEntry(None, b"", None),
    "pkg.a": ModuleEntry((12, 1_700_000_000_000_000_000, 1_700_000_000_000_000_001, 77), b"d" * 64, b"v" * 16),
    "pkg.b": ModuleEntry(None, None, None),
}


def _stored() -> StoredResults:
    return StoredResults(MODULES, ["pkg.a", "pkg.b"], {"pkg.a": [FINDING], "pkg.b": []}, ("a warning",))


def test_stored_results_read_back_as_written(tmp_path):
    store = ResultStore(tmp_path, tmp_path, "contract", "key")
    store.save(_stored())
    assert store.load() == _stored()
    assert ResultStore(tmp_path, tmp_path, "contract", "another key").load() is None


@pytest.mark.parametrize(
    "columns",
    [
        (("pkg", "pkg.a"), (None,), (b"", b""), (None, None)),  # columns of unequal length
        (("pkg", "pkg"), (None, None), (b"", b""), (None, None)),  # a module twice
        ((b"pkg",), (None,), (b"",), (None,)),  # a name that is no string
        (("pkg",), ((1, 2, 3),), (b"",), (None,)),  # a stamp of three numbers
        (("pkg",), ((1, 2, 3, True),), (b"",), (None,)),  # a flag for a number
        (("pkg",), (None,), ("digest",), (None,)),  # a digest that is no bytes
        (("pkg",), (None,), (b"",), (1,)),  # a view that is no bytes
        (("pkg",), (None,), (b"",)),  # a column missing
        [("pkg",), (None,), (b"",), (None,)],  # a list for the table
    ],
    ids=["unequal", "twice", "name", "short-stamp", "bool", "digest", "view", "three-columns", "list"],
)
def test_a_module_table_of_another_shape_is_a_full_check(tmp_path, columns):
    store = ResultStore(tmp_path, tmp_path, "contract", "key")
    store.save(_stored())
    data = list(pickle.loads(store.path.read_bytes()))
    data[2] = columns
    store.path.write_bytes(pickle.dumps(tuple(data)))
    assert store.load() is None


def test_the_module_table_is_kept_as_columns(tmp_path):
    store = ResultStore(tmp_path, tmp_path, "contract", "key")
    store.save(_stored())
    data = pickle.loads(store.path.read_bytes())
    assert data[0] == resultcache.FORMAT
    assert data[2][0] == ("pkg", "pkg.a", "pkg.b")
