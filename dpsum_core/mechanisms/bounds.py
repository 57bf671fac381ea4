"""Interval hooks of the algorithm records: each family bounds its own bias and noise.

An algorithm's record (:class:`~dpsum_core.mechanisms.algorithm.Algorithm`) carries an
:class:`IntervalRule`: ``bounds(inputs) -> Linear`` (two linear functionals of the noisy
measurement that bound the true answers, with the sd of their noise; see
:mod:`dpsum_core.publish.intervals`, which adds the margins) and ``method`` (in words, for the
report). The count-based families share :func:`count_bounds` with their own noise variance; a
new algorithm names its rule in its record (tests/core/test_extension.py).

Privacy
-------
Functions of the noisy measurement and public inputs only: post-processing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from dpsum_core.data.domain import Domain
from dpsum_core.mechanisms.workloads import Workload


@dataclass(frozen=True, eq=False)
class IntervalInputs:
    """What a release's interval reads (public, or the noisy measurement as drawn).

    Attributes
    ----------
    domain, workload
        Public.
    theta
        The released θ (``None``: no truncation; a list: SQM's θ_i; ClampShells' θ*).
    epsilon, epsilon_measure
        The release's total ε and its measurement share.
    raw
        The noisy answers before isotonic regression (unrounded).
    draw
        The noisy values of the measurement's draw (RawSum's rows, ClampShells' stage 2).
    earlier
        The noisy values of the release's draws before ``draw``, in order (ClampShells: stage
        1, then its partition, which says where stage 2's leaves were cut).
    """

    domain: Domain
    workload: Workload
    theta: float | list[float] | None
    epsilon: float
    epsilon_measure: float
    raw: np.ndarray
    draw: np.ndarray
    earlier: tuple[np.ndarray, ...] = ()


@dataclass(frozen=True, eq=False)
class Linear:
    """Bounds before the noise margin: lo(m̂), hi(m̂) and the sd of their noise (NaN hi: open)."""

    lo: np.ndarray
    lo_sd: np.ndarray
    hi: np.ndarray
    hi_sd: np.ndarray



@dataclass(frozen=True)
class IntervalRule:
    """An algorithm family's interval: ``bounds(inputs)`` and, in words, ``method``;
    ``open_above``: why some of its intervals may be open above (NaN upper end), in words said
    before a release, or ``None`` when every interval is two-sided."""

    bounds: Callable[[IntervalInputs], Linear]
    method: str
    open_above: str | None = None


# --------------------------------------------------------------------------------------------
# Count-based algorithms: every record of bin j counts as u_j = min(v_j, θ)
# --------------------------------------------------------------------------------------------
def bin_ratios(domain: Domain, workload: Workload, theta: float) -> tuple[np.ndarray, np.ndarray]:
    """Per bin (up to the last query), the factors r⁻_j, r⁺_j of each query group's weighted
    counts: a record of bin j has value t ∈ [e_{j−1}, e_j] and counts as u_j, so its bin's true
    sum lies in [e_{j−1}/u_j, e_j/u_j] × (u_j·x_j). Queries only see groups of bins (the bins
    between two thresholds), so each bin gets its group's smallest and largest factor."""
    e = domain.edges
    lo_e = np.concatenate(([0.0], e[:-1]))
    u = np.minimum(domain.bin_weights, theta)
    counts = workload.counts
    n_used = int(counts[-1])
    starts = np.concatenate(([0], counts[:-1]))
    r_lo = np.minimum.reduceat((lo_e / u)[:n_used], starts)
    r_hi = np.maximum.reduceat((e / u)[:n_used], starts)
    sizes = np.diff(np.concatenate(([0], counts)))
    return np.repeat(r_lo, sizes), np.repeat(r_hi, sizes)


# Var of Σ_{j ≤ J_i} ratio_j·(estimated u_j·x_j) for each query i, from (inputs, θ, ratio, u,
# per_group): the algorithm's own variance formula with per-bin weights (SPEC §6).
Variance = Callable[[IntervalInputs, float, np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def count_bounds(inputs: IntervalInputs, variance: Variance) -> Linear:
    """Bounds of a count-based algorithm (Identity, Workload, TiMM, TaMM) from its raw
    (pre-isotonic) answers.

    The raw answer differences between consecutive thresholds estimate each group's weighted
    count Σ_{j∈g} u_j·x_j (unbiasedly: they are the workload's own answers); the truth is
    between Σ_g r⁻_g·Δm_g and Σ_g r⁺_g·Δm_g (:func:`bin_ratios`): binning by bin edges and
    truncation at θ both bounded, from above and below. The noise sd of those sums is the
    algorithm's ``variance`` with per-bin weights r·u in place of u (SPEC §6).
    """
    domain, workload = inputs.domain, inputs.workload
    theta = np.inf if inputs.theta is None else float(inputs.theta)  # type: ignore[arg-type]
    counts = workload.counts
    u = np.minimum(domain.bin_weights, theta)[: int(counts[-1])]
    delta = np.diff(np.concatenate(([0.0], np.asarray(inputs.raw, float))))
    first = np.concatenate(([0], counts[:-1]))
    out = []
    for ratio in bin_ratios(domain, workload, theta):
        per_group = ratio[first]
        value = np.cumsum(per_group * delta)
        out += [value, np.sqrt(variance(inputs, theta, ratio, u, per_group))]
    return Linear(*out)


COUNT_METHOD = (
    "binning and truncation bounded from the noisy measurement of each group of bins "
    "between thresholds (each record lies between its bin's lower and upper edge; a record "
    "above θ is worth at most its bin's upper edge), plus the noise's one-sided 97.5 % margins"
)


def block_sd(coef: np.ndarray, shell_of: np.ndarray, cov: list[np.ndarray]) -> np.ndarray:
    """sd of coef @ x̂ with x̂'s covariance block-diagonal by shell (independent shells)."""
    var = np.zeros(coef.shape[0])
    for k, V in enumerate(cov):
        idx = np.flatnonzero(shell_of == k)
        if idx.size:
            a = coef[:, idx]
            var += np.einsum("ij,jk,ik->i", a, V[: idx.size, : idx.size], a)
    return np.sqrt(np.maximum(var, 0.0))


