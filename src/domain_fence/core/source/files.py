"""Files read whole by every front end (a configuration, a baseline, the run cache's
inputs): only regular files, and paths resolved without raising on a loop of links."""

from __future__ import annotations

import errno
import os
import stat
from operator import attrgetter
from pathlib import Path

# What identifies one version of a file without reading it: its size, modification and
# change times (ns) and inode. A file rewritten with its size and modification time
# kept, or set back, still gets a new change time.
StampKey = tuple[int, int, int, int]

# The :data:`StampKey` of an ``os.stat_result``, taken in C: thousands of files a run.
stamp_of = attrgetter("st_size", "st_mtime_ns", "st_ctime_ns", "st_ino")


def packable(stamp: StampKey) -> bool:
    """Whether ``stamp`` fits the eight-byte numbers the caches pack it in (the size and
    inode unsigned, the times signed): not a 128-bit inode (ReFS), a time before 1677."""
    size, modified, changed, inode = stamp
    return (
        0 <= size < _UNSIGNED_END
        and 0 <= inode < _UNSIGNED_END
        and min(modified, changed) >= _SIGNED_START
        and max(modified, changed) < _SIGNED_END
    )


_UNSIGNED_END, _SIGNED_START, _SIGNED_END = 1 << 64, -(1 << 63), 1 << 63


def read_regular_file(path: Path | str) -> bytes:
    """The bytes of the regular file at ``path``. What is not one (a FIFO, which would
    block; a device, which may never end) is an OSError naming why, as a missing file or
    a loop of symbolic links is: a configuration or baseline is refused in one line."""
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO opens without a writer
    with open(descriptor, "rb") as stream:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise OSError(errno.EINVAL, "not a regular file (a FIFO, device or socket)", str(path))
        return stream.read()


def real_path(path: Path | str) -> Path:
    """``path`` with every symbolic link resolved, as far as they resolve: a loop is left
    for reading the file to report (``Path.resolve`` raises RuntimeError on one)."""
    return Path(os.path.realpath(path))


def file_stamp(path: Path | str) -> StampKey | None:
    """The :data:`StampKey` of the file at ``path`` now; None when it cannot be stat'ed."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    stamp: StampKey = stamp_of(status)
    return stamp
