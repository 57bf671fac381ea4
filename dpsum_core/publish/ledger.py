"""The privacy-budget ledger of one dataset: every release and its ε, against a total.

A ledger is a small JSON file (one per dataset) kept by the data custodian::

    {"format": "dpsum-ledger", "version": 1, "total": 1.0,
     "releases": [{"created": …, "epsilon": 0.1, "algorithm": …, "truncation": …,
                   "data": …, "config": {…}}, …]}

:class:`Ledger` is the value (the CLI keeps it in a file, the dashboard in the session and as a
download); :func:`load`, :func:`save` and :func:`locked` are the file's side. Sums are exact:
each ε is read as the decimal its shortest repr spells (0.1 is 0.1), so ten releases of 0.1
fill a total of 1 exactly, with no floating-point tolerance that could let a release slip over.
"""


from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from decimal import Decimal
from pathlib import Path

from dpsum_core.errors import DataError, ParameterError
from dpsum_core.validation import check_positive

FORMAT = "dpsum-ledger"
VERSION = 1


def _exact(value: float) -> Decimal:
    """``value`` as the decimal its shortest round-trip repr spells."""
    return Decimal(repr(float(value)))


@dataclass(frozen=True)
class Ledger:
    """The releases made from one dataset and the total ε they may spend (``None``: no total).

    Privacy
    -------
    The ledger holds configurations, ε values, times and the data file's name: nothing
    computed from the data. It is the custodian's record, not part of a release.
    """

    releases: tuple[dict, ...] = ()
    total: float | None = None

    def _spent(self) -> Decimal:
        return sum((_exact(r["epsilon"]) for r in self.releases), Decimal(0))

    @property
    def spent(self) -> float:
        """ε spent by every recorded release (sequential composition: the sum)."""
        return float(self._spent())

    def remaining(self, total: float | None = None) -> float | None:
        """ε left under ``total`` (default: the ledger's own), ``None`` without a total."""
        total = self.total if total is None else total
        if total is None:
            return None
        return float(_exact(total) - self._spent())

    def check(self, epsilon: float, total: float | None = None) -> None:
        """Raise ParameterError if a release of ``epsilon`` would take the spend over ``total``
        (default: the ledger's own total; no total, no limit). Call before any noise is drawn."""
        total = self.total if total is None else check_positive(total, "budget")
        if total is None:
            return
        spent = self._spent()
        if spent + _exact(epsilon) > _exact(total):
            raise ParameterError(
                f"release refused: ε = {epsilon:g} would take the spent budget from "
                f"{float(spent):g} to {float(spent + _exact(epsilon)):g}, over the total "
                f"{total:g} ({len(self.releases)} release(s) recorded); nothing was drawn"
            )

    def with_release(self, entry: dict, total: float | None = None) -> Ledger:
        """A ledger with ``entry`` (which must hold ``epsilon``) appended and the total set."""
        check_positive(entry["epsilon"], "epsilon")
        return replace(
            self,
            releases=(*self.releases, dict(entry)),
            total=self.total if total is None else float(total),
        )

    def to_json(self) -> str:
        """The file's text."""
        return json.dumps(
            {
                "format": FORMAT,
                "version": VERSION,
                "total": self.total,
                "spent": self.spent,
                "releases": list(self.releases),
            },
            indent=2,
        )

    @classmethod
    def from_json(cls, text: str | bytes, *, name: str = "the ledger") -> Ledger:
        """Parse a ledger; a clear DataError if it is not one."""
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise DataError(f"{name} is not valid JSON: is it a dpsum ledger?") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise DataError(f'{name} is not a dpsum ledger (no "format": "{FORMAT}")')
        if data.get("version") != VERSION:
            raise DataError(f"{name} has ledger version {data.get('version')!r}, not {VERSION}")
        releases = data.get("releases")
        if not isinstance(releases, list) or not all(
            isinstance(r, dict) and _is_epsilon(r.get("epsilon")) for r in releases
        ):
            raise DataError(f'{name} is damaged: every release needs a positive "epsilon"')
        total = data.get("total")
        if total is not None and not _is_epsilon(total):
            raise DataError(f'{name} is damaged: "total" must be a positive number or null')
        return cls(tuple(releases), None if total is None else float(total))


def _is_epsilon(value: object) -> bool:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and 0 < float(value) < float("inf")
    )


def load(path: str | os.PathLike) -> Ledger:
    """The ledger in ``path``; an empty one if the file does not exist yet."""
    path = Path(path)
    if not path.exists():
        return Ledger()
    if path.is_dir():
        raise ParameterError(f"--ledger {path} is a folder: give a file name")
    return Ledger.from_json(path.read_bytes(), name=f"ledger {path}")


def save(path: str | os.PathLike, ledger: Ledger) -> None:
    """Write ``ledger`` to ``path`` atomically: the file holds the old ledger or the new one,
    never a mix, whatever happens (a crash, Ctrl-C, SIGKILL, a full disk).

    The text goes to a temporary file in the same folder (so that the rename stays on one file
    system), is flushed and fsync'ed, then ``os.replace`` swaps it in (atomic on POSIX) and the
    folder is fsync'ed so that the rename itself survives a power cut. A crash before the
    rename leaves the old ledger and a stray ``.ledger-*.tmp`` file, which is never read.
    """
    path = Path(path)
    folder = path.parent
    fd, tmp = tempfile.mkstemp(prefix=".ledger-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(ledger.to_json() + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    directory = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


@contextmanager
def locked(path: str | os.PathLike) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (through ``path.lock``) for read → check → write.

    Two releases started at once against the same ledger then run one after the other, so both
    cannot pass the budget check on the same old spend. The lock is ``flock``'s: the operating
    system drops it when the process dies, so a killed release never leaves the ledger locked.
    """
    import fcntl  # POSIX only, like the atomic rename's guarantee

    lock = Path(f"{path}.lock")
    with open(lock, "a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
