"""A contract that raises while it is checked: one line naming where, never a traceback."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from domain_fence.core.index.blockers import printable
from domain_fence.core.model.text import one_line


class ContractFailed(Exception):
    """A contract could not be checked (a missing module, a corrupt baseline, ...);
    the message is one line naming the file and the contract's section."""


@contextmanager
def failure_as_one_line(where: str, passing: tuple[type[BaseException], ...] = ()) -> Iterator[None]:
    """Any exception but ``passing`` (and the interpreter's own) raised in the block
    becomes a ContractFailed: ``where`` (the file and the section), then the error as
    one printable line."""
    kept: tuple[type[BaseException], ...] = (*passing, ContractFailed, KeyboardInterrupt, SystemExit, GeneratorExit)
    try:
        yield
    except kept:
        raise
    except BaseException as error:  # noqa: BLE001 -- a panic in grimp's Rust is a BaseException
        raise ContractFailed(f"{where}: {printable(one_line(error))}") from None
