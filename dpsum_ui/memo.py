"""Results shared by every session for public data: a sample or a server dataset.

A run on public data is a function of the data, the configuration and the seed, so every user
with the same settings gets the same numbers. Thirty students opening a teacher's link would
otherwise compute them thirty times; here the first computes and the others read. Shared:
results on the samples (:func:`dpsum_ui.datasets.sample_dataset`) and on server datasets
(:func:`dpsum_ui.datasets._server_summary`), each marked with :func:`mark_public` where it is
made. Never shared: anything on an uploaded file, which stays in its session's memo
(:mod:`dpsum_ui.store`).

The memo is keyed by the data's fingerprint and the full configuration (seed included),
bounded in bytes, least recently used evicted first (:class:`dpsum_core.mechanisms.lru.LRU`);
concurrent identical requests compute once: the second waits for the first's result and, if
the first stopped (its tab closed, its user clicked again), computes it itself.

Privacy
-------
What a session can read here is what it would compute itself from data every user of this
server can already choose and see (the samples are public; a server dataset is offered to every
user of the server, with its true answers). What it learns beyond that is timing: a fast answer
means someone ran the same settings on the same public data recently. Results on uploads never
enter this memo, so no upload's content or timing is visible to another session.
"""

from __future__ import annotations

import os
import sys
import threading
import weakref
from collections.abc import Callable, Iterator
from dataclasses import fields, is_dataclass
from typing import Any, TypeVar

import numpy as np
import pandas as pd
from plotly.basedatatypes import BaseFigure

from dpsum_core.mechanisms.lru import LRU, Key

T = TypeVar("T")

# The whole shared memo: a classroom's runs are a few MB each (a default Explorer run with 7
# algorithms is 11.5 MiB); 128 MiB keeps a lesson's links, and 20 sessions of different seeds
# (bench/load.py) do not pile up results their own sessions already evicted.
MAX_BYTES = 128 * 2**20
MAX_ENTRIES = 256
POLL_SECONDS = 0.25
# DPSUM_MEMO_TRACE=1: one line on stderr per shared value computed (browser tests, benchmarks)
TRACE = os.environ.get("DPSUM_MEMO_TRACE") == "1"

_PUBLIC: dict[int, weakref.ref] = {}
_PUBLIC_LOCK = threading.Lock()


def mark_public(data: T) -> T:
    """Declare ``data`` public (a sample, or a server dataset offered to every user): results
    on this object may be shared by every session. Returns ``data``.

    Privacy
    -------
    Call only where public data is made, never on an upload. Identity is what counts: an
    upload with the same values as a sample is another object and stays private.
    """
    ident = id(data)

    def forget(_: weakref.ref, ident: int = ident) -> None:
        with _PUBLIC_LOCK:
            _PUBLIC.pop(ident, None)

    with _PUBLIC_LOCK:
        _PUBLIC[ident] = weakref.ref(data, forget)
    return data


def is_public(data: object) -> bool:
    """Whether ``data`` is this very object marked by :func:`mark_public`."""
    with _PUBLIC_LOCK:
        ref = _PUBLIC.get(id(data))
    return ref is not None and ref() is data


def nbytes(value: Any) -> int:
    """An estimate of the memory a memoised value holds: arrays and frames by their buffers,
    containers, dataclasses and plotly figures by their parts (each object counted once)."""
    seen: set[int] = set()
    total = 0
    stack = [value]
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, np.ndarray):
            total += obj.nbytes + (
                sum(sys.getsizeof(v) for v in obj.flat) if obj.dtype == object else 0
            )
        elif isinstance(obj, pd.DataFrame | pd.Series):
            total += int(np.sum(obj.memory_usage(deep=True)))
        elif isinstance(obj, dict):
            total += sys.getsizeof(obj)
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, list | tuple | set | frozenset):
            total += sys.getsizeof(obj)
            stack.extend(obj)
        elif isinstance(obj, BaseFigure):  # its traces and layout (≈ 0.5 MiB for 7 algorithms)
            total += sys.getsizeof(obj)
            stack.append(obj.to_plotly_json())
        elif is_dataclass(obj) and not isinstance(obj, type):
            total += sys.getsizeof(obj)
            stack.extend(getattr(obj, f.name) for f in fields(obj))
        else:
            total += sys.getsizeof(obj)
    return total


class SharedMemo:
    """A process-wide memo with one computation per key at a time (thread safe).

    ``computed`` counts the values built here (tests and benchmarks read it).
    """

    def __init__(self, max_bytes: int = MAX_BYTES, size: int = MAX_ENTRIES) -> None:
        self._lru: LRU[Any] = LRU(size, max_bytes, nbytes)
        self._pending: dict[Key, threading.Event] = {}
        self._lock = threading.Lock()
        self.computed = 0

    @property
    def nbytes(self) -> int:
        """Bytes held now (by :func:`nbytes`)."""
        return self._lru.nbytes

    def __len__(self) -> int:
        return len(self._lru)

    def __iter__(self) -> Iterator[Key]:
        """The keys held, least recently used first (a snapshot)."""
        return iter(self._lru)

    def get(
        self,
        key: Key,
        build: Callable[[], T],
        wait: Callable[[], None] | None = None,
        poll: float = POLL_SECONDS,
    ) -> T:
        """The value under ``key``; built by this call only if no other call is building it.

        A call that finds ``key`` being built waits, calling ``wait()`` every ``poll`` seconds
        (it may raise to stop waiting: the builder is not disturbed). If the builder raised,
        the next waiter builds. A value is stored only when ``build()`` returns.
        """
        while True:
            with self._lock:
                value = self._lru.peek(key)
                if value is not None:
                    return value
                pending = self._pending.get(key)
                owner = pending is None
                if pending is None:
                    pending = self._pending[key] = threading.Event()
            if owner:
                return self._build(key, pending, build)
            while not pending.wait(poll):
                if wait is not None:
                    wait()

    def _build(self, key: Key, pending: threading.Event, build: Callable[[], T]) -> T:
        """Build and store the value of ``key``, then release its waiters (also on failure)."""
        try:
            value = build()
            with self._lock:
                self._lru.get(key, lambda: value)
                self.computed += 1
            if TRACE:
                kind = key[0] if isinstance(key, tuple) and key else key
                print(f"dpsum shared memo: computed {kind}", file=sys.stderr, flush=True)
            return value
        finally:
            with self._lock:
                del self._pending[key]
            pending.set()

    def peek(self, key: Key) -> Any | None:
        """The value under ``key`` if held (marked as recently used), else None."""
        with self._lock:
            return self._lru.peek(key)

    def clear(self) -> None:
        """Forget every value (tests, benchmarks: a cold start)."""
        self._lru.clear()


# One memo for the whole server process.
SHARED = SharedMemo()


def held(data: object, key: Key) -> Any | None:
    """The shared value of ``key`` if ``data`` is public and some session already computed it
    (a click that costs nothing: no estimate, no turn), else None."""
    return SHARED.peek(key) if is_public(data) else None


def shared(
    data: object, key: Key, build: Callable[[], T], wait: Callable[[], None] | None = None
) -> T:
    """``build()`` through :data:`SHARED` when ``data`` is public, else ``build()`` alone.

    Privacy
    -------
    An upload's results never enter the shared memo (see the module's Privacy section).
    """
    if not is_public(data):
        return build()
    return SHARED.get(key, build, wait)
