"""Analytic expected error shared by every algorithm (SPEC §6): bias² + variance, no sampling.

Each family module gives (bias², variance) of every query at each θ; for a private θ the
error is averaged over the θ values the trials drew.
"""


from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from dpsum_core.mechanisms.measurement import Inputs, truncated_weights

if TYPE_CHECKING:
    import pandas as pd

Components = tuple[np.ndarray, np.ndarray]


def binned_bias(inputs: Inputs, theta: np.ndarray) -> np.ndarray:
    """W·T_θ·x − y per θ and query: the bias of every count-based algorithm (k × m)."""
    T = truncated_weights(inputs.domain, theta)
    return inputs.workload.prefix(T * inputs.x[None, :]) - inputs.true_answers[None, :]


def expected_abs_error(bias2: np.ndarray, variance: np.ndarray) -> np.ndarray:
    """E|ŷ − y| from the squared bias and the variance, with the noise taken as normal.

    E|b + σZ| = σ·√(2/π)·exp(−b²/2σ²) + |b|·erf(|b|/(σ√2)) (folded normal); |b| where σ = 0.
    The noise of Identity, TiMM and TaMM is a sum of many Laplace draws, close to normal; for a
    single Laplace draw (SQM, Workload) the normal overstates E|noise| by 13 % when b = 0
    (σ·√(2/π) against σ/√2), and by less as |b| grows.
    """
    from scipy.special import erf  # here, not at import: `dpsum --help` starts without it

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
    import pandas as pd  # here, not at import: `dpsum --help` starts without it

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
