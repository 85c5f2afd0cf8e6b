"""Read and parse one file safely: every problem becomes a one-line reason, never a
traceback, so the caller can report the file and go on with the rest."""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Unreadable:
    """Why a file could not be analysed, with the line at fault when there is one."""

    reason: str
    line: int = 1


def decode(data: bytes) -> str | Unreadable:
    """Decode source bytes honouring a BOM and a PEP 263 coding cookie."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except SyntaxError as error:  # unknown encoding named by the cookie
        return Unreadable(f"cannot decode: {error.msg}", error.lineno or 1)
    except (UnicodeDecodeError, LookupError) as error:
        line = data[: getattr(error, "start", 0)].count(b"\n") + 1
        return Unreadable(f"cannot decode: {_first_line(error)}", line)
    return text.removeprefix("\ufeff")


def read_source(path: Path) -> str | Unreadable:
    try:
        data = path.read_bytes()
    except OSError as error:
        return Unreadable(f"cannot read: {error.strerror or error}")
    return decode(data)


def parse_source(text: str, filename: str = "<unknown>") -> ast.Module | Unreadable:
    try:
        return ast.parse(text, filename=filename)
    except SyntaxError as error:
        return Unreadable(f"syntax error at line {error.lineno}: {error.msg}", error.lineno or 1)
    except (ValueError, RecursionError, MemoryError) as error:
        return Unreadable(f"cannot parse: {type(error).__name__}: {_first_line(error)}")


def load_tree(path: Path) -> ast.Module | Unreadable:
    text = read_source(path)
    if isinstance(text, Unreadable):
        return text
    return parse_source(text, str(path))


def _first_line(error: BaseException) -> str:
    text = str(error) or type(error).__name__
    return text.splitlines()[0]
