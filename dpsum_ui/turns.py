"""Turns on the cores: heavy runs of every session go through one process-wide queue, first come
first served, so one session's long sweeps cannot starve the others' clicks.

A run estimated above ``limits.QUEUE_ABOVE_SECONDS`` (:mod:`dpsum_core.simulate.cost`) takes one
of :data:`SLOTS` turns; lighter runs (the default Explorer click) never wait. One core is left
to the light runs and to page loads, which on two cores means one heavy run at a time. While a
run waits, ``on_wait(ahead)`` is called every ``poll`` seconds with the number of runs ahead of
it (running or queued earlier): the page shows it and, since it may raise, a waiting run stops
when its session goes away or its user clicks again.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from dpsum_core import limits

SLOTS = max(1, (os.cpu_count() or 2) - 1)
POLL_SECONDS = 0.25


class Turns:
    """A first-come-first-served queue of at most ``slots`` runs at once (thread safe)."""

    def __init__(self, slots: int) -> None:
        self.slots = slots
        self._cond = threading.Condition()
        self._running = 0
        self._waiting: deque[object] = deque()

    @property
    def running(self) -> int:
        """Runs holding a turn now."""
        return self._running

    @property
    def waiting(self) -> int:
        """Runs queued now."""
        return len(self._waiting)

    @contextmanager
    def turn(
        self, seconds: float, on_wait: Callable[[int], None], poll: float = POLL_SECONDS
    ) -> Iterator[None]:
        """Hold a turn for a run estimated at ``seconds`` (none below the threshold).

        ``on_wait(ahead)`` is called while waiting, outside the lock; if it raises, the run
        leaves the queue and the exception propagates (nothing ran).
        """
        if seconds <= limits.QUEUE_ABOVE_SECONDS:
            yield
            return
        self._enter(on_wait, poll)
        try:
            yield
        finally:
            with self._cond:
                self._running -= 1
                self._cond.notify_all()

    def _enter(self, on_wait: Callable[[int], None], poll: float) -> None:
        ticket = object()
        with self._cond:
            self._waiting.append(ticket)
        try:
            while True:
                with self._cond:
                    if self._waiting[0] is ticket and self._running < self.slots:
                        self._waiting.popleft()
                        self._running += 1
                        self._cond.notify_all()  # the next in line may fit too
                        return
                    ahead = self._running + self._waiting.index(ticket)
                on_wait(ahead)
                with self._cond:
                    if not (self._waiting[0] is ticket and self._running < self.slots):
                        self._cond.wait(timeout=poll)
        except BaseException:
            with self._cond:
                self._waiting.remove(ticket)
                self._cond.notify_all()
            raise


# One queue for the whole server process: every session's heavy runs share it.
QUEUE = Turns(SLOTS)
