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
