"""The five algorithms of the paper (SPEC §3), each vectorised over trials.

select → measure → reconstruct: strategies are chosen from public inputs (workload, domain, θ);
only the "measure" step touches the private histogram or values, and it adds Laplace noise
drawn for all trials at once. No Python loop runs over trials; TaMM loops over *distinct* θ
values only, because its strategy depends on θ (and is cached per θ).
"""

from __future__ import annotations

import numpy as np

from .data import Dataset, Domain
from .strategies import Strategy, cached_greedy_h
from .workloads import Workload

ALGORITHMS: tuple[str, ...] = ("sqm", "identity", "workload", "timm", "tamm")
BATCH_ALGORITHMS: tuple[str, ...] = ("identity", "workload", "timm", "tamm")
DISPLAY_NAMES: dict[str, str] = {
    "sqm": "SQM",
    "identity": "Identity",
    "workload": "Workload",
    "timm": "TiMM",
    "tamm": "TaMM",
}


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
# Noise scales (public given θ): the sensitivity over ε_m
# --------------------------------------------------------------------------------------------
def noise_scale(
    algorithm: str, workload: Workload, domain: Domain, theta: np.ndarray, *, epsilon: float
) -> np.ndarray:
    """Laplace scale b per trial for a batch algorithm at θ with measurement budget ε_m.

    Privacy
    -------
    Add/remove-one neighbours change one histogram count by 1, so ‖M‖₁ (largest column L1
    norm) is the sensitivity of x ↦ Mx: M = I (identity), W·T_θ (workload), A·T_θ (TiMM),
    A (TaMM).
    """
    theta = np.asarray(theta, float)
    if algorithm == "identity":
        return np.full(theta.shape, 1.0 / epsilon)
    T = truncated_weights(domain, theta)
    if algorithm == "workload":
        return (T * column_cover(workload, domain.bins)[None, :]).max(axis=1) / epsilon
    if algorithm == "timm":
        return (T * timm_strategy(workload, domain).column_l1[None, :]).max(axis=1) / epsilon
    if algorithm == "tamm":
        return np.array([tamm_strategy(workload, domain, t).l1_norm for t in theta]) / epsilon
    raise ValueError(f"not a batch algorithm: {algorithm}")


# --------------------------------------------------------------------------------------------
# Batch algorithms: one θ per trial, shared
# --------------------------------------------------------------------------------------------
def identity(
    x: np.ndarray,
    workload: Workload,
    domain: Domain,
    theta: np.ndarray,
    *,
    epsilon: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """Identity: noisy counts x + Lap(1/ε_m)ⁿ, answered as W·T_θ·x̃ (shape trials × m).

    Privacy
    -------
    Sensitivity of the histogram is 1 (add/remove one record), independent of θ.
    """
    T = truncated_weights(domain, theta)
    noisy = x[None, :] + rng.laplace(0.0, 1.0 / epsilon, size=T.shape)
    return workload.prefix(T * noisy)


def workload_mechanism(
    x: np.ndarray,
    workload: Workload,
    domain: Domain,
    theta: np.ndarray,
    *,
    epsilon: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """Workload: W·T_θ·x + Lap(‖W·T_θ‖₁/ε_m)^m.

    Privacy
    -------
    ‖W·T_θ‖₁ = max_j min(v_j, θ)·#{i : k_i ≥ j} is the exact sensitivity for add/remove-one.
    """
    T = truncated_weights(domain, theta)
    b = noise_scale("workload", workload, domain, theta, epsilon=epsilon)
    exact = workload.prefix(T * x[None, :])
    return exact + rng.laplace(0.0, 1.0, size=exact.shape) * b[:, None]


def timm_measure(
    x: np.ndarray,
    workload: Workload,
    domain: Domain,
    theta: np.ndarray,
    *,
    epsilon: float,
    rng: np.random.Generator,
) -> tuple[Strategy, np.ndarray]:
    """TiMM's measurement z = A·T_θ·x + Lap(‖A·T_θ‖₁/ε_m) with A = GreedyH(W), per trial.

    Privacy
    -------
    The only step that touches x. Sensitivity ‖A·T_θ‖₁ = max_j ‖A_j‖₁·min(v_j, θ) under
    add/remove-one, so the noise scale depends on θ (which must be public or private).
    """
    A = timm_strategy(workload, domain)
    T = truncated_weights(domain, theta)
    b = noise_scale("timm", workload, domain, theta, epsilon=epsilon)
    z = (A.matrix @ (T * x[None, :]).T).T
    z += rng.laplace(0.0, 1.0, size=z.shape) * b[:, None]
    return A, z


def timm(
    x: np.ndarray,
    workload: Workload,
    domain: Domain,
    theta: np.ndarray,
    *,
    epsilon: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """TiMM: :func:`timm_measure`, then the least-squares answer W·A⁺·z (post-processing)."""
    A, z = timm_measure(x, workload, domain, theta, epsilon=epsilon, rng=rng)
    return workload.prefix(A.least_squares(z))


def tamm_measure(
    x: np.ndarray,
    workload: Workload,
    domain: Domain,
    theta: float,
    trials: int,
    *,
    epsilon: float,
    rng: np.random.Generator,
) -> tuple[Strategy, np.ndarray]:
    """TaMM's measurement z = A·x + Lap(‖A‖₁/ε_m), A = GreedyH(W·T_θ), for one θ.

    Privacy
    -------
    The only step that touches x. Sensitivity ‖A‖₁ (= 1 for GreedyH) whatever θ is: θ only
    shapes the strategy, so TaMM's privacy never depends on θ.
    """
    A = tamm_strategy(workload, domain, theta)
    z = np.broadcast_to(A.matrix @ x, (trials, A.rows)).copy()
    z += rng.laplace(0.0, A.l1_norm / epsilon, size=z.shape)
    return A, z


def tamm(
    x: np.ndarray,
    workload: Workload,
    domain: Domain,
    theta: np.ndarray,
    *,
    epsilon: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """TaMM: :func:`tamm_measure` per distinct θ, then W·T_θ·A⁺·z (post-processing).

    Trials are grouped by distinct θ because the strategy differs per θ (and is cached).
    """
    theta = np.asarray(theta, float)
    v = domain.bin_weights
    effective = np.minimum(theta, v[-1])
    out = np.empty((theta.size, workload.size))
    uniq, group = np.unique(effective, return_inverse=True)
    for g, t in enumerate(uniq):
        rows = np.flatnonzero(group == g)
        A, z = tamm_measure(x, workload, domain, float(t), rows.size, epsilon=epsilon, rng=rng)
        out[rows] = workload.prefix(np.minimum(v, t)[None, :] * A.least_squares(z))
    return out


BATCH = {
    "identity": identity,
    "workload": workload_mechanism,
    "timm": timm,
    "tamm": tamm,
}


# --------------------------------------------------------------------------------------------
# SQM: each query alone, with its own θ_i
# --------------------------------------------------------------------------------------------
def sqm_scale(workload: Workload, theta: np.ndarray, *, epsilon_measure: float) -> np.ndarray:
    """b_i = min(θ_i, τ_i)·m/ε_measure, the Laplace scale of each query (trials × m)."""
    return np.minimum(theta, workload.thresholds[None, :]) * workload.size / epsilon_measure


def sqm(
    data: Dataset,
    workload: Workload,
    theta: np.ndarray,
    *,
    epsilon_measure: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """SQM: Trunc_θi(q_τi)(D) + Lap(min(θ_i, τ_i)·m/ε_measure) on the raw values.

    Parameters
    ----------
    theta
        θ_i per trial and query, shape (trials, m); ``inf`` is the paper's NoTrunc.
    epsilon_measure
        Total measurement budget (1−ρ)ε; each of the m queries gets 1/m of it.

    Privacy
    -------
    The truncated prefix sum Σ_{t≤τ} min(t, θ) changes by at most min(θ, τ) when one record
    is added or removed; m queries at ε_measure/m each compose to ε_measure.
    """
    theta = np.asarray(theta, float)
    exact = data.truncated_sum(workload.thresholds[None, :], theta)
    b = sqm_scale(workload, theta, epsilon_measure=epsilon_measure)
    return exact + rng.laplace(0.0, 1.0, size=exact.shape) * b
