"""Running grimp's native code with care: it writes its cache files in place, prints
Rust panics straight to file descriptor 2, and recurses on the native stack."""

from __future__ import annotations

import os
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TypeVar

from domain_fence.integrations.interrupts import EXIT_INTERRUPTED, INTERRUPTED

T = TypeVar("T")

# grimp's parser recurses: a long enough chain of operators overflows a thread's stack
# and kills the process. Its worker threads take RUST_MIN_STACK; the calling thread is
# ours. 256 MiB of (reserved, not committed) stack holds several million levels.
NATIVE_STACK = 256 * 1024 * 1024

_held_stderr: list[int] = []  # the real descriptor 2 while native_stderr_held holds it


@contextmanager
def cache_turn(directory: Path) -> Iterator[None]:
    """grimp writes its cache files in place, so a process reading them meanwhile (pre-
    commit runs hooks in parallel) finds them corrupt and says so. Our processes take
    turns, under a lock file in the cache directory (which grimp's .gitignore covers).
    Without a usable lock (a read-only directory, no fcntl) they just go ahead."""
    try:
        import fcntl

        directory.mkdir(exist_ok=True)
        handle = open(directory / "domain-fence.lock", "ab")  # noqa: SIM115 -- closed by the `with` below; opened here so that failing to open is told apart
    except (ImportError, OSError):
        yield
        return
    with handle:
        with suppress(OSError):
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield


@contextmanager
def native_stderr_held() -> Iterator[None]:
    """Hold what is written to file descriptor 2 while grimp runs: a Rust panic prints
    its message and a backtrace there, bypassing Python. Released when grimp succeeds
    (its warnings, such as a corrupt cache file, still reach the user); dropped when
    it fails, as the failure is reported as one line anyway."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):  # no usable descriptor 2
        yield
        return
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        _held_stderr.append(saved)
        try:
            yield
        except BaseException:
            _held_stderr.remove(saved)
            _restore(saved)
            raise
        _held_stderr.remove(saved)
        _restore(saved)
        held.seek(0)
        text = held.read()
    if text:
        sys.stderr.write(text.decode("utf-8", "replace"))
        sys.stderr.flush()


def _restore(saved: int) -> None:
    with suppress(OSError, ValueError):
        sys.stderr.flush()
    os.dup2(saved, 2)
    os.close(saved)


def with_roomy_stack(function: Callable[[], T]) -> T:
    """``function()`` in a thread with a large stack (and grimp's worker threads too),
    so deeply nested source is far less likely to overflow a native stack."""
    os.environ.setdefault("RUST_MIN_STACK", str(NATIVE_STACK))
    with interrupt_exits():
        return _in_roomy_thread(function)


def _in_roomy_thread(function: Callable[[], T]) -> T:
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["value"] = function()
        except BaseException as error:  # noqa: BLE001 -- handed to the calling thread
            outcome["error"] = error

    try:
        previous = threading.stack_size(NATIVE_STACK)
    except (ValueError, RuntimeError):  # the platform cannot: run where we are
        return function()
    worker = threading.Thread(target=run, name="domain-fence-graph", daemon=True)
    try:
        worker.start()
        started = True
    except RuntimeError:  # no memory for such a stack
        started = False
    finally:
        threading.stack_size(previous)
    if not started:
        return function()
    worker.join()
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]


@contextmanager
def interrupt_exits() -> Iterator[None]:
    """A Ctrl-C while grimp builds the graph ends the process at once, with one line
    and status 130. As a KeyboardInterrupt it would unwind the calling thread while
    grimp's native threads still run, and the process would die of SIGABRT or SIGSEGV
    at exit. Only from the main thread, and only when SIGINT has Python's default
    handler (a host that handles it itself keeps its handler)."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield
        return
    previous = signal.signal(signal.SIGINT, _exit_interrupted)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _exit_interrupted(signum: int, frame: object) -> None:
    descriptor = _held_stderr[-1] if _held_stderr else 2
    with suppress(OSError):
        os.write(descriptor, f"{INTERRUPTED}\n".encode())
    os._exit(EXIT_INTERRUPTED)
