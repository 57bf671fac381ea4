"""Identity and Workload (SPEC §3): Laplace noise on the histogram of counts, or on the truncated
workload answers; their sensitivities and analytic error.
"""


from __future__ import annotations

import numpy as np

from dpsum_core.data.domain import Domain
from dpsum_core.mechanisms.algorithm import SHARED, Algorithm
from dpsum_core.mechanisms.bounds import COUNT_METHOD, IntervalInputs, IntervalRule, count_bounds
from dpsum_core.mechanisms.error import Components, binned_bias
from dpsum_core.mechanisms.measurement import (
    Inputs,
    Measurement,
    _spent,
    column_cover,
    truncated_weights,
)
from dpsum_core.mechanisms.workloads import Workload
from dpsum_core.noise import Noise, as_noise


# --------------------------------------------------------------------------------------------
# Sensitivities (public given θ) under add/remove-one: a record changes one count by 1, so the
# L1 sensitivity of x ↦ Mx is ‖M‖₁, the largest column L1 norm.
# --------------------------------------------------------------------------------------------
def identity_sensitivity(workload: Workload, domain: Domain, theta: np.ndarray) -> np.ndarray:
    """‖I‖₁ = 1 per trial, whatever θ is."""
    return np.ones(np.shape(theta))


def workload_sensitivity(workload: Workload, domain: Domain, theta: np.ndarray) -> np.ndarray:
    """‖W·T_θ‖₁ = max_j min(v_j, θ)·#{i : k_i ≥ j} per trial."""
    T = truncated_weights(domain, theta)
    return (T * column_cover(workload, domain.bins)[None, :]).max(axis=1)


# --------------------------------------------------------------------------------------------
# Batch algorithms: one θ per trial, shared
# --------------------------------------------------------------------------------------------
def identity(
    inputs: Inputs, theta: np.ndarray, *, epsilon: float, rng: np.random.Generator | Noise
) -> Measurement:
    """Identity: noisy counts x + Lap(1/ε_m)ⁿ, answered as W·T_θ·x̃ (shape trials × m).

    Privacy
    -------
    Sensitivity of the histogram is 1 (add/remove one record), independent of θ.
    """
    w, domain = inputs.workload, inputs.domain
    T = truncated_weights(domain, theta)
    scale = identity_sensitivity(w, domain, theta) / epsilon
    noisy = as_noise(rng).add_laplace(np.broadcast_to(inputs.x, T.shape), scale[:, None])
    spent = _spent(identity_sensitivity(w, domain, theta), scale)
    return Measurement(w.prefix(T * noisy), spent)


def workload_mechanism(
    inputs: Inputs, theta: np.ndarray, *, epsilon: float, rng: np.random.Generator | Noise
) -> Measurement:
    """Workload: W·T_θ·x + Lap(‖W·T_θ‖₁/ε_m)^m.

    Privacy
    -------
    ‖W·T_θ‖₁ = max_j min(v_j, θ)·#{i : k_i ≥ j} is the exact sensitivity for add/remove-one.
    """
    w, domain = inputs.workload, inputs.domain
    T = truncated_weights(domain, theta)
    sens = workload_sensitivity(w, domain, theta)
    scale = sens / epsilon
    answers = as_noise(rng).add_laplace(w.prefix(T * inputs.x[None, :]), scale[:, None])
    return Measurement(answers, _spent(sens, scale))


def identity_error(inputs: Inputs, theta: np.ndarray, epsilon: float) -> Components:
    """Identity: var_i = (2/ε_m²)·Σ_{j ≤ J_i} min(v_j, θ)²."""
    T = truncated_weights(inputs.domain, theta)
    return binned_bias(inputs, theta) ** 2, 2.0 / epsilon**2 * inputs.workload.prefix(T**2)


def workload_error(inputs: Inputs, theta: np.ndarray, epsilon: float) -> Components:
    """Workload: var_i = 2‖W·T_θ‖₁²/ε_m² for every query."""
    bias = binned_bias(inputs, theta)
    b = workload_sensitivity(inputs.workload, inputs.domain, theta) / epsilon
    return bias**2, np.broadcast_to(2 * b[:, None] ** 2, bias.shape).copy()


def identity_variance(inputs: IntervalInputs, theta: float, ratio, u, per_group) -> np.ndarray:
    """Identity's interval noise: independent Lap(1/ε_m) per count (:func:`count_bounds`)."""
    counts = inputs.workload.counts
    return 2.0 / inputs.epsilon_measure**2 * np.cumsum((ratio * u) ** 2)[counts - 1]


def workload_variance(inputs: IntervalInputs, theta: float, ratio, u, per_group) -> np.ndarray:
    """Workload's interval noise: independent Lap(b) per answer, coefficients on the answers."""
    th = np.array([theta])
    b = float(workload_sensitivity(inputs.workload, inputs.domain, th)[0]) / inputs.epsilon_measure
    diffs = per_group[:-1] - per_group[1:]
    before = np.concatenate(([0.0], np.cumsum(diffs**2)))
    return 2.0 * b**2 * (per_group**2 + before)


IDENTITY_INTERVAL = IntervalRule(lambda i: count_bounds(i, identity_variance), COUNT_METHOD)
WORKLOAD_INTERVAL = IntervalRule(lambda i: count_bounds(i, workload_variance), COUNT_METHOD)

# The registry's records of this family (dpsum_core.mechanisms.registry collects them).
RECORDS = (
    Algorithm(
        name="identity",
        label="Identity",
        color="#56B4E9",
        dash="longdash",
        symbol="square",
        measures="the histogram of counts x",
        theta_rule=SHARED,
        measure=identity,
        error=identity_error,
        stream_id=2,
        interval=IDENTITY_INTERVAL,
    ),
    Algorithm(
        name="workload",
        label="Workload",
        color="#009E73",
        dash="dashdot",
        symbol="diamond",
        measures="the truncated workload answers W·T_θ·x",
        theta_rule=SHARED,
        measure=workload_mechanism,
        error=workload_error,
        stream_id=3,
        interval=WORKLOAD_INTERVAL,
    ),
)
