"""One process-wide allowance of bytes for what uploads decode (issue 27): each decode reserves
its estimated size before it starts, and the reservation is released when the object holding
the decoded data is dropped (a session forgetting its upload, a cache evicting it).

Deterministic bookkeeping of public sizes: it costs no privacy budget.
"""

from __future__ import annotations

import threading
import weakref

from dpsum_core.errors import DataError


class Reservation:
    """Bytes held from a :class:`ByteBudget` until :meth:`release` (idempotent), which runs by
    itself once the owner given to :meth:`keep` is garbage collected."""

    def __init__(self, budget: ByteBudget, nbytes: int):
        self.budget = budget
        self.nbytes = nbytes
        self._done = False

    def shrink(self, nbytes: int) -> None:
        """Hold only ``nbytes`` (≤ what is held) from now on: a decode's transient bytes are
        given back once it is done."""
        with self.budget._lock:
            if not self._done and 0 <= nbytes < self.nbytes:
                self.budget._used -= self.nbytes - nbytes
                self.nbytes = nbytes

    def keep(self, owner: object) -> None:
        """Hold the bytes while ``owner`` lives (it must support weak references)."""
        weakref.finalize(owner, self.release)

    def release(self) -> None:
        """Give the bytes back (a second call does nothing)."""
        with self.budget._lock:
            if not self._done:
                self._done = True
                self.budget._used -= self.nbytes


class ByteBudget:
    """A thread-safe count of reserved bytes that refuses what would exceed ``capacity``.

    Parameters
    ----------
    capacity
        Bytes that all reservations together may hold.
    """

    def __init__(self, capacity: int):
        self.capacity = int(capacity)
        self._used = 0
        self._lock = threading.Lock()

    @property
    def used(self) -> int:
        """Bytes reserved now."""
        with self._lock:
            return self._used

    def reserve(self, nbytes: int, what: str) -> Reservation:
        """Reserve ``nbytes`` for ``what`` (a file name, shown in the refusal).

        Raises
        ------
        DataError
            If the reservation would exceed the capacity (what other sessions hold now): nothing
            is reserved, and the message says what to do.
        """
        nbytes = max(0, int(nbytes))
        with self._lock:
            if self._used + nbytes > self.capacity:
                free = max(0, self.capacity - self._used)
                raise DataError(
                    f"{what} needs about {nbytes / 2**20:,.0f} MB of memory to read, and this "
                    f"server has {free / 2**20:,.0f} MB of its {self.capacity / 2**20:,.0f} MB "
                    "for uploads free now (other uploads hold the rest): try again later, use a "
                    "smaller file (only the columns you need), or run dpsum on your own machine."
                )
            self._used += nbytes
        return Reservation(self, nbytes)
