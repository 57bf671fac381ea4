"""ClampShells' stage 1 (locate the clamp point θ*) and what follows from its noisy shell sums
alone: the raise on growing sums, the exact law of J*, and the GLS update of stage 2's leaves
with stage 1's sums (the mechanism is :mod:`dpsum_core.mechanisms.clampshells`; the privacy
argument is in its docstring)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from dpsum_core.mechanisms.clampshells_design import LOCATE_SHARE

if TYPE_CHECKING:
    from dpsum_core.mechanisms.clampshells_design import ClampShellsDesign, EdgeStatistics
    from dpsum_core.noise import Noise

LOCATE_Z = 1.5  # z₁: a shell is significant when Z_k > z₁·√2·g_k/(pε) (√2·b = its noise sd)
HEAVY_RATIO = 1.3  # clamp one shell higher when Z_k̂/Z_{k̂−1} and Z_{k̂−1}/Z_{k̂−2} exceed it


def locate(
    stats: EdgeStatistics, d: ClampShellsDesign, trials: int, *, epsilon: float, rng: Noise
) -> tuple[np.ndarray, float]:
    """Stage 1: J* per trial (trials,) and the ε spent (pε) (:func:`locate_measured` without
    the noisy shell sums)."""
    j_star, _, spent = locate_measured(stats, d, trials, epsilon=epsilon, rng=rng)
    return j_star, spent


def locate_measured(
    stats: EdgeStatistics, d: ClampShellsDesign, trials: int, *, epsilon: float, rng: Noise
) -> tuple[np.ndarray, np.ndarray, float]:
    """Stage 1: J* per trial (trials,), the noisy shell sums (trials × K) and the ε spent (pε).

    Privacy
    -------
    pε: one Lap(g_k/(pε)) per shell on the raw shell sums; a record moves one shell by t ≤ g_k.
    """
    exact = stats.interval_sums(d.shells)
    scale = stage1_scale(d, epsilon)
    z = rng.add_laplace(np.broadcast_to(exact, (trials, exact.size)), scale[None, :])
    significant = z > LOCATE_Z * math.sqrt(2.0) * scale[None, :]
    K = exact.size
    k_hat = K - 1 - np.argmax(significant[:, ::-1], axis=1)
    k_hat = k_hat + heavy_tail(z, k_hat)
    j_star = np.where(
        significant.any(axis=1), np.maximum(d.shells[k_hat + 1], d.min_clamp_bin), d.domain.bins
    )
    return j_star.astype(np.int64), z, float(np.max(d.shell_top / scale))


def stage1_scale(d: ClampShellsDesign, epsilon: float) -> np.ndarray:
    """Stage 1's Laplace scale per shell, g_k/(pε) at total budget ``epsilon`` (public)."""
    return d.shell_top / (LOCATE_SHARE * epsilon)


def public_clamp_bin(d: ClampShellsDesign, cap: float) -> int:
    """J* of a public cap (a top code the user states as public knowledge, never read from the
    data): the lowest clamp point stage 1 could output whose θ* = e_{J*} is at or above the
    cap's bin, so no value ≤ cap is clamped. Public: the design and the cap only."""
    return int(clamp_bins_at(d, np.array([cap], float))[0])


def clamp_bins_at(d: ClampShellsDesign, values: np.ndarray) -> np.ndarray:
    """For each value, the lowest clamp point stage 1 could output (a shell edge ≥ jmin, or n)
    whose θ* = e_{J*} is at or above the value's bin (∞ → n). Public: the design only."""
    j = np.searchsorted(d.domain.edges, np.asarray(values, float), side="left") + 1
    options = d.clamp_bins()  # e_{j−1} < value ≤ e_j; then the first option ≥ j
    return options[np.minimum(np.searchsorted(options, j, side="left"), options.size - 1)]


def combine_stage1(d: ClampShellsDesign, leaves: np.ndarray, z1: np.ndarray, j_star: np.ndarray) -> np.ndarray:
    """The leaves (trials × C) after the GLS update with stage 1's noisy shell sums z1
    (:attr:`ClampShellsDesign.stage1_gls`), in the parts below each trial's top active part.
    Post-processing: both measurements are already released."""
    gain, _ = d.stage1_gls
    P = d.parts.size - 1
    part_sums = np.zeros((leaves.shape[0], P))
    np.add.at(part_sums.T, d.cell_shell, leaves.T)
    K1 = z1.shape[1]
    resid = z1[:, np.minimum(d.cell_shell, K1 - 1)] - part_sums[:, d.cell_shell]
    below_top = d.cell_shell[None, :] < (d.shells_below(j_star) - 1)[:, None]
    return leaves + np.where(below_top, gain[None, :] * resid, 0.0)


def heavy_tail(z: np.ndarray, k_hat: np.ndarray) -> np.ndarray:
    """1 where stage 1 clamps one shell higher, else 0 (trials,): the noisy shell sums still
    grow at the top significant shell, Z_k̂ > R·Z_{k̂−1} and Z_{k̂−1} > R·max(Z_{k̂−2}, 0) with
    Z_{k̂−1} > 0 and R = HEAVY_RATIO, and a shell lies above k̂.

    Mass that still grows where the detection stops is a tail heavier than the detection can
    see (a Pareto tail of index α has ratio 2^{1−α} per shell; a light tail's ratios fall fast
    below 1): the mass above k̂ is then worth clamping at the next shell's top. Two successive
    ratios, not one, so that a point mass (a top code) in shell k̂ alone does not raise θ*.
    Post-processing of stage 1's noisy output: J* stays one of the shell edges ≥ jmin or n.
    """
    K = z.shape[1]
    rows = np.arange(z.shape[0])
    top, below, below2 = (z[rows, np.maximum(k_hat - i, 0)] for i in (0, 1, 2))
    heavy = (k_hat >= 2) & (k_hat < K - 1) & (below > 0) & (top > HEAVY_RATIO * below)
    heavy &= below > HEAVY_RATIO * np.maximum(below2, 0.0)
    return heavy.astype(np.int64)


def _laplace_sf(x: np.ndarray) -> np.ndarray:
    """P(Lap(0, 1) > x)."""
    return np.where(x >= 0, 0.5 * np.exp(-np.abs(x)), 1.0 - 0.5 * np.exp(-np.abs(x)))


def _raise_prob(s: np.ndarray, b: np.ndarray, k: int, grid: int = 20_001) -> float:
    """P[Z_k > z₁√2·b_k, Z_k > R·Z_{k−1}, Z_{k−1} > R·max(Z_{k−2}, 0), Z_{k−1} > 0] with
    R = HEAVY_RATIO and independent Z_i = s_i + Lap(b_i) (0 where :func:`heavy_tail` cannot
    fire): one integral over u = Z_{k−1} > 0 of its density × P[Z_k > max(t, R·u)] ×
    P[Z_{k−2} < u/R], by the trapezoid rule on a fine grid."""
    if k < 2 or k >= s.size - 1 or not math.isfinite(HEAVY_RATIO):
        return 0.0
    R, t = HEAVY_RATIO, LOCATE_Z * math.sqrt(2.0) * b[k]
    u = np.linspace(0.0, max(s[k - 1], 0.0) + 60.0 * b[k - 1], grid)[1:]
    density = 0.5 / b[k - 1] * np.exp(-np.abs(u - s[k - 1]) / b[k - 1])
    above = _laplace_sf((np.maximum(t, R * u) - s[k]) / b[k])
    below = 1.0 - _laplace_sf((u / R - s[k - 2]) / b[k - 2])
    f = density * above * below
    return float(np.sum((f[1:] + f[:-1]) / 2.0 * np.diff(u)) + f[0] * u[0] / 2.0)


def _laplace_log_cdf(x: np.ndarray) -> np.ndarray:
    """log P(Lap(0, 1) ≤ x), computed directly: 1 − P(Lap > x) would cancel where the tail is
    near 1 (a shell far above its threshold), losing the small complement's digits."""
    return np.where(
        x < 0, np.log(0.5) + np.minimum(x, 0.0), np.log1p(-0.5 * np.exp(-np.maximum(x, 0.0)))
    )


def clamp_law(stats: EdgeStatistics, d: ClampShellsDesign, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """The exact law of J*: (support (ascending J* values), probabilities).

    The shells' noises are independent, so P[k̂ = k] = P[Z_k significant]·Π_{k′>k} P[Z_k′ not
    significant], with P[S_k + Lap(b_k) > z₁√2·b_k] a Laplace tail; no significant shell gives
    J* = n.
    """
    s = stats.interval_sums(d.shells)
    b = stage1_scale(d, epsilon)
    x = LOCATE_Z * math.sqrt(2.0) - s / b
    p, log_q = _laplace_sf(x), _laplace_log_cdf(x)  # significant, and not (in logs)
    none_above = np.exp(np.concatenate((np.cumsum(log_q[::-1])[::-1][1:], [0.0])))
    # P[k̂ = k and raised] = P[nothing above k significant]·P[Z_k significant, the two ratios]
    # (skipped where P[k̂ = k] itself is below 1e-15: the integral could only be smaller)
    p_k = p * none_above
    raised = np.array([_raise_prob(s, b, k) if p_k[k] > 1e-15 else 0.0 for k in range(s.size)])
    raised *= none_above
    p_k = p_k - raised
    j = np.maximum(d.shells[1:], d.min_clamp_bin)
    j_up = np.maximum(d.shells[np.minimum(np.arange(2, s.size + 2), s.size)], d.min_clamp_bin)
    support = d.clamp_bins()
    probs = np.array([p_k[j == v].sum() + raised[j_up == v].sum() for v in support])
    probs[-1] += float(np.exp(log_q.sum()))  # nothing significant: J* = n
    return support, probs
