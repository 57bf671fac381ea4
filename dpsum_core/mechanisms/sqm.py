"""SQM (SPEC §3): each truncated prefix sum measured alone with its own θ_i, and its analytic
error.
"""


from __future__ import annotations

import math

import numpy as np

from dpsum_core.mechanisms.algorithm import PER_QUERY, Algorithm
from dpsum_core.mechanisms.bounds import IntervalInputs, IntervalRule, Linear
from dpsum_core.mechanisms.cost import QUERY_THETA_SECONDS, Seconds, Work, vectorised
from dpsum_core.mechanisms.error import Components
from dpsum_core.mechanisms.measurement import Inputs, Measurement
from dpsum_core.mechanisms.workloads import Workload
from dpsum_core.noise import Noise, as_noise


# --------------------------------------------------------------------------------------------
# SQM: each query alone, with its own θ_i
# --------------------------------------------------------------------------------------------
def sqm_scale(workload: Workload, theta: np.ndarray, *, epsilon_measure: float) -> np.ndarray:
    """b_i = min(θ_i, τ_i)·m/ε_measure, the Laplace scale of each query (trials × m)."""
    return np.minimum(theta, workload.thresholds[None, :]) * workload.size / epsilon_measure


def sqm(
    inputs: Inputs, theta: np.ndarray, *, epsilon: float, rng: np.random.Generator | Noise
) -> Measurement:
    """SQM: Trunc_θi(q_τi)(D) + Lap(min(θ_i, τ_i)·m/ε_m) on the raw values.

    Parameters
    ----------
    theta
        θ_i per trial and query, shape (trials, m); ``inf`` is the paper's NoTrunc.
    epsilon
        Total measurement budget ε_m; each of the m queries gets ε_m/m.

    Privacy
    -------
    The truncated prefix sum Σ_{t≤τ} min(t, θ) changes by at most min(θ, τ) when one record
    is added or removed; the m queries compose sequentially: Σ_i min(θ_i, τ_i)/b_i = ε_m.
    """
    w = inputs.workload
    theta = np.asarray(theta, float)
    exact = inputs.data.truncated_sum(w.thresholds[None, :], theta)
    scale = sqm_scale(w, theta, epsilon_measure=epsilon)
    answers = as_noise(rng).add_laplace(exact, scale)
    sens = np.minimum(theta, w.thresholds[None, :])
    return Measurement(answers, float(np.max((sens / scale).sum(axis=1))))


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


def sqm_bounds(inputs: IntervalInputs) -> Linear:
    """SQM measures Trunc_θi(q_τi) + Lap(b_i): truncation only lowers a sum, so the truth is
    ≥ the target; it equals it where θ_i ≥ τ_i (nothing ≤ τ_i is truncated). Below τ_i nothing
    SQM measured bounds the mass it truncated: open above."""
    workload, raw = inputs.workload, np.asarray(inputs.raw, float)
    theta = np.full(workload.size, np.inf) if inputs.theta is None else inputs.theta
    th = np.broadcast_to(np.asarray(theta, float), (workload.size,))
    scale = sqm_scale(workload, th[None, :], epsilon_measure=inputs.epsilon_measure)[0]
    sd = math.sqrt(2.0) * scale
    exact = th >= workload.thresholds
    return Linear(raw, sd, np.where(exact, raw, np.nan), sd)


SQM_INTERVAL = IntervalRule(
    sqm_bounds,
    "SQM's truncated sum is a lower bound of the truth; above θ nothing it measured bounds "
    "the truncated mass, so queries with θ_i < τ_i are open above",
    open_above="SQM's truncated sum is only a lower bound of the truth: where θ_i is below "
    "the threshold τ_i, nothing it measured bounds how much lies above θ_i, so that query's "
    "interval has a lower end only",
)


# The registry's records of this family (dpsum_core.mechanisms.registry collects them).
def sqm_cost(work: Work) -> Seconds:
    """A vectorised pass plus a θ per (trial, query)."""
    return Seconds(vectorised(work).run + QUERY_THETA_SECONDS * work.trials * work.queries)


RECORDS = (
    Algorithm(
        name="sqm",
        label="SQM",
        color="#E69F00",
        dash="solid",
        symbol="circle",
        measures="each truncated prefix sum alone, on the raw values",
        theta_rule=PER_QUERY,
        binned=False,
        measure=sqm,
        error=sqm_error,
        stream_id=1,
        cost=sqm_cost,
        interval=SQM_INTERVAL,
    ),
)
