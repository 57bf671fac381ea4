"""The paper's five algorithms (SPEC §3), each vectorised over trials.

select → measure → reconstruct: strategies are chosen from public inputs (workload, domain, θ);
only the "measure" step touches the private histogram or values, and it adds Laplace noise for
all trials at once through a :class:`~dpsum_core.noise.Noise` source. No Python loop runs over
trials; TaMM loops over *distinct* θ values only, because its strategy depends on θ.

Every mechanism returns a :class:`Measurement`: the answers and the ε its noise actually bought
(sensitivity / scale of what was drawn), from which the budget ledger is built.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .data import Dataset, Domain
from .noise import Noise, as_noise
from .strategies import Strategy, cached_greedy_h
from .workloads import Workload


@dataclass(frozen=True, eq=False)
class Inputs:
    """What a mechanism may read: the private data and its histogram, the public workload and
    domain. True answers are for expected-error (bias) evaluation only, never for answers."""

    data: Dataset
    x: np.ndarray
    workload: Workload
    domain: Domain
    true_answers: np.ndarray


@dataclass(frozen=True, eq=False)
class Measurement:
    """Noisy answers of all trials (trials × m) and the ε the noise bought in each trial
    (the largest over trials; every trial spends the same by construction). An algorithm that
    chooses θ after measuring (post-processing) reports it in ``theta`` (trials,)."""

    answers: np.ndarray
    epsilon: float
    theta: np.ndarray | None = None


def _spent(sensitivity: np.ndarray, scale: np.ndarray) -> float:
    """ε of a Laplace release: sensitivity / scale, the worst trial."""
    return float(np.max(np.asarray(sensitivity, float) / np.asarray(scale, float)))


def truncated_weights(domain: Domain, theta: np.ndarray) -> np.ndarray:
    """T_θ diagonals min(v_j, θ) for each trial: shape (trials, n)."""
    return np.minimum(domain.bin_weights[None, :], np.asarray(theta, float)[:, None])


def column_cover(workload: Workload, n: int) -> np.ndarray:
    """#{i : k_i ≥ j} for j = 1..n: the L1 norm of column j of W."""
    return workload.size - np.searchsorted(np.sort(workload.counts), np.arange(1, n + 1))


def timm_strategy(workload: Workload, domain: Domain) -> Strategy:
    """A = GreedyH(W), shared by every trial and θ (cached)."""
    return cached_greedy_h(workload.counts, domain.bins)


def tamm_strategy(workload: Workload, domain: Domain, theta: float) -> Strategy:
    """A = GreedyH(W·T_θ) for one θ (cached per effective θ; θ ≥ max v_j all give T = V)."""
    v = domain.bin_weights
    return cached_greedy_h(workload.counts, domain.bins, np.minimum(v, min(theta, v[-1])))


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


def timm_sensitivity(workload: Workload, domain: Domain, theta: np.ndarray) -> np.ndarray:
    """‖A·T_θ‖₁ = max_j ‖A_j‖₁·min(v_j, θ) per trial, A = GreedyH(W)."""
    T = truncated_weights(domain, theta)
    return (T * timm_strategy(workload, domain).column_l1[None, :]).max(axis=1)


def tamm_sensitivity(workload: Workload, domain: Domain, theta: np.ndarray) -> np.ndarray:
    """‖A‖₁ (= 1 for GreedyH) per trial, A = GreedyH(W·T_θ): θ shapes A, not its norm."""
    return np.array([tamm_strategy(workload, domain, float(t)).l1_norm for t in np.ravel(theta)])


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


def timm_measure(
    inputs: Inputs, theta: np.ndarray, *, epsilon: float, rng: np.random.Generator | Noise
) -> tuple[Strategy, np.ndarray, float]:
    """TiMM's measurement z = A·T_θ·x + Lap(‖A·T_θ‖₁/ε_m) with A = GreedyH(W), per trial.

    Returns the strategy, z and the ε spent.

    Privacy
    -------
    The only step that touches x. Sensitivity ‖A·T_θ‖₁ = max_j ‖A_j‖₁·min(v_j, θ) under
    add/remove-one, so the noise scale depends on θ (which must be public or private).
    """
    w, domain = inputs.workload, inputs.domain
    A = timm_strategy(w, domain)
    T = truncated_weights(domain, theta)
    sens = timm_sensitivity(w, domain, theta)
    scale = sens / epsilon
    z = as_noise(rng).add_laplace((A.matrix @ (T * inputs.x[None, :]).T).T, scale[:, None])
    return A, z, _spent(sens, scale)


def timm(
    inputs: Inputs, theta: np.ndarray, *, epsilon: float, rng: np.random.Generator | Noise
) -> Measurement:
    """TiMM: :func:`timm_measure`, then the least-squares answer W·A⁺·z (post-processing)."""
    A, z, spent = timm_measure(inputs, theta, epsilon=epsilon, rng=rng)
    return Measurement(inputs.workload.prefix(A.least_squares(z)), spent)


def tamm_measure(
    inputs: Inputs,
    theta: float,
    trials: int,
    *,
    epsilon: float,
    rng: np.random.Generator | Noise,
) -> tuple[Strategy, np.ndarray, float]:
    """TaMM's measurement z = A·x + Lap(‖A‖₁/ε_m), A = GreedyH(W·T_θ), for one θ.

    Returns the strategy, z (trials × rows) and the ε spent.

    Privacy
    -------
    The only step that touches x. Sensitivity ‖A‖₁ (= 1 for GreedyH) whatever θ is: θ only
    shapes the strategy, so TaMM's privacy never depends on θ.
    """
    A = tamm_strategy(inputs.workload, inputs.domain, theta)
    scale = A.l1_norm / epsilon
    z = as_noise(rng).add_laplace(np.broadcast_to(A.matrix @ inputs.x, (trials, A.rows)), scale)
    return A, z, _spent(np.array(A.l1_norm), np.array(scale))


def tamm(
    inputs: Inputs, theta: np.ndarray, *, epsilon: float, rng: np.random.Generator | Noise
) -> Measurement:
    """TaMM: :func:`tamm_measure` per distinct θ, then W·T_θ·A⁺·z (post-processing).

    Trials are grouped by distinct θ because the strategy differs per θ (and is cached).
    """
    theta = np.asarray(theta, float)
    v = inputs.domain.bin_weights
    effective = np.minimum(theta, v[-1])
    out = np.empty((theta.size, inputs.workload.size))
    spent = 0.0
    uniq, group = np.unique(effective, return_inverse=True)
    for g, t in enumerate(uniq):
        rows = np.flatnonzero(group == g)
        A, z, eps = tamm_measure(inputs, float(t), rows.size, epsilon=epsilon, rng=rng)
        out[rows] = inputs.workload.prefix(np.minimum(v, t)[None, :] * A.least_squares(z))
        spent = max(spent, eps)
    return Measurement(out, spent)


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
