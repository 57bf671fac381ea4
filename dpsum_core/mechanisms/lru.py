"""A thread-safe least-recently-used cache bounded by entries and by bytes, shared by GreedyH's
strategy caches and RawSum's designs (both built from public inputs, both large at many bins).

>>> cache = LRU(size=10, max_bytes=100, nbytes=len)
>>> _ = cache.get(("a",), lambda: "x" * 60); _ = cache.get(("b",), lambda: "y" * 60)
>>> list(cache), cache.nbytes
([('b',)], 60)
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from threading import Lock
from typing import Generic, TypeVar

V = TypeVar("V")
Key = tuple[Hashable, ...]  # every cache here is keyed by a tuple of public inputs


class LRU(Generic[V]):
    """At most ``size`` values and ``max_bytes`` bytes (``nbytes(value)`` each), least recently
    used evicted first; the newest value is kept even when alone above ``max_bytes`` (the run
    that built it is about to use it). Counts its hits and misses."""

    def __init__(self, size: int, max_bytes: int, nbytes: Callable[[V], int]) -> None:
        self.size = size
        self.max_bytes = max_bytes
        self.hits = 0
        self.misses = 0
        self.nbytes = 0
        self._measure = nbytes
        self._items: OrderedDict[Key, tuple[V, int]] = OrderedDict()
        self._lock = Lock()

    def get(self, key: Key, build: Callable[[], V]) -> V:
        """The value stored under ``key``, built (outside the lock) on a miss."""
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
                self.hits += 1
                return hit[0]
            self.misses += 1
        value = build()
        size = int(self._measure(value))
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:  # built twice concurrently: keep one
                self.nbytes -= old[1]
            self._items[key] = (value, size)
            self.nbytes += size
            while len(self._items) > 1 and (
                len(self._items) > self.size or self.nbytes > self.max_bytes
            ):
                _, (_, freed) = self._items.popitem(last=False)
                self.nbytes -= freed
        return value

    def peek(self, key: Key) -> V | None:
        """The value stored under ``key`` (now the most recently used), or None: nothing is
        built."""
        with self._lock:
            hit = self._items.get(key)
            if hit is None:
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return hit[0]

    def __iter__(self) -> Iterator[Key]:
        """The keys held, least recently used first (a snapshot)."""
        with self._lock:
            return iter(list(self._items))

    def clear(self) -> None:
        """Forget every value (benchmarks: a cold start)."""
        with self._lock:
            self._items.clear()
            self.nbytes = 0

    def __len__(self) -> int:
        return len(self._items)
