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
    """E(ŷ_i − y_i)² per query, averaged over the given θ values (one per trial).

    Parameters
    ----------
    theta
        θ per trial, shape (trials,), or (trials, m) for SQM.
    epsilon_measure
        ε_m, the measurement budget (not ε: SPEC §8).

    Returns
    -------
    numpy.ndarray
        Mean squared error per query (m,).
    """
    theta = np.asarray(theta, float)
    y = true_answers
    if algorithm == "sqm":
        bias = data.truncated_sum(workload.thresholds[None, :], theta) - y[None, :]
        b = sqm_scale(workload, theta, epsilon_measure=epsilon_measure)
        return np.mean(bias**2 + 2 * b**2, axis=0)

    uniq, weight = np.unique(theta, return_counts=True)
    T = truncated_weights(domain, uniq)
    bias = workload.prefix(T * x[None, :]) - y[None, :]
    b = noise_scale(algorithm, workload, domain, uniq, epsilon=epsilon_measure)
    if algorithm == "identity":
        var = 2.0 / epsilon_measure**2 * workload.prefix(T**2)
    elif algorithm == "workload":
        var = np.broadcast_to(2 * b[:, None] ** 2, bias.shape)
    elif algorithm == "timm":
        inverse = timm_strategy(workload, domain).inverse
        diag = inverse.prefix_quadratic(np.ones(domain.bins), workload.counts)
        var = 2 * b[:, None] ** 2 * diag[None, :]
    elif algorithm == "tamm":
        var = np.empty_like(bias)
        for row, t in enumerate(uniq):
            inverse = tamm_strategy(workload, domain, float(t)).inverse
            var[row] = 2 * b[row] ** 2 * inverse.prefix_quadratic(T[row], workload.counts)
    else:
        raise ValueError(f"unknown algorithm {algorithm!r}")
    return np.average(bias**2 + var, axis=0, weights=weight)
