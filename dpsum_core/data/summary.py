"""The data summary: the only thing, after loading, that depends on the records .

A run needs, from the cleaned records, only N, counts and sums at public cut points (bin edges,
SVT grid points u_k, workload thresholds, a fixed θ), and the largest values (the recursive
mechanism's crossover index, truncated sums at a continuous θ). :class:`DataSummary` holds
exactly that, answers the same questions as :class:`~dpsum_core.data.dataset.Dataset` with the same
method names, and refuses (:class:`MissingStatistics`) anything it cannot answer exactly, so that
a backend can run a second aggregation pass for exactly what is missing (:func:`complete`).

Sums are exact (:mod:`dpsum_core.data.exact`): the same float whichever engine or order
produced them.

Which configurations need a second pass
---------------------------------------
- none, fixed θ, SVT (batch and SQM): never (every point is a held cut point).
- recursive θ (batch algorithms): the crossover index i* comes from the top-k values when
  i* < k (always at the paper's defaults, see ``limits.SUMMARY_TOP_K``); the chosen θ is
  continuous, so counts and sums at θ need a pass unless θ ≥ the smallest top-k value.
- recursive θ for SQM (per query, on {t ≤ τ_i}): order statistics below τ_i (a few passes, one
  per unresolved step of the crossover search) and counts and sums at trials × m values of θ.

Privacy
-------
A summary is private data, exactly like the records: counts, sums and the top values are never
shown, logged or written as a release. Only the mechanisms downstream release noisy statistics.
"""


from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TypeVar

import numpy as np

from dpsum_core import limits
from dpsum_core.data.cleaning import CleaningReport
from dpsum_core.data.dataset import truncated_sum
from dpsum_core.data.domain import Domain
from dpsum_core.data.exact import point_sums, to_units, units_to_float, value_units
from dpsum_core.errors import DataError, ParameterError
from dpsum_core.text import counted


# --------------------------------------------------------------------------------------------
# Cut points
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class CutPoints:
    """Public points at which a summary holds exact counts and sums.

    The bin edges of ``domain`` (uniform: engines find a record's bin arithmetically) plus
    ``extra`` points that are not edges (sorted, unique, in (0, U)).
    """

    domain: Domain
    extra: np.ndarray = field(default_factory=lambda: np.empty(0))

    def __post_init__(self) -> None:
        pts = np.unique(np.asarray(self.extra, float))
        pts = pts[np.isfinite(pts) & (pts > 0) & (pts < self.domain.upper)]
        pts = np.setdiff1d(pts, self.domain.edges)
        pts.setflags(write=False)
        object.__setattr__(self, "extra", pts)

    @cached_property
    def all(self) -> np.ndarray:
        """Every held point, sorted."""
        pts = np.union1d(self.domain.edges, self.extra)
        pts.setflags(write=False)
        return pts


def cut_points(
    domain: Domain,
    *,
    svt_grid: np.ndarray | None = None,
    thresholds: np.ndarray | None = None,
    theta: float | None = None,
) -> CutPoints:
    """The public cut points a run needs: bin edges, SVT grid u_k, workload thresholds, fixed θ.

    Parameters
    ----------
    domain
        Public domain; its edges are always held (histogram, binned and exact true answers).
    svt_grid
        u_k from :func:`dpsum_core.truncation.svt.svt_grid` (SVT counts, also per query for SQM,
        whose points min(u_k, τ_i) are grid points or thresholds).
    thresholds
        Workload thresholds τ_i (bin edges for every workload this tool builds).
    theta
        A fixed, public θ.

    Privacy
    -------
    Every input is public; nothing here looks at the data.
    """
    extra = [np.asarray(a, float).ravel() for a in (svt_grid, thresholds) if a is not None]
    if theta is not None:
        extra.append(np.array([float(theta)]))
    return CutPoints(domain, np.concatenate(extra) if extra else np.empty(0))



# --------------------------------------------------------------------------------------------
# The summary
# --------------------------------------------------------------------------------------------
class MissingStatistics(DataError):
    """The summary cannot answer exactly: it names the points and order statistics missing.

    ``points``: values p whose #{t ≤ p} and Σ_{t ≤ p} t are needed; ``positions``: 0-based
    ascending ranks whose values are needed. A backend's ``extend`` computes exactly these.
    """

    def __init__(self, points: np.ndarray, positions: np.ndarray):
        self.points = np.unique(np.asarray(points, float))
        self.positions = np.unique(np.asarray(positions, np.int64))
        what = []
        if self.points.size:
            what.append(f"counts and sums at {counted(self.points.size, 'point')} (e.g. {self.points[0]:g})")
        if self.positions.size:
            what.append(f"{counted(self.positions.size, 'order statistic')} below the top-k")
        super().__init__(
            "the data summary does not hold "
            + " and ".join(what)
            + ": a second aggregation pass is needed (dpsum_core.data.summary.complete)"
        )


@dataclass(frozen=True, eq=False)
class DataSummary:
    """Fixed-size summary of one cleaned column; the same questions as a ``Dataset``.

    Attributes
    ----------
    name, column, upper, report
        Provenance, the public U used for cleaning, and the cleaning report.
    records
        N, the number of cleaned records.
    total_units
        Σt exactly, in units of 2⁻¹⁰⁴ (see :func:`limbs`).
    points, counts, units, sums
        Sorted held points p, #{t ≤ p}, Σ_{t ≤ p} t exactly (Python ints, units of 2⁻¹⁰⁴) and
        correctly rounded.
    top
        The min(k, N) largest values, descending (k = ``limits.SUMMARY_TOP_K``).
    positions, order_values
        Extra order statistics (0-based ascending rank → value), from second passes.

    Privacy
    -------
    Private data: never shown or written as a release.
    """

    name: str
    column: str
    upper: float
    report: CleaningReport
    records: int
    total_units: int
    points: np.ndarray = field(repr=False)
    counts: np.ndarray = field(repr=False)
    units: np.ndarray = field(repr=False)
    sums: np.ndarray = field(repr=False)
    top: np.ndarray = field(repr=False)
    positions: np.ndarray = field(repr=False, default_factory=lambda: np.empty(0, np.int64))
    order_values: np.ndarray = field(repr=False, default_factory=lambda: np.empty(0))

    # ---------------------------------------------------------------- Dataset-compatible API
    @property
    def size(self) -> int:
        """N (private: never shown as a released statistic)."""
        return self.records

    @property
    def total(self) -> float:
        """Σt, correctly rounded."""
        return units_to_float(self.total_units)

    @cached_property
    def _top_ascending(self) -> np.ndarray:
        return self.top[::-1].copy()

    @cached_property
    def _top_units_cum(self) -> list[int]:
        """Σ of the j largest values, exactly, for j = 0..k."""
        out = [0]
        for u in value_units(self.top):
            out.append(out[-1] + u)
        return out

    @property
    def _complete(self) -> bool:
        """True when the top-k holds every record (then any point is answerable)."""
        return self.top.size == self.records

    def _lookup(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(held index or −1, #{top > p}, answerable) for every point."""
        p = np.asarray(points, float)
        idx = np.searchsorted(self.points, p)
        held = (idx < self.points.size) & (self.points[np.minimum(idx, self.points.size - 1)] == p)
        above = self.top.size - np.searchsorted(self._top_ascending, p, side="right")
        from_top = self._complete | (p >= (self.top[-1] if self.top.size else np.inf))
        ok = held | from_top
        if not ok.all():
            raise MissingStatistics(p[~ok], np.empty(0))
        return np.where(held, idx, -1), above, ok

    def count_at_most(self, points: np.ndarray) -> np.ndarray:
        """#{t ≤ p} for every p in ``points`` (any shape).

        Raises
        ------
        MissingStatistics
            For a point that is neither held nor at least the smallest top-k value.
        """
        p = np.asarray(points, float)
        idx, above, _ = self._lookup(p)
        held = self.counts[np.maximum(idx, 0)] if self.counts.size else np.zeros_like(idx)
        return np.where(idx >= 0, held, self.records - above).astype(np.int64)

    def sum_at_most(self, points: np.ndarray) -> np.ndarray:
        """Σ_{t ≤ p} t for every p in ``points``, correctly rounded (see :func:`limbs`).

        Raises
        ------
        MissingStatistics
            As :meth:`count_at_most`.
        """
        p = np.asarray(points, float)
        idx, above, _ = self._lookup(p)
        held = self.sums[np.maximum(idx, 0)] if self.sums.size else np.zeros(p.shape)
        cache: dict[int, float] = {}
        flat_above = np.asarray(above).ravel()
        from_top = np.empty(flat_above.size)
        for n, j in enumerate(flat_above.tolist()):
            if j not in cache:
                cache[j] = units_to_float(self.total_units - self._top_units_cum[j])
            from_top[n] = cache[j]
        return np.where(idx >= 0, held, from_top.reshape(p.shape))

    def truncated_sum(self, tau: np.ndarray, theta: np.ndarray) -> np.ndarray:
        """Trunc_θ(q_τ)(D) = Σ_{t ≤ τ} min(t, θ), as :meth:`Dataset.truncated_sum`."""
        return truncated_sum(self, tau, theta)

    def histogram(self, domain: Domain) -> np.ndarray:
        """Counts x_j per bin (private), from the counts at the bin edges."""
        at = np.concatenate(([0], self.count_at_most(domain.edges)))
        # Records equal to 0 sit in bin 1 with (0, e_1]: bin_index maps 0 to the first bin.
        return np.diff(at).astype(float)

    def crossover_index(
        self, *, beta: float, theta0: float, counts: np.ndarray | int | None = None
    ) -> np.ndarray:
        """i* exactly as :func:`dpsum_core.truncation.recursive.crossover_index` computes it on records.

        The same binary search; the value d at each probe comes from the top-k or a stored
        order statistic, or the probe is decided by the held points around d (d ∈ (p_{j−1},
        p_j] with log p_j < ln θ₀ + βi ⇒ true; log p_{j−1}⁺ ≥ ln θ₀ + βi ⇒ false; np.log is
        monotone). Otherwise :class:`MissingStatistics` names the ranks to fetch: each search's
        undecided probe and those it may reach in its next ``limits.SUMMARY_SPECULATIVE_PROBES``
        − 1 undecided steps, whichever way each goes, so that a search through many undecided
        probes takes a few passes, not one per probe.
        """
        c = np.atleast_1d(np.asarray(self.records if counts is None else counts, dtype=np.int64))
        log_t0 = math.log(theta0)
        out = np.zeros_like(c)
        wanted: set[int] = set()
        depth = limits.SUMMARY_SPECULATIVE_PROBES
        for n, count in enumerate(c.tolist()):
            # Each search runs on until its own first undecided probe (searches in lockstep
            # would stop at the first undecided probe of any of them: one pass per step).
            found = self._search(0, count, count, log_t0, beta, depth, wanted)
            out[n] = -1 if found is None else found
        if wanted:
            raise MissingStatistics(np.empty(0), np.array(sorted(wanted)))
        return out

    def _decide(self, pos: int, bound: float) -> bool | None:
        """Whether d (the value at ascending rank ``pos``) satisfies d ≤ 0 or log d < bound;
        None when neither a known value nor the held points around d decide it."""
        d = self._value_at(pos)
        if d is not None:
            arr = np.array([d])
            with np.errstate(divide="ignore"):
                return bool(((arr <= 0) | (np.log(np.where(arr > 0, arr, 1.0)) < bound))[0])
        low, high = self._bracket(pos)
        if high <= 0 or np.log(np.array([high]))[0] < bound:
            return True
        if low >= 0 and np.log(np.array([np.nextafter(low, np.inf)]))[0] >= bound:
            return False
        return None

    def _search(
        self, lo: int, hi: int, c: int, log_t0: float, beta: float, depth: int, wanted: set[int]
    ) -> int | None:
        """Binary search for i* on [lo, hi) among the ``c`` smallest records. At an undecided
        probe: add its rank to ``wanted``, and those of the undecided probes of the next
        ``depth − 1`` levels on both sides, and return None."""
        while lo < hi:
            mid = (lo + hi) // 2
            # log θ₀ + β·i with i an int64: the double operations of the records' search.
            decided = self._decide(c - 1 - mid, log_t0 + beta * np.int64(mid))
            if decided is None:
                wanted.add(c - 1 - mid)
                if depth > 1:
                    self._search(lo, mid, c, log_t0, beta, depth - 1, wanted)
                    self._search(mid + 1, hi, c, log_t0, beta, depth - 1, wanted)
                return None
            lo, hi = (lo, mid) if decided else (mid + 1, hi)
        return lo

    def _value_at(self, pos: int) -> float | None:
        rank = self.records - 1 - pos
        if rank < self.top.size:
            return float(self.top[rank])
        k = np.searchsorted(self.positions, pos)
        if k < self.positions.size and self.positions[k] == pos:
            return float(self.order_values[k])
        return None

    def _bracket(self, pos: int) -> tuple[float, float]:
        """(low, high) with low < value at ``pos`` ≤ high, from the held points (low = −1 if
        only t ≥ 0 is known)."""
        j = int(np.searchsorted(self.counts, pos, side="right"))
        low = float(self.points[j - 1]) if j > 0 else -1.0
        high = float(self.points[j]) if j < self.points.size else float(self.top[-1])
        return low, high

    def interval_of(self, pos: int) -> tuple[float, float, int]:
        """(low, high, offset): the value at ascending rank ``pos`` is the offset-th smallest
        record in (low, high] (used by backends to fetch it)."""
        low, high = self._bracket(pos)
        below = int(self.count_at_most(np.array([low]))[0]) if low >= 0 else 0
        return low, high, pos - below

    @cached_property
    def fingerprint(self) -> str:
        """Stable digest of the summary, used as a cache key."""
        h = hashlib.blake2b(digest_size=12)
        for a in (self.points, self.counts, self.sums, self.top, self.positions, self.order_values):
            h.update(np.ascontiguousarray(a).tobytes())
        h.update(repr((self.records, self.total_units, self.report, self.upper)).encode())
        return h.hexdigest()

    # ---------------------------------------------------------------- second passes
    def with_points(self, points: np.ndarray, counts: np.ndarray, units: list[int]):
        """A copy that also holds ``points`` with their counts and exact sums (units)."""
        p = np.concatenate((self.points, np.asarray(points, float)))
        p, first = np.unique(p, return_index=True)
        c = np.concatenate((self.counts, np.asarray(counts, np.int64)))[first]
        u = np.concatenate((self.units, np.array([*units, 0], dtype=object)[:-1]))[first]
        s = np.concatenate((self.sums, point_sums(units)))[first]
        return replace(self, points=_ro(p), counts=_ro(c), units=_ro(u), sums=_ro(s))

    def units_at_most(self, points: np.ndarray) -> list[int]:
        """Σ_{t ≤ p} t exactly (units of 2⁻¹⁰⁴) for every p in ``points`` (flattened): held
        points, or points answerable from the top-k (second passes build on it).

        Raises
        ------
        MissingStatistics
            As :meth:`count_at_most`.
        """
        p = np.asarray(points, float).ravel()
        idx, above, _ = self._lookup(p)
        return [
            int(self.units[i]) if i >= 0 else self.total_units - self._top_units_cum[j]
            for i, j in zip(idx.tolist(), np.asarray(above).tolist(), strict=True)
        ]

    def with_order_statistics(self, positions: np.ndarray, values: np.ndarray):
        """A copy that also knows the values at ascending ranks ``positions``."""
        pos = np.concatenate((self.positions, np.asarray(positions, np.int64)))
        pos, first = np.unique(pos, return_index=True)
        vals = np.concatenate((self.order_values, np.asarray(values, float)))[first]
        return replace(self, positions=_ro(pos), order_values=_ro(vals))


def _ro(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    a.setflags(write=False)
    return a


def from_intervals(
    *,
    name: str,
    column: str,
    upper: float,
    report: CleaningReport,
    points: np.ndarray,
    counts: np.ndarray,
    limb_sums: list[tuple[int, int, int]],
    top: np.ndarray,
) -> DataSummary:
    """Build a summary from per-interval aggregates, identically for every backend.

    ``counts[j]`` and ``limb_sums[j]`` (ΣI, ΣF₁, ΣF₂) cover the records in (p_{j−1}, p_j]
    (j = 0: t ≤ p_0); entry len(points) covers t > p_last. Cumulation is exact (Python ints);
    each cumulative sum is rounded once.
    """
    units = np.array([to_units(*s) for s in limb_sums] + [0], dtype=object)[:-1]
    cum_units = np.cumsum(units)
    cum_counts = np.cumsum(np.asarray(counts, np.int64))
    n = int(cum_counts[-1])
    if n == 0:
        raise DataError(
            "no numeric values left after cleaning: choose a column that holds numbers."
        )
    return DataSummary(
        name=name,
        column=column,
        upper=float(upper),
        report=report,
        records=n,
        total_units=int(cum_units[-1]),
        points=_ro(np.asarray(points, float)),
        counts=_ro(cum_counts[:-1]),
        units=_ro(cum_units[:-1]),
        sums=_ro(point_sums([int(u) for u in cum_units[:-1]])),
        top=_ro(np.asarray(top, float) + 0.0),  # + 0.0 turns −0.0 into 0.0 (engines differ)
    )




# --------------------------------------------------------------------------------------------
# Second passes
# --------------------------------------------------------------------------------------------
T = TypeVar("T")


def complete(
    summary: DataSummary,
    task: Callable[[DataSummary], T],
    extend: Callable[[DataSummary, MissingStatistics], DataSummary],
) -> tuple[T, DataSummary]:
    """Run ``task(summary)``; whenever it needs a statistic the summary lacks, extend the
    summary by a second aggregation pass (``extend``) and run it again.

    A task is deterministic for a fixed seed, so the re-run draws the same noise and needs the
    same statistics; each pass adds what was missing, so the loop ends. Returns the task's result
    and the extended summary (keep it: later tasks reuse it).

    Raises
    ------
    ParameterError
        After ``limits.SUMMARY_MAX_PASSES`` passes (a task that keeps asking for new points).
    """
    for _ in range(limits.SUMMARY_MAX_PASSES):
        try:
            return task(summary), summary
        except MissingStatistics as missing:
            summary = extend(summary, missing)
    raise ParameterError(
        f"this run needed more than {limits.SUMMARY_MAX_PASSES} extra passes over the data: "
        "use SVT or a fixed θ, or the in-memory engine"
    )
