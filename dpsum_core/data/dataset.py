"""The cleaned records in memory (:class:`Dataset`), the statistics the engine reads from them
(:class:`Statistics`, which a :class:`~dpsum_core.data.summary.DataSummary` also provides).
"""


from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Protocol

import numpy as np

from dpsum_core.data.cleaning import CleaningReport, clean

if TYPE_CHECKING:
    import pandas as pd


class Statistics(Protocol):
    """What the engine reads from a column: the records in memory (:class:`Dataset`) or a data
    summary computed by a backend (:class:`~dpsum_core.data.summary.DataSummary`).

    Privacy
    -------
    Everything here is private data (counts and sums of records): only mechanisms that add
    noise may release anything computed from it.
    """

    @property
    def name(self) -> str: ...
    @property
    def column(self) -> str: ...
    @property
    def upper(self) -> float: ...
    @property
    def report(self) -> CleaningReport: ...
    @property
    def size(self) -> int: ...
    @property
    def fingerprint(self) -> str: ...

    def count_at_most(self, points: np.ndarray) -> np.ndarray: ...
    def sum_at_most(self, points: np.ndarray) -> np.ndarray: ...
    def units_at_most(self, points: np.ndarray) -> list[int]: ...
    def truncated_sum(self, tau: np.ndarray, theta: np.ndarray) -> np.ndarray: ...


@dataclass(frozen=True, eq=False)
class Dataset:
    """Cleaned values of one column, sorted ascending, plus provenance.

    ``values`` is read-only and sorted: counts below a point, truncated sums and the top
    values all come from it with ``np.searchsorted`` and one cumulative sum.
    """

    values: np.ndarray
    report: CleaningReport
    name: str
    column: str
    upper: float
    cumsum: np.ndarray = field(repr=False)

    @property
    def size(self) -> int:
        """Number of records (private: never shown as a released statistic)."""
        return int(self.values.size)

    def sum_at_most(self, points: np.ndarray) -> np.ndarray:
        """Σ_{t ≤ p} t for every p in ``points`` (any shape), correctly rounded: the sums of
        a :class:`~dpsum_core.data.summary.DataSummary` of these records, from any engine."""
        idx = np.searchsorted(self.values, points, side="right")
        if self.exact_running_sums:
            return np.where(idx > 0, self.cumsum[np.maximum(idx - 1, 0)], 0.0)
        # Running float sums of non-integer values drift in their last bits (and DuckDB or
        # Spark add in another order): take the exact sums, rounded once, as summaries do.
        return self._exact_sums(idx)

    def units_at_most(self, points: np.ndarray) -> list[int]:
        """Σ_{t ≤ p} t exactly (Python ints, units of 2⁻¹⁰⁴, see
        :mod:`dpsum_core.data.exact`) for every p in ``points`` (flattened)."""
        idx = np.searchsorted(self.values, np.asarray(points, float).ravel(), side="right")
        return self._exact_sums.units(idx)

    @cached_property
    def _exact_sums(self):
        from dpsum_core.data.exact import ExactPrefixSums

        return ExactPrefixSums(self.values)

    @cached_property
    def exact_running_sums(self) -> bool:
        """Whether every running sum is exact: integer values whose total is below 2⁵³, so
        that each partial sum is a representable integer (incomes in whole units)."""
        v = self.values
        return bool(v.size == 0 or (self.cumsum[-1] < 2.0**53 and np.array_equal(v, np.floor(v))))

    def count_at_most(self, points: np.ndarray) -> np.ndarray:
        """#{t ≤ p} for every p in ``points``."""
        return np.searchsorted(self.values, points, side="right")

    def truncated_sum(self, tau: np.ndarray, theta: np.ndarray) -> np.ndarray:
        """Trunc_θ(q_τ)(D) = Σ_{t ≤ τ} min(t, θ), broadcasting ``tau`` against ``theta``.

        Filter on the raw value first, then clamp (SPEC §1): values in (θ, τ] contribute θ each.
        """
        return truncated_sum(self, tau, theta)

    @cached_property
    def fingerprint(self) -> str:
        """Stable digest of the cleaned values and their unit of privacy, used as a cache key
        (the same values read per person are another dataset: results state their unit)."""
        import hashlib

        h = hashlib.blake2b(self.values.tobytes(), digest_size=12)
        if self.report.id_column is not None:
            h.update(f"\x00id:{self.report.id_column}".encode())
        return h.hexdigest()


def truncated_sum(data, tau: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Σ_{t ≤ τ} min(t, θ) from ``data.count_at_most`` and ``data.sum_at_most`` (a
    :class:`Dataset` or a :class:`~dpsum_core.data.summary.DataSummary`)."""
    tau, theta = np.broadcast_arrays(np.asarray(tau, float), np.asarray(theta, float))
    low = np.minimum(tau, theta)
    above = data.count_at_most(tau) - data.count_at_most(low)
    # θ·#{θ < t ≤ τ}; written with where() so that θ = ∞ with no such record gives 0.
    return data.sum_at_most(low) + np.where(above > 0, theta, 0.0) * above


def make_dataset(
    raw: pd.Series | np.ndarray,
    *,
    upper: float,
    name: str = "data",
    column: str = "value",
    decimal_comma: bool = False,
    ids: pd.Series | None = None,
    id_column: str | None = None,
    content: bool = False,
) -> Dataset:
    """Clean ``raw`` and wrap it as a sorted, read-only :class:`Dataset`; with ``ids`` (a
    privacy identifier per row, see :func:`~dpsum_core.data.cleaning.clean`) one value per
    person; with ``content`` the report holds the data's
    :class:`~dpsum_core.data.content.Content` (what a ledger binds to).

    Privacy
    -------
    The records are private; with ``ids`` each record is one person's total in [0, U].
    """
    values, report = clean(
        raw,
        upper=upper,
        decimal_comma=decimal_comma,
        column=column,
        ids=ids,
        id_column=id_column,
        content=content,
    )
    values.sort()  # introsort (SIMD in numpy 2): equal floats are indistinguishable, no need for stable
    values.setflags(write=False)
    cumsum = np.cumsum(values)
    cumsum.setflags(write=False)
    return Dataset(values, report, name=name, column=column, upper=float(upper), cumsum=cumsum)
