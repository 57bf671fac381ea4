"""Prefix-sum workloads: Q1/Q2/Q3, every k-th edge, or explicit thresholds snapped to edges.

A workload is public: it is a list of bin edges τ_1 < … < τ_m. Query i sums the values t ≤ τ_i,
so its row of W is 1 on bins 1..k_i (W_ij = 1 iff e_j ≤ τ_i) and W·z is a cumulative sum of z
read at k_i.
"""


from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from dpsum_core.data.domain import Domain
from dpsum_core.errors import ParameterError
from dpsum_core.text import number

NAMED_WORKLOADS: dict[str, int] = {"Q1": 1, "Q2": 10, "Q3": 100}
SNAPPED_SHOWN = 10  # moved thresholds listed one by one in a sentence; the others counted


@dataclass(frozen=True, eq=False)
class Workload:
    """A prefix workload over a :class:`~dpsum_core.data.domain.Domain`.

    Attributes
    ----------
    spec
        The text that built it (``"Q1"``, ``"every:5"``, ``"values:1000,20000"``).
    counts
        k_i, the number of bins query i covers (1-based edge index), strictly increasing.
    thresholds
        τ_i = e_{k_i}.
    snapped
        For explicit values: (requested, snapped) pairs where the value moved to an edge.
    """

    spec: str
    counts: np.ndarray
    thresholds: np.ndarray
    snapped: tuple[tuple[float, float], ...] = ()

    @property
    def size(self) -> int:
        """m, the number of queries."""
        return int(self.counts.size)

    def prefix(self, z: np.ndarray) -> np.ndarray:
        """W·z along the last axis (prefix sums read at k_i): works on (…, n) arrays."""
        return np.cumsum(z, axis=-1)[..., self.counts - 1]

    def matrix(self, n: int) -> np.ndarray:
        """Dense W (m × n), for tests and small examples only."""
        return (np.arange(1, n + 1)[None, :] <= self.counts[:, None]).astype(float)


def make_workload(spec: str, domain: Domain) -> Workload:
    """Build a workload from its text form.

    Parameters
    ----------
    spec
        ``Q1`` (every edge), ``Q2`` (every 10th), ``Q3`` (every 100th), ``every:K``, or
        ``values:V1,V2,…`` (each value in (0, U], snapped up to the next edge; duplicates after
        snapping are merged).
    domain
        The public domain.

    Raises
    ------
    ParameterError
        Unknown spec, K out of range, or values outside the domain.
    """
    text = str(spec).strip()
    key = text.upper()
    n = domain.bins
    if key in NAMED_WORKLOADS:
        return _every(NAMED_WORKLOADS[key], domain, key)
    match = re.fullmatch(r"every\s*:\s*(\d+)", text, flags=re.IGNORECASE)
    if match:
        return _every(int(match.group(1)), domain, f"every:{int(match.group(1))}")
    match = re.fullmatch(r"values\s*:\s*(.*)", text, flags=re.IGNORECASE | re.DOTALL)
    if match:
        return _values(match.group(1), domain)
    raise ParameterError(
        f"unknown workload {spec!r}: use Q1, Q2, Q3, every:K (1 ≤ K ≤ {n}) or values:V1,V2,…"
    )


def _every(k: int, domain: Domain, spec: str) -> Workload:
    n = domain.bins
    if not 1 <= k <= n:
        raise ParameterError(
            f"workload {spec} asks for every {k}-th of {n} bins: K must be between 1 and {n}, "
            "the number of bins."
        )
    counts = np.arange(k, n + 1, k)
    return Workload(spec, counts, domain.edges[counts - 1])


def _values(body: str, domain: Domain) -> Workload:
    parts = [p for p in re.split(r"[,\s;]+", body.strip()) if p]
    if not parts:
        raise ParameterError("values: needs at least one threshold, e.g. values:10000,50000")
    try:
        requested = np.array([float(p) for p in parts])
    except ValueError:
        bad = next(p for p in parts if not _is_float(p))
        raise ParameterError(f"threshold {bad!r} is not a number") from None
    outside = requested[~np.isfinite(requested) | (requested <= 0) | (requested > domain.upper)]
    if outside.size:
        raise ParameterError(
            f"threshold {outside[0]:g} is outside the domain (0, {domain.upper:g}]: "
            "use values above 0 and at most U."
        )
    counts_each = np.searchsorted(domain.edges, requested, side="left") + 1
    snapped = tuple(
        (float(r), float(domain.edges[c - 1]))
        for r, c in zip(requested, counts_each, strict=True)
        if domain.edges[c - 1] != r
    )
    counts = np.unique(counts_each)
    spec = "values:" + ",".join(f"{v:g}" for v in domain.edges[counts - 1])
    return Workload(spec, counts, domain.edges[counts - 1], snapped)


def snapping_words(workload: Workload, domain: Domain) -> str:
    """Which requested thresholds were moved, to which bin edge and why, in one sentence
    without a full stop (``""`` when none was moved): the same words on the command line's
    stderr, in the release report and on the dashboard.

    >>> w = make_workload("values:12345,100000", Domain(upper=800_000.0, bins=1000))
    >>> snapping_words(w, Domain(upper=800_000.0, bins=1000))
    'threshold 12,345 moved up to the bin edge 12,800 (thresholds are bin edges, U/bins = 800 apart; more bins give finer edges)'
    """
    moved = workload.snapped
    if not moved:
        return ""
    if len(moved) == 1:
        ((a, b),) = moved
        what = f"threshold {number(a)} moved up to the bin edge {number(b)}"
    else:
        listed = ", ".join(f"{number(a)} → {number(b)}" for a, b in moved[:SNAPPED_SHOWN])
        more = len(moved) - SNAPPED_SHOWN
        what = f"{len(moved):,} thresholds moved up to the next bin edge: {listed}" + (
            f" and {more:,} more" if more > 0 else ""
        )
    return (
        f"{what} (thresholds are bin edges, U/bins = {number(domain.width)} apart; more bins "
        "give finer edges)"
    )


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
