"""Turns on the cores: heavy runs of every session go through one process-wide queue, fair to
people rather than to clicks, so one user's long sweeps (in any number of tabs) cannot starve
the others' clicks.

A run estimated above ``limits.QUEUE_ABOVE_SECONDS`` (:mod:`dpsum_core.simulate.cost`) takes one
of :data:`SLOTS` turns; lighter runs (the default Explorer click) never wait. One core is left
to the light runs and to page loads, which on two cores means one heavy run at a time. While a
run waits, ``on_wait(ahead)`` is called every ``poll`` seconds with the number of runs ahead of
it (running, or before it in the queue's order): the page shows it and, since it may raise, a
waiting run stops when its session goes away or its user clicks again.

Fair to people (issue 27.4):

- **one queued run per session**: a session's new heavy click replaces its queued one (which
  leaves the queue with :class:`Replaced`);
- **a cap per client** (a browser: all its tabs; ``limits.QUEUE_PER_CLIENT`` heavy runs running
  or queued): more is refused with :class:`QueueFull`, nothing run;
- **a cap on queued seconds** (``limits.QUEUE_MAX_SECONDS`` of estimates waiting in all): a
  heavy click that would have to wait beyond it is refused with :class:`QueueFull`;
- **round robin across clients**: the next turn goes to the waiting run whose client has had
  the fewest turns since the queue was last idle (counting its runs queued before this one),
  first come first served among equals — four tabs of one user queue behind one click of
  another user, not before it.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections import Counter
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from dpsum_core import limits
from dpsum_core.errors import ParameterError
from dpsum_core.simulate.cost import duration

SLOTS = max(1, (os.cpu_count() or 2) - 1)
POLL_SECONDS = 0.25


class QueueFull(ParameterError):
    """A heavy click refused by the queue's caps (nothing ran); the message says why."""


class Replaced(ParameterError):
    """A queued run replaced by a newer heavy click of the same session (nothing ran)."""


@dataclass(eq=False)
class _Ticket:
    session: Hashable
    client: Hashable
    seconds: float
    arrival: int
    replaced: bool = field(default=False)


class Turns:
    """A queue of at most ``slots`` heavy runs at once, fair to clients (thread safe)."""

    def __init__(
        self,
        slots: int,
        *,
        per_client: int = limits.QUEUE_PER_CLIENT,
        max_seconds: float = limits.QUEUE_MAX_SECONDS,
    ) -> None:
        self.slots = slots
        self.per_client = per_client
        self.max_seconds = max_seconds
        self._cond = threading.Condition()
        self._running = 0
        self._held: Counter[Hashable] = Counter()  # running turns per client
        self._served: Counter[Hashable] = Counter()  # turns per client since the queue was idle
        self._waiting: list[_Ticket] = []  # in arrival order
        self._arrivals = itertools.count()

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
        self,
        seconds: float,
        on_wait: Callable[[int], None],
        poll: float = POLL_SECONDS,
        *,
        session: Hashable | None = None,
        client: Hashable | None = None,
    ) -> Iterator[None]:
        """Hold a turn for a run estimated at ``seconds`` (none below the threshold).

        ``session`` and ``client`` identify who clicked (each click its own when omitted).
        ``on_wait(ahead)`` is called while waiting, outside the lock; if it raises, the run
        leaves the queue and the exception propagates (nothing ran).

        Raises
        ------
        QueueFull
            The client's cap or the cap on queued seconds is reached (nothing ran).
        Replaced
            While waiting: the same session clicked a heavy run again (nothing ran).
        """
        if seconds <= limits.QUEUE_ABOVE_SECONDS:
            yield
            return
        who = object()
        ticket = _Ticket(
            who if session is None else session,
            who if client is None else client,
            float(seconds),
            next(self._arrivals),
        )
        self._enter(ticket, on_wait, poll)
        try:
            yield
        finally:
            with self._cond:
                self._running -= 1
                self._held[ticket.client] -= 1
                if self._held[ticket.client] <= 0:
                    del self._held[ticket.client]
                if not self._running and not self._waiting:
                    self._served.clear()  # idle: a new busy period starts even
                self._cond.notify_all()

    def _admit(self, ticket: _Ticket) -> None:
        """Under the lock: replace the session's queued run, apply the caps, queue."""
        for old in [t for t in self._waiting if t.session == ticket.session]:
            old.replaced = True
            self._waiting.remove(old)
        mine = self._held[ticket.client] + sum(t.client == ticket.client for t in self._waiting)
        if mine >= self.per_client:
            raise QueueFull(
                f"you already have {mine} heavy runs running or waiting (in this or your other "
                f"tabs), the most one person may hold on this shared server. Nothing was run "
                "and your settings are kept: wait for them to finish (or close those tabs), "
                "then press the button again"
            )
        must_wait = bool(self._waiting) or self._running >= self.slots
        queued = sum(t.seconds for t in self._waiting)
        if must_wait and queued + ticket.seconds > self.max_seconds:
            raise QueueFull(
                f"the server's queue already holds about {duration(queued)} of heavy runs, "
                f"and this one (about {duration(ticket.seconds)}) would go beyond the "
                f"{duration(self.max_seconds)} it may hold. Nothing was run and your settings "
                "are kept: try again in a few minutes, or choose lighter settings"
            )
        self._waiting.append(ticket)
        self._cond.notify_all()

    def _order(self) -> list[_Ticket]:
        """Under the lock: the waiting runs in the order they get turns (round robin across
        clients: fewest turns had and queued ahead first, then arrival)."""
        seen: Counter[Hashable] = Counter()
        keyed = []
        for t in self._waiting:
            keyed.append((self._served[t.client] + seen[t.client], t.arrival, t))
            seen[t.client] += 1
        return [t for *_, t in sorted(keyed, key=lambda k: (k[0], k[1]))]

    def _enter(self, ticket: _Ticket, on_wait: Callable[[int], None], poll: float) -> None:
        with self._cond:
            self._admit(ticket)
        try:
            while True:
                with self._cond:
                    if ticket.replaced:
                        raise Replaced(
                            "this run was replaced by your newer click before it started"
                        )
                    order = self._order()
                    if order[0] is ticket and self._running < self.slots:
                        self._waiting.remove(ticket)
                        self._running += 1
                        self._held[ticket.client] += 1
                        self._served[ticket.client] += 1
                        self._cond.notify_all()  # the next in line may fit too
                        return
                    ahead = self._running + order.index(ticket)
                on_wait(ahead)
                with self._cond:
                    if not ticket.replaced and not (
                        self._order()[0] is ticket and self._running < self.slots
                    ):
                        self._cond.wait(timeout=poll)
        except BaseException:
            with self._cond:
                if ticket in self._waiting:
                    self._waiting.remove(ticket)
                self._cond.notify_all()
            raise


# One queue for the whole server process: every session's heavy runs share it.
QUEUE = Turns(SLOTS)
