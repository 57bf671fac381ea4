"""Analytic expected squared error per query (SPEC §6): bias² + variance, no sampling.

For a private θ the error is averaged over the θ values the trials actually drew.
"""

from __future__ import annotations

import numpy as np

from .data import Dataset, Domain
from .mechanisms import (
    noise_scale,
    sqm_scale,
    tamm_strategy,
    timm_strategy,
    truncated_weights,
)
from .workloads import Workload


def error_components(
    algorithm: str,
    *,
    data: Dataset,
    x: np.ndarray,
    workload: Workload,
    domain: Domain,
    theta: np.ndarray,
    epsilon_measure: float,
    true_answers: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Squared bias and variance of every query at each θ (no averaging).

    Parameters
    ----------
    algorithm
        ``sqm``, ``identity``, ``workload``, ``timm`` or ``tamm``.
    x
        Histogram of ``data`` on ``domain``.
    theta
        θ values, shape (k,); for SQM each θ is used for every query, or pass shape (k, m).
    epsilon_measure
        ε_m, the measurement budget (not ε: SPEC §8). For SQM the total over the m queries.
    true_answers
        y_i on the raw values.

    Returns
    -------
    bias2, var
        Arrays of shape (k, m).
    """
    theta = np.asarray(theta, float)
    y = true_answers
    if algorithm == "sqm":
        th = (
            theta
            if theta.ndim == 2
            else np.broadcast_to(theta[:, None], (theta.size, workload.size))
        )
        bias = data.truncated_sum(workload.thresholds[None, :], th) - y[None, :]
        b = sqm_scale(workload, th, epsilon_measure=epsilon_measure)
        return bias**2, 2 * b**2
    T = truncated_weights(domain, theta)
    bias = workload.prefix(T * x[None, :]) - y[None, :]
    b = noise_scale(algorithm, workload, domain, theta, epsilon=epsilon_measure)
    if algorithm == "identity":
        var = 2.0 / epsilon_measure**2 * workload.prefix(T**2)
    elif algorithm == "workload":
        var = np.broadcast_to(2 * b[:, None] ** 2, bias.shape).copy()
    elif algorithm == "timm":
        inverse = timm_strategy(workload, domain).inverse
        diag = inverse.prefix_quadratic(np.ones(domain.bins), workload.counts)
        var = 2 * b[:, None] ** 2 * diag[None, :]
    elif algorithm == "tamm":
        var = np.empty_like(bias)
        for row, t in enumerate(theta):
            inverse = tamm_strategy(workload, domain, float(t)).inverse
            var[row] = 2 * b[row] ** 2 * inverse.prefix_quadratic(T[row], workload.counts)
    else:
        raise ValueError(f"unknown algorithm {algorithm!r}")
    return bias**2, var


def bias_parts(
    *,
    data: Dataset,
    x: np.ndarray,
    workload: Workload,
    domain: Domain,
    theta: np.ndarray,
    true_answers: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The bias of the histogram algorithms split in two, per θ and query (shapes (k, m)).

    - **truncation bias** Trunc_θ(q_τ)(D) − q_τ(D) = −Σ_{t ≤ τ} (t − θ)⁺ ≤ 0: values above θ
      count as θ. It is SQM's whole bias, and 0 once θ ≥ the largest value ≤ τ.
    - **binning bias** (W T_θ x)_τ − Trunc_θ(q_τ)(D): each record counts as its bin's weight
      v_j (the upper edge in the paper) rather than its value. Identity, Workload, TiMM and
      TaMM share it; with upper-edge weights it is ≥ 0 and does not vanish for θ ≥ τ.

    Their sum is the bias of :func:`error_components` for the histogram algorithms; with
    opposite signs they can cancel, which is a coincidence of the data, not a good θ.

    Privacy
    -------
    Computed from the private data and its histogram, with no noise: for the data holder's
    analysis only (the teaching page), never a release.
    """
    theta = np.asarray(theta, float)
    y = np.asarray(true_answers, float)
    truncated = data.truncated_sum(workload.thresholds[None, :], theta[:, None])
    binned = workload.prefix(truncated_weights(domain, theta) * x[None, :])
    return truncated - y[None, :], binned - truncated


def expected_squared_error(
    algorithm: str,
    *,
    data: Dataset,
    x: np.ndarray,
    workload: Workload,
    domain: Domain,
    theta: np.ndarray,
    epsilon_measure: float,
    true_answers: np.ndarray,
) -> np.ndarray:
    """E(ŷ_i − y_i)² per query, averaged over the θ values the trials drew.

    ``theta`` has shape (trials,), or (trials, m) for SQM's per-query thresholds. Distinct θ
    values are evaluated once and weighted by how often they occurred.
    """
    theta = np.asarray(theta, float)
    kw = dict(
        data=data,
        x=x,
        workload=workload,
        domain=domain,
        epsilon_measure=epsilon_measure,
        true_answers=true_answers,
    )
    if algorithm == "sqm":
        bias2, var = error_components("sqm", theta=theta, **kw)
        return np.mean(bias2 + var, axis=0)
    uniq, weight = np.unique(theta, return_counts=True)
    bias2, var = error_components(algorithm, theta=uniq, **kw)
    return np.average(bias2 + var, axis=0, weights=weight)
