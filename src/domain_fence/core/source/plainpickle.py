"""Reading back what a cache pickled, refusing anything but plain values."""

from __future__ import annotations

import io
import pickle
from typing import Any


class _PlainUnpickler(pickle.Unpickler):
    """Plain containers, strings, bytes and numbers only: a planted file runs nothing."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed here")


def plain_loads(data: bytes) -> Any:
    """The plain value pickled in ``data``; an UnpicklingError when it names a class or
    function (any other damage raises what pickle raises)."""
    return _PlainUnpickler(io.BytesIO(data)).load()
