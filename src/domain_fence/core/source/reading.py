"""Read and parse one file safely: every problem becomes a one-line reason, never a
traceback, so the caller can report the file and go on with the rest."""

import ast
import io
import os
import threading
import tokenize
import warnings
import weakref
from collections.abc import Hashable, Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from domain_fence.core.model.text import one_line


class Unreadable(NamedTuple):
    """Why a file could not be analysed, with the line at fault when there is one."""

    reason: str
    line: int = 1


def decode(data: bytes) -> str | Unreadable:
    """Decode source bytes honouring a BOM and a PEP 263 coding cookie."""
    encoding = "utf-8"
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except SyntaxError as error:
        # An unknown cookie, or bytes in the first two lines that are not UTF-8 (the
        # decoder can say where: the tokenizer only says "invalid or missing").
        if str(error.msg).startswith("invalid or missing encoding declaration"):
            try:
                data.decode(encoding)
            except UnicodeDecodeError as decode_error:
                return _undecodable(data, encoding, decode_error)
        return Unreadable(f"cannot decode: {one_line(error.msg)}", error.lineno or 1)
    except UnicodeDecodeError as error:
        return _undecodable(data, encoding, error)
    except LookupError as error:
        return Unreadable(f"cannot decode: {one_line(error)}")
    return text.removeprefix("\ufeff")


def _undecodable(data: bytes, encoding: str, error: UnicodeDecodeError) -> Unreadable:
    line = data[: error.start].count(b"\n") + 1
    return Unreadable(f"cannot decode as {encoding}: {error.reason} at line {line}", line)


class ReadLedger:
    """The project files read while it is open (one run's): what the run found about any
    other file came from caches under the digest its stamp stands for, so only these
    files can have been read in a version other than the one their digests record."""

    __slots__ = ("__weakref__", "paths", "unseen")

    def __init__(self) -> None:
        global _LEDGERS
        self.paths: set[str] = set()
        self.unseen = False  # something read files without saying which (the graph builder)
        with _OPENING:
            _LEDGERS = (*(ledger for ledger in _LEDGERS if ledger() is not None), weakref.ref(self))


# Replaced whole, never changed in place: hashing threads note their reads while
# another thread may open a ledger (one at a time, so that none is lost).
_LEDGERS: tuple[weakref.ref[ReadLedger], ...] = ()
_OPENING = threading.Lock()


def _open_ledgers() -> Iterator[ReadLedger]:
    for reference in _LEDGERS:
        ledger = reference()
        if ledger is not None:
            yield ledger


def note_reads(paths: Iterable[str | os.PathLike[str]]) -> None:
    """Tell every open ledger these files are read (here, or by a worker process)."""
    if _LEDGERS:
        read = [os.fspath(path) for path in paths]
        for ledger in _open_ledgers():
            ledger.paths.update(read)


def note_unseen_reads() -> None:
    """Tell every open ledger that files were read it cannot name (grimp's build of the
    import graph): each must vouch for every file."""
    for ledger in _open_ledgers():
        ledger.unseen = True


def read_file(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a project file, noted in the open ledgers; raises OSError."""
    note_reads((path,))
    with open(path, "rb") as stream:
        return stream.read()


READ_CHUNK = 1 << 20
# The file read last: (its path, its stamp key, its bytes). See read_version.
_last_read: tuple[str, Hashable, bytes] | None = None


def read_version(path: Path | str, stamp_key: Hashable | None) -> bytes:
    """The bytes of the file at ``path``, whose stamp key (``factcache.Stamp.key``) was
    ``stamp_key`` before it is read (None: it could not be stat'ed, read without being
    kept); OSError when it cannot be read. The file read last is read once while its
    stamp holds: after an edit, one run reads that file for its digest (the stored
    results, the cached facts, their flows), its facts and its text. Kept even while the
    file is unsettled, so that every step of a run reads one version of it; a file
    rewritten within its stamp's tick since is read again once :func:`forget_read` (the
    index forgets a module the language server is told changed), or by the next run."""
    global _last_read
    text_path = os.fspath(path)
    last = _last_read
    if last is not None and last[0] == text_path and last[1] == stamp_key:
        return last[2]
    note_reads((text_path,))
    # Through the descriptor, unbuffered, as factcache.file_digest reads: a fresh
    # checkout's files are all unsettled, and hashed through here.
    descriptor = os.open(text_path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    try:
        chunks = []
        while chunk := os.read(descriptor, READ_CHUNK):
            chunks.append(chunk)
    finally:
        os.close(descriptor)
    data = b"".join(chunks)
    if stamp_key is not None:
        _last_read = (text_path, stamp_key, data)
    return data


def forget_read() -> None:
    """Read the file :func:`read_version` read last again when next asked."""
    global _last_read
    _last_read = None


def read_source(path: Path) -> str | Unreadable:
    try:
        data = read_file(path)
    except OSError as error:
        return Unreadable(f"cannot read: {error.strerror or error}")
    return decode(data)


def parse_source(text: str, filename: str = "<unknown>") -> ast.Module | Unreadable:
    null = text.find("\0")
    if null >= 0:  # the parser's own report of it names no line, or the wrong one
        line = text.count("\n", 0, null) + 1
        return Unreadable(f"cannot parse: null byte at line {line}", line)
    try:
        with warnings.catch_warnings():  # "invalid escape sequence" and the like: not ours to say
            warnings.simplefilter("ignore")
            return ast.parse(text, filename=filename)
    except SyntaxError as error:
        line = error.lineno or 1
        return Unreadable(f"syntax error at line {line}: {one_line(error.msg)}", line)
    except (ValueError, RecursionError, MemoryError) as error:
        return Unreadable(f"cannot parse: {type(error).__name__}: {one_line(error)}")


def load_tree(path: Path) -> ast.Module | Unreadable:
    text = read_source(path)
    if isinstance(text, Unreadable):
        return text
    return parse_source(text, str(path))


def loads_toml(text: str) -> dict[str, Any]:
    """``tomllib.loads``, every refusal a ``TOMLDecodeError``: an integer of more digits
    than Python converts escapes it as a plain ValueError, nesting deeper than Python's
    stack as a RecursionError."""
    import tomllib  # a TOML file is read once per run, if at all

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        raise
    except ValueError as error:
        raise tomllib.TOMLDecodeError(one_line(error)) from None
    except RecursionError:
        raise tomllib.TOMLDecodeError("arrays or tables nested too deeply to read") from None
