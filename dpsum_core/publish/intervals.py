"""95 % intervals for the TRUE answers of a release: noise and the algorithm's bias, bounded.

Every released answer ŷ_i comes with [lower_i, upper_i] such that, over the mechanism's
randomness, P(y_i ∈ [lower_i, upper_i]) ≥ 95 % for every dataset, y_i the true prefix sum of
the cleaned values. The interval is post-processing of the release's noisy measurement and
public inputs (U, the bins, the workload, ε, the released θ): it costs no budget.

How (one scheme for every algorithm): each algorithm's noise-free target m (what it would answer
without noise: truncated at θ, binned, clamped, interpolated) bounds the truth by two *linear*
functionals of m, ``lo(m) ≤ y ≤ hi(m)``, that hold for every dataset (the bias is bounded
deterministically; see the functions below). The same functionals applied to the noisy
estimate give ``lo(m) + lo(η)`` and ``hi(m) + hi(η)``, where η is the noise, whose law is public
(independent Laplace draws with known scales, through public linear maps). The interval
``[lo(m̂) − κ·sd(lo(η)), hi(m̂) + κ·sd(hi(η))]`` then misses the truth with probability at most
2.5 % on each side, with κ = ln 20 / √2 ≈ 2.118, the exact one-sided 97.5 % point of one
Laplace draw in standard deviations (a sum of several draws is closer to normal, 1.96). Where
no released quantity bounds the bias from above (SQM truncated below τ: nothing it measured
says how much lies above θ), the interval is open above: ``upper`` is NaN, ``bias_bounded``
false. The truth is ≥ 0, so lower bounds are clipped at 0, and each interval is widened to hold
the published answer (isotonic regression and RawSum's drop move answers, never the interval's
guarantee: a wider interval covers at least as often).

Conditioning on θ is valid where θ comes from separate draws (SVT, recursive, ClampShells'
stage 1: the measurement's noise is independent of them). RawSum chooses θ* from the same
noise: its interval is built from the full-prefix estimate, which does not depend on θ* at all.

Privacy
-------
Functions of the noisy measurement (its noisy values, as drawn) and public inputs only: the
same post-processing guarantee as the answers. Nothing reads the data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpsum_core.data.domain import Domain
from dpsum_core.mechanisms import clampshells as cs
from dpsum_core.mechanisms import rawsum
from dpsum_core.mechanisms.baselines import workload_sensitivity
from dpsum_core.mechanisms.clampshells_answers import query_cells
from dpsum_core.mechanisms.matrix import (
    tamm_sensitivity,
    tamm_strategy,
    timm_sensitivity,
    timm_strategy,
)
from dpsum_core.mechanisms.sqm import sqm_scale
from dpsum_core.mechanisms.workloads import Workload

# One-sided 97.5 % point of a Laplace draw in standard deviations (ln 20 / √2): each side of the
# interval fails with probability ≤ 2.5 %, so the two together ≤ 5 %.
KAPPA = math.log(20.0) / math.sqrt(2.0)
LEVEL = 0.95
COUNT_BASED = ("identity", "workload", "timm", "tamm")


@dataclass(frozen=True, eq=False)
class Intervals:
    """The 95 % interval of every query's true answer (public: post-processing).

    Attributes
    ----------
    lower, upper
        Bounds per query; ``upper`` is NaN where the interval is open above.
    bias_bounded
        Whether the algorithm's bias of that query is bounded from the release (two-sided).
    method
        In words, how the interval was made (for the report).
    """

    lower: np.ndarray
    upper: np.ndarray
    bias_bounded: np.ndarray
    method: str

    def summary(self) -> dict:
        """What release.json records: the level, how many queries are bounded, the method."""
        bounded = int(self.bias_bounded.sum())
        return {
            "level": LEVEL,
            "queries": int(self.bias_bounded.size),
            "bias_bounded": bounded,
            "open_above": int(self.bias_bounded.size - bounded),
            "method": self.method,
        }


@dataclass(frozen=True, eq=False)
class Linear:
    """Bounds before the noise margin: lo(m̂), hi(m̂) and the sd of their noise (NaN hi: open)."""

    lo: np.ndarray
    lo_sd: np.ndarray
    hi: np.ndarray
    hi_sd: np.ndarray


def finish(bounds: Linear, published: np.ndarray, method: str) -> Intervals:
    """The interval from the linear bounds: noise margins (κ·sd), clip at 0, hull the answer."""
    lower = np.maximum(bounds.lo - KAPPA * bounds.lo_sd, 0.0)
    upper = bounds.hi + KAPPA * bounds.hi_sd
    bounded = np.isfinite(upper)
    lower = np.minimum(lower, published)
    upper = np.where(bounded, np.maximum(upper, published), np.nan)
    return Intervals(lower, upper, bounded, method)


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


def count_based(
    algorithm: str,
    domain: Domain,
    workload: Workload,
    theta: float,
    epsilon_measure: float,
    raw: np.ndarray,
) -> Linear:
    """Bounds of Identity, Workload, TiMM and TaMM from their raw (pre-isotonic) answers.

    The raw answer differences between consecutive thresholds estimate each group's weighted
    count Σ_{j∈g} u_j·x_j (unbiasedly: they are the workload's own answers); the truth is
    between Σ_g r⁻_g·Δm_g and Σ_g r⁺_g·Δm_g (:func:`bin_ratios`): binning by bin edges and
    truncation at θ both bounded, from above and below. The noise sd of those sums is the
    algorithm's own variance formula with per-bin weights r·u in place of u (SPEC §6).
    """
    counts = workload.counts
    u = np.minimum(domain.bin_weights, theta)[: int(counts[-1])]
    delta = np.diff(np.concatenate(([0.0], raw)))
    first = np.concatenate(([0], counts[:-1]))
    out = []
    for ratio in bin_ratios(domain, workload, theta):
        per_group = ratio[first]
        value = np.cumsum(per_group * delta)
        out += [value, np.sqrt(_count_variance(algorithm, domain, workload, theta,
                                               epsilon_measure, ratio, u, per_group))]  # fmt: skip
    return Linear(*out)


def _count_variance(
    algorithm: str,
    domain: Domain,
    workload: Workload,
    theta: float,
    eps: float,
    ratio: np.ndarray,
    u: np.ndarray,
    per_group: np.ndarray,
) -> np.ndarray:
    """Var of Σ_{j ≤ J_i} ratio_j·(estimated u_j·x_j) for each query i."""
    counts = workload.counts
    n = domain.bins
    th = np.array([theta])
    if algorithm == "identity":  # independent Lap(1/ε_m) per count
        return 2.0 / eps**2 * np.cumsum((ratio * u) ** 2)[counts - 1]
    if algorithm == "workload":  # independent Lap(b) per answer: coefficients on the answers
        b = float(workload_sensitivity(workload, domain, th)[0]) / eps
        diffs = per_group[:-1] - per_group[1:]
        before = np.concatenate(([0.0], np.cumsum(diffs**2)))
        return 2.0 * b**2 * (per_group**2 + before)
    weights = np.zeros(n)
    if algorithm == "timm":  # x̂ = A⁺z estimates T·x; Cov = 2b²(AᵀA)⁻¹
        b = float(timm_sensitivity(workload, domain, th)[0]) / eps
        weights[: ratio.size] = ratio
        return 2.0 * b**2 * timm_strategy(workload, domain).inverse.prefix_quadratic(weights, counts)
    if algorithm == "tamm":  # x̂ = A⁺z estimates x; Cov = 2b²(AᵀA)⁻¹
        b = float(tamm_sensitivity(workload, domain, th)[0]) / eps
        weights[: ratio.size] = ratio * u
        inverse = tamm_strategy(workload, domain, theta).inverse
        return 2.0 * b**2 * inverse.prefix_quadratic(weights, counts)
    raise ValueError(f"{algorithm} is not count-based")


# --------------------------------------------------------------------------------------------
# SQM, RawSum, ClampShells
# --------------------------------------------------------------------------------------------
def sqm_bounds(workload: Workload, theta: np.ndarray, epsilon_measure: float, raw: np.ndarray) -> Linear:
    """SQM measures Trunc_θi(q_τi) + Lap(b_i): truncation only lowers a sum, so the truth is
    ≥ the target; it equals it where θ_i ≥ τ_i (nothing ≤ τ_i is truncated). Below τ_i nothing
    SQM measured bounds the mass it truncated: open above."""
    th = np.broadcast_to(np.asarray(theta, float), (workload.size,))
    sd = math.sqrt(2.0) * sqm_scale(workload, th[None, :], epsilon_measure=epsilon_measure)[0]
    exact = th >= workload.thresholds
    return Linear(raw, sd, np.where(exact, raw, np.nan), sd)


def rawsum_bounds(domain: Domain, workload: Workload, epsilon: float, draw: np.ndarray) -> Linear:
    """RawSum's full-prefix estimate Σ_{j ≤ J_i} ŝ_j from its noisy rows (least squares, SPEC
    RAWSUM.md): unbiased for the true prefix sum whatever θ* the scan chose (it ignores θ*, so
    choosing θ* from the same noise does not bias it); sd from the design's covariance."""
    d = rawsum.design(domain, workload)
    s_hat = d.solve(np.asarray(draw, float).reshape(1, -1) / d.scale[None, :])[0]
    est = np.cumsum(s_hat)[workload.counts - 1]
    sd = np.sqrt(np.maximum(d.prefix_variance[workload.counts - 1], 0.0)) / epsilon
    return Linear(est, sd, est, sd)


def clampshells_bounds(
    domain: Domain, workload: Workload, epsilon: float, theta: float, draw: np.ndarray, *,
    capped: bool = False,
) -> Linear:
    """ClampShells' leaves x̂_c (stage 2, before the tail scan) estimate the clamped sums C_c
    of the leaves below J* without bias, given J* (stage 1's draws are separate). With P_c the
    cumulative sum through leaf c and T the top active leaf (it holds the records above θ*,
    clamped to θ*):

    - τ_i < θ* inside leaf c: P_{c−1} ≤ y_i ≤ P_c (y is non-decreasing; = P_c on c's top edge);
    - θ* ≤ τ_i < U: P_{T−1} ≤ y_i ≤ P_{T−1} + (τ_i/θ*)·C_T (a record above θ* counted at θ* is
      worth at most τ_i/θ* times that below τ_i);
    - τ_i = U: y_i ≥ P_T (the clamped total), ≤ P_{T−1} + (U/θ*)·C_T.
    """
    d = cs.design_for(domain, epsilon)
    e = domain.edges
    j_star = int(np.argmin(np.abs(e - float(theta)))) + 1
    active = d.node_shell < d.shells_below(j_star)
    z = np.zeros(d.node_scale.size)
    z[active] = np.asarray(draw, float).ravel()
    nc = int(np.searchsorted(d.cells, j_star, side="left"))
    leaves = np.asarray(d.reconstruct @ z).ravel()[:nc]
    counts = workload.counts
    c, _ = query_cells(d, counts)
    idx = np.arange(nc)[None, :]
    top_edge = d.cells[c + 1] == counts
    below = counts < j_star
    lo = np.where(below[:, None], (idx < c[:, None]) | ((idx == c[:, None]) & top_edge[:, None]), 0)
    hi = np.where(below[:, None], idx <= c[:, None], 0).astype(float)
    theta_star = e[j_star - 1]
    above = ~below
    lo = lo.astype(float)
    lo[above] = (idx < nc - 1) | ((idx == nc - 1) & (counts[above] == domain.bins)[:, None])
    hi[above] = np.where(idx < nc - 1, 1.0, 0.0)
    hi[above, nc - 1] = e[counts[above] - 1] / theta_star
    eps2 = cs.stage2_epsilon(epsilon, 1.0 if capped else None)  # the scale's ε (public cap)
    cov = [V / eps2**2 for V in d.leaf_cov]
    return Linear(lo @ leaves, _sd(lo, d.cell_shell[:nc], cov), hi @ leaves, _sd(hi, d.cell_shell[:nc], cov))


def _sd(coef: np.ndarray, shell_of: np.ndarray, cov: list[np.ndarray]) -> np.ndarray:
    """sd of coef @ x̂ with x̂'s covariance block-diagonal by shell (independent shells)."""
    var = np.zeros(coef.shape[0])
    for k, V in enumerate(cov):
        idx = np.flatnonzero(shell_of == k)
        if idx.size:
            a = coef[:, idx]
            var += np.einsum("ij,jk,ik->i", a, V[: idx.size, : idx.size], a)
    return np.sqrt(np.maximum(var, 0.0))


METHODS = {
    "count": "binning and truncation bounded from the noisy measurement of each group of bins "
    "between thresholds (each record lies between its bin's lower and upper edge; a record "
    "above θ is worth at most its bin's upper edge), plus the noise's one-sided 97.5 % margins",
    "sqm": "SQM's truncated sum is a lower bound of the truth; above θ nothing it measured bounds "
    "the truncated mass, so queries with θ_i < τ_i are open above",
    "rawsum": "RawSum's unbiased full-prefix estimate (all measured bins, whatever θ* dropped) "
    "± the noise's 97.5 % margins",
    "clampshells": "ClampShells' interpolation bounded by the measured sums at the edges of each "
    "shell, and the records clamped to θ* bounded by τ/θ* times the top shell's sum, "
    "plus the noise's 97.5 % margins",
}


def release_intervals(
    algorithm: str,
    domain: Domain,
    workload: Workload,
    *,
    theta: float | list[float] | None,
    epsilon: float,
    epsilon_measure: float,
    raw: np.ndarray,
    published: np.ndarray,
    draw: np.ndarray,
) -> Intervals:
    """The interval of every query of one release.

    Parameters
    ----------
    algorithm
        The algorithm's name.
    domain, workload
        Public.
    theta
        The released θ (``None``: no truncation; a list: SQM's θ_i; ClampShells' θ*).
    epsilon, epsilon_measure
        The release's total ε and its measurement share.
    raw
        The noisy answers before isotonic regression (unrounded).
    published
        The published answers (the interval is widened to hold them).
    draw
        The noisy values of the measurement's draw (RawSum's rows, ClampShells' stage 2).

    Privacy
    -------
    Post-processing of the noisy measurement and public inputs (see the module docstring).
    """
    raw = np.asarray(raw, float)
    if algorithm in COUNT_BASED:
        th = math.inf if theta is None else float(theta)  # type: ignore[arg-type]
        bounds = count_based(algorithm, domain, workload, th, epsilon_measure, raw)
        method = METHODS["count"]
    elif algorithm == "sqm":
        th_q = np.full(workload.size, np.inf) if theta is None else np.asarray(theta, float)
        bounds, method = sqm_bounds(workload, th_q, epsilon_measure, raw), METHODS["sqm"]
    elif algorithm == "rawsum":
        bounds, method = rawsum_bounds(domain, workload, epsilon, draw), METHODS["rawsum"]
    elif algorithm == "clampshells":
        if theta is None or isinstance(theta, list):
            raise ValueError(f"ClampShells' interval needs its one released θ*, got {theta!r}")
        capped = epsilon_measure >= epsilon  # a public cap: no stage 1, all of ε on stage 2
        bounds = clampshells_bounds(domain, workload, epsilon, float(theta), draw, capped=capped)
        method = METHODS["clampshells"]
    else:
        raise ValueError(f"no interval rule for {algorithm!r}")
    return finish(bounds, np.asarray(published, float), method)
