"""Python's cyclic garbage collector, paused while the facts of a project are read or checked.

The facts of thousands of files, and the trees they are read from, hold no reference
cycles; yet reading and checking them allocates so many objects that the collector runs
again and again over every fact kept so far. A cold check of Monty x20 through
``lint-imports``, whose process keeps its collector, spent 3 to 6 of its 13 to 16
seconds in such collections. Reference counting frees everything all the same; the
collector resumes afterwards (a language server, a pytest session go on).
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

_P = ParamSpec("_P")
_R = TypeVar("_R")


@contextmanager
def paused_cyclic_collection() -> Iterator[None]:
    """No cyclic collection within; as it was before afterwards (a nested pause, or a
    process that turned the collector off, keeps it off)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def without_cyclic_collection(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """``function`` run within :func:`paused_cyclic_collection`."""

    @functools.wraps(function)
    def paused(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with paused_cyclic_collection():
            return function(*args, **kwargs)

    return paused


@contextmanager
def kept_until_exit() -> Iterator[None]:
    """For a host that keeps what a check reads until its process ends (lint-imports, a
    pytest session): the collector is paused during the check, and what is alive then
    frozen before it resumes. Resumed as it was, it would walk every object the check
    allocated at its next collections, each young object once more (1.4 s after a cold
    check of Monty x20), and again at each later full collection. Frozen, they are
    passed by; reference counting still frees them. The host's own cycles are collected
    first, while they are few, so that none is frozen with them."""
    if gc.isenabled():
        gc.collect()
    with paused_cyclic_collection():
        try:
            yield
        finally:
            gc.freeze()
