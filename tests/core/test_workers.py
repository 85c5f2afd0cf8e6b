"""The worker pool as a host's test session runs it: with other threads alive (grimp's,
the hashing helpers) and every warning recorded, as pytest records them."""

from __future__ import annotations

import operator
import threading
import warnings

from domain_fence.core.index.workers import map_in_workers


def test_workers_start_beside_other_threads_without_a_warning():
    # Python 3.12 and later warn of a fork in a process running other threads: pytest
    # would show it after every session that checks a project.
    release = threading.Event()
    beside = threading.Thread(target=release.wait, daemon=True)
    beside.start()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert map_in_workers(2, operator.neg, [1, 2, 3]) == [-1, -2, -3]
    finally:
        release.set()
        beside.join()
    assert [str(w.message) for w in caught] == []
