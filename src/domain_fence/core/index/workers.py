"""Worker processes that import nothing and die with their parent.

Workers are forked (where the platform can): they inherit the modules already
imported, so a module of the project named like one of ours is never imported by a
worker. A ``kill -9`` of the parent gives a worker no chance to be told, and a forked
worker holds both ends of the pool's pipes, so it would wait forever: each worker asks
the kernel to kill it when its parent dies (Linux), or watches its parent (elsewhere).
SIGINT (and a SIGTERM the process handles in Python, as the console scripts do) is the
parent's to handle (:func:`map_in_workers`): a Ctrl-C while the workers
are forked is held until they are (raised inside ``fork``'s own handlers it would be
lost, or leave a worker the pool does not know of, which the parent then waits for at
exit, forever); a Ctrl-C while they work drops the shares not started, and the run ends
once the started ones are done.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import FrameType
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

Item = TypeVar("Item")
Result = TypeVar("Result")

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
WATCH_INTERVAL = 0.5  # seconds between two looks at the parent, where the kernel cannot watch


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes (``concurrent.futures`` and ``multiprocessing``
    must be imported already: see :mod:`.isolation`)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor  # only now: a replayed run never needs it

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork") if "fork" in methods and sys.platform != "darwin" else None
    return ProcessPoolExecutor(workers, mp_context=context, initializer=die_with_parent, initargs=(os.getpid(),))


def die_with_parent(parent: int) -> None:
    """In a worker: end when ``parent`` ends, leave SIGINT to it, and end quietly on the
    SIGTERM the pool ends it with (the console script takes one as a Ctrl-C)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if not _kernel_kills_orphan():
        threading.Thread(target=_watch, args=(parent,), name="domain-fence-parent-watch", daemon=True).start()
    if os.getppid() != parent:  # it died before the request was made
        os._exit(1)


def _kernel_kills_orphan() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0)
    except (OSError, AttributeError, ImportError):
        return False


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCH_INTERVAL)
    os._exit(1)


def map_in_workers(workers: int, work: Callable[[Item], Result], items: Sequence[Item]) -> list[Result]:
    """``work`` of each item, in order, in a pool of ``workers`` processes. Raises what
    starting the pool raises (no processes here), and KeyboardInterrupt on a Ctrl-C,
    once the workers are done with what they started."""
    with worker_pool(workers) as pool:
        try:
            with _interrupt_held(), _fork_warning_silenced():  # the pool forks its workers as the work is submitted
                results = pool.map(work, items)
            return list(results)
        except BaseException:
            # The shares not started are dropped; those started are finished (a worker
            # killed under the pool's feet leaves its threads writing to a dead pipe).
            pool.shutdown(wait=True, cancel_futures=True)
            raise


@contextmanager
def _fork_warning_silenced() -> Iterator[None]:
    """Python 3.12 and later warn of every fork in a process running other threads
    (grimp's, the hashing helpers), which pytest shows and ``-W error`` turns into a
    pool that cannot start. A worker runs only the work handed to it, on data it is
    handed, and never what those threads hold: for this fork, the warning says nothing."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*multi-threaded.*fork", category=DeprecationWarning)
        yield


@contextmanager
def _interrupt_held() -> Iterator[None]:
    """A Ctrl-C meanwhile is raised once the block is done (from the main thread, where
    SIGINT has Python's default handler; a host handling it itself keeps its handler),
    and a SIGTERM the process handles in Python (the console scripts take it as a
    Ctrl-C) is handed to its handler then: raised inside fork's own handlers, either
    was lost or left a worker the pool did not know of."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: dict[int, Callable[[int, FrameType | None], Any]] = {}
    interrupt, terminate = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    if interrupt is signal.default_int_handler:
        held[signal.SIGINT] = interrupt
    if callable(terminate):
        held[signal.SIGTERM] = terminate
    caught: list[int] = []
    for signum in held:
        signal.signal(signum, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        for signum, handler in held.items():
            signal.signal(signum, handler)
    for signum in dict.fromkeys(caught):
        held[signum](signum, None)
