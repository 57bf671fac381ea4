"""Analytic expected squared error per query (SPEC §6): bias² + variance, no sampling.

One function per algorithm gives (bias², variance) of every query at each θ; the registry
(:mod:`dpsum_core.algorithms`) looks them up by name. For a private θ the error is averaged
over the θ values the trials drew. The θ analytics of the dashboard (error of every query as θ
varies) live here too.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import erf

from .mechanisms import (
    Inputs,
    sqm_scale,
    tamm_sensitivity,
    tamm_strategy,
    timm_sensitivity,
    timm_strategy,
    truncated_weights,
    workload_sensitivity,
)

Components = tuple[np.ndarray, np.ndarray]


def binned_bias(inputs: Inputs, theta: np.ndarray) -> np.ndarray:
    """W·T_θ·x − y per θ and query: the bias of every count-based algorithm (k × m)."""
    T = truncated_weights(inputs.domain, theta)
    return inputs.workload.prefix(T * inputs.x[None, :]) - inputs.true_answers[None, :]


def identity_error(inputs: Inputs, theta: np.ndarray, epsilon: float) -> Components:
    """Identity: var_i = (2/ε_m²)·Σ_{j ≤ J_i} min(v_j, θ)²."""
    T = truncated_weights(inputs.domain, theta)
    return binned_bias(inputs, theta) ** 2, 2.0 / epsilon**2 * inputs.workload.prefix(T**2)


def workload_error(inputs: Inputs, theta: np.ndarray, epsilon: float) -> Components:
    """Workload: var_i = 2‖W·T_θ‖₁²/ε_m² for every query."""
    bias = binned_bias(inputs, theta)
    b = workload_sensitivity(inputs.workload, inputs.domain, theta) / epsilon
    return bias**2, np.broadcast_to(2 * b[:, None] ** 2, bias.shape).copy()


def timm_error(inputs: Inputs, theta: np.ndarray, epsilon: float) -> Components:
    """TiMM: var_i = 2‖A·T_θ‖₁²/ε_m²·[W (AᵀA)⁻¹ Wᵀ]_ii."""
    w, domain = inputs.workload, inputs.domain
    bias = binned_bias(inputs, theta)
    b = timm_sensitivity(w, domain, theta) / epsilon
    diag = timm_strategy(w, domain).inverse.prefix_quadratic(np.ones(domain.bins), w.counts)
    return bias**2, 2 * b[:, None] ** 2 * diag[None, :]


def tamm_error(inputs: Inputs, theta: np.ndarray, epsilon: float) -> Components:
    """TaMM: var_i = 2‖A‖₁²/ε_m²·[W T_θ (AᵀA)⁻¹ T_θ Wᵀ]_ii, A = GreedyH(W·T_θ) per θ."""
    w, domain = inputs.workload, inputs.domain
    bias = binned_bias(inputs, theta)
    T = truncated_weights(domain, theta)
    b = tamm_sensitivity(w, domain, theta) / epsilon
    var = np.empty_like(bias)
    for row, t in enumerate(np.asarray(theta, float)):
        inverse = tamm_strategy(w, domain, float(t)).inverse
        var[row] = 2 * b[row] ** 2 * inverse.prefix_quadratic(T[row], w.counts)
    return bias**2, var


def sqm_error(inputs: Inputs, theta: np.ndarray, epsilon: float) -> Components:
    """SQM: bias_i = Trunc_θi(q_τi)(D) − y_i, var_i = 2b_i².

    ``theta`` has shape (k,) (each θ used for every query) or (k, m) (per-query θ_i).
    """
    w = inputs.workload
    theta = np.asarray(theta, float)
    th = theta if theta.ndim == 2 else np.broadcast_to(theta[:, None], (theta.size, w.size))
    bias = inputs.data.truncated_sum(w.thresholds[None, :], th) - inputs.true_answers[None, :]
    b = sqm_scale(w, th, epsilon_measure=epsilon)
    return bias**2, 2 * b**2


def expected_abs_error(bias2: np.ndarray, variance: np.ndarray) -> np.ndarray:
    """E|ŷ − y| from the squared bias and the variance, with the noise taken as normal.

    E|b + σZ| = σ·√(2/π)·exp(−b²/2σ²) + |b|·erf(|b|/(σ√2)) (folded normal); |b| where σ = 0.
    The noise of Identity, TiMM and TaMM is a sum of many Laplace draws, close to normal; for a
    single Laplace draw (SQM, Workload) the normal overstates E|noise| by 13 % when b = 0
    (σ·√(2/π) against σ/√2), and by less as |b| grows.
    """
    b = np.sqrt(bias2)
    sd = np.sqrt(variance)
    with np.errstate(divide="ignore", invalid="ignore"):
        folded = sd * np.sqrt(2 / np.pi) * np.exp(-0.5 * (b / sd) ** 2) + b * erf(
            b / (sd * np.sqrt(2))
        )
    return np.where(sd > 0, folded, b)


def bias_parts(inputs: Inputs, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The bias of the histogram algorithms split in two, per θ and query (shapes (k, m)).

    - **truncation bias** Trunc_θ(q_τ)(D) − q_τ(D) = −Σ_{t ≤ τ} (t − θ)⁺ ≤ 0: values above θ
      count as θ. It is SQM's whole bias, and 0 once θ ≥ the largest value ≤ τ.
    - **binning bias** (W T_θ x)_τ − Trunc_θ(q_τ)(D): each record counts as its bin's weight
      v_j (the upper edge in the paper) rather than its value. Identity, Workload, TiMM and
      TaMM share it; with upper-edge weights it is ≥ 0 and does not vanish for θ ≥ τ.

    Their sum is :func:`binned_bias`, the bias of the histogram algorithms; with
    opposite signs they can cancel, which is a coincidence of the data, not a good θ.

    Privacy
    -------
    Computed from the private data and its histogram, with no noise: for the data holder's
    analysis only (the teaching page), never a release.
    """
    theta = np.asarray(theta, float)
    w = inputs.workload
    truncated = inputs.data.truncated_sum(w.thresholds[None, :], theta[:, None])
    binned = w.prefix(truncated_weights(inputs.domain, theta) * inputs.x[None, :])
    return truncated - inputs.true_answers[None, :], binned - truncated


def average_over_theta(components, inputs: Inputs, theta: np.ndarray, epsilon: float) -> np.ndarray:
    """E(ŷ_i − y_i)² per query, averaged over the θ values the trials drew.

    ``theta`` has shape (trials,) — distinct values are evaluated once and weighted by how often
    they occurred — or (trials, m) for per-query thresholds (evaluated row by row).
    """
    theta = np.asarray(theta, float)
    if theta.ndim == 2:
        bias2, var = components(inputs, theta, epsilon)
        return np.mean(bias2 + var, axis=0)
    uniq, weight = np.unique(theta, return_counts=True)
    bias2, var = components(inputs, uniq, epsilon)
    return np.average(bias2 + var, axis=0, weights=weight)


def components_frame(
    parts: dict[str, Components], thetas: np.ndarray, query: int
) -> pd.DataFrame:
    """One query's slice of θ error components: algorithm, theta, bias2, variance, total
    (one row per algorithm and θ)."""
    thetas = np.asarray(thetas, float)
    return pd.concat(
        [
            pd.DataFrame(
                {
                    "algorithm": alg,
                    "theta": thetas,
                    "bias2": b2[:, query],
                    "variance": var[:, query],
                    "total": b2[:, query] + var[:, query],
                }
            )
            for alg, (b2, var) in parts.items()
        ],
        ignore_index=True,
    )
