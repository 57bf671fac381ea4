"""The truncated matrix mechanisms TiMM and TaMM (SPEC §3–4): GreedyH strategies, least squares,
sensitivities and analytic error. TaMM loops over distinct θ only (its strategy depends on θ).
"""


from __future__ import annotations

from contextlib import AbstractContextManager

import numpy as np

from dpsum_core.checkpoint import checkpoint
from dpsum_core.data.domain import Domain
from dpsum_core.mechanisms.algorithm import SHARED, Algorithm
from dpsum_core.mechanisms.bounds import COUNT_METHOD, IntervalInputs, IntervalRule, count_bounds
from dpsum_core.mechanisms.cost import Seconds, Work, per_theta, strategy_seconds, vectorised
from dpsum_core.mechanisms.error import Components, binned_bias
from dpsum_core.mechanisms.greedy_h import Strategy, cached_greedy_h, public_grid
from dpsum_core.mechanisms.measurement import Inputs, Measurement, _spent, truncated_weights
from dpsum_core.mechanisms.workloads import Workload
from dpsum_core.noise import Noise, as_noise


def timm_strategy(workload: Workload, domain: Domain) -> Strategy:
    """A = GreedyH(W), shared by every trial and θ (cached)."""
    return cached_greedy_h(workload.counts, domain.bins)


def tamm_strategy(workload: Workload, domain: Domain, theta: float) -> Strategy:
    """A = GreedyH(W·T_θ) for one θ (cached per effective θ; θ ≥ max v_j all give T = V)."""
    return cached_greedy_h(workload.counts, domain.bins, _tamm_scale(domain, theta))


def _tamm_scale(domain: Domain, theta: float) -> np.ndarray:
    v = domain.bin_weights
    return np.minimum(v, min(theta, v[-1]))


def tamm_public_grid(
    workload: Workload, domain: Domain, thetas: np.ndarray
) -> AbstractContextManager[None]:
    """Within this block, TaMM's strategies at the θ of ``thetas`` are cached process-wide.

    Privacy
    -------
    ``thetas`` must be a function of public inputs only (U, n, the weights), never of the
    data: see :func:`dpsum_core.mechanisms.greedy_h.public_grid`. Any other θ (a private one
    drawn by SVT or the recursive mechanism) still goes to the session's own cache.
    """
    scales = [_tamm_scale(domain, float(t)) for t in np.ravel(thetas)]
    return public_grid(workload.counts, domain.bins, scales)


def timm_sensitivity(workload: Workload, domain: Domain, theta: np.ndarray) -> np.ndarray:
    """‖A·T_θ‖₁ = max_j ‖A_j‖₁·min(v_j, θ) per trial, A = GreedyH(W)."""
    T = truncated_weights(domain, theta)
    return (T * timm_strategy(workload, domain).column_l1[None, :]).max(axis=1)


def tamm_sensitivity(workload: Workload, domain: Domain, theta: np.ndarray) -> np.ndarray:
    """‖A‖₁ (= 1 for GreedyH) per trial, A = GreedyH(W·T_θ): θ shapes A, not its norm."""
    return np.array([tamm_strategy(workload, domain, float(t)).l1_norm for t in np.ravel(theta)])


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
        checkpoint()  # a continuous θ builds one strategy per trial: stoppable between them
        rows = np.flatnonzero(group == g)
        A, z, eps = tamm_measure(inputs, float(t), rows.size, epsilon=epsilon, rng=rng)
        out[rows] = inputs.workload.prefix(np.minimum(v, t)[None, :] * A.least_squares(z))
        spent = max(spent, eps)
    return Measurement(out, spent)


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
        checkpoint()
        inverse = tamm_strategy(w, domain, float(t)).inverse
        var[row] = 2 * b[row] ** 2 * inverse.prefix_quadratic(T[row], w.counts)
    return bias**2, var


# The registry's records of this family (dpsum_core.mechanisms.registry collects them).
def timm_cost(work: Work) -> Seconds:
    """A vectorised pass; GreedyH(W) is built once per click (a public key, cached)."""
    return Seconds(vectorised(work).run, once=strategy_seconds(work.bins), strategies=1)


def tamm_cost(work: Work) -> Seconds:
    """A vectorised pass plus one GreedyH(W·T_θ) per distinct θ, in every run: the recursive
    mechanism's θ is continuous, so every trial has its own strategy."""
    built = work.thetas
    return Seconds(vectorised(work).run + built * strategy_seconds(work.bins), strategies=built)


def timm_error_cost(work: Work) -> Seconds:
    """The error at each θ, vectorised; GreedyH(W) once (a public key, cached)."""
    return Seconds(per_theta(work).run, once=strategy_seconds(work.bins), strategies=1)


def tamm_error_cost(work: Work) -> Seconds:
    """The error at each θ, with one GreedyH(W·T_θ) per θ (its variance needs the strategy)."""
    built = work.thetas
    return Seconds(per_theta(work).run + built * strategy_seconds(work.bins), strategies=built)


def timm_variance(inputs: IntervalInputs, theta: float, ratio, u, per_group) -> np.ndarray:
    """TiMM's interval noise: x̂ = A⁺z estimates T·x, Cov = 2b²(AᵀA)⁻¹ (:func:`count_bounds`)."""
    workload, domain = inputs.workload, inputs.domain
    b = float(timm_sensitivity(workload, domain, np.array([theta]))[0]) / inputs.epsilon_measure
    weights = np.zeros(domain.bins)
    weights[: ratio.size] = ratio
    inverse = timm_strategy(workload, domain).inverse
    return 2.0 * b**2 * inverse.prefix_quadratic(weights, workload.counts)


def tamm_variance(inputs: IntervalInputs, theta: float, ratio, u, per_group) -> np.ndarray:
    """TaMM's interval noise: x̂ = A⁺z estimates x, Cov = 2b²(AᵀA)⁻¹ (:func:`count_bounds`)."""
    workload, domain = inputs.workload, inputs.domain
    b = float(tamm_sensitivity(workload, domain, np.array([theta]))[0]) / inputs.epsilon_measure
    weights = np.zeros(domain.bins)
    weights[: ratio.size] = ratio * u
    inverse = tamm_strategy(workload, domain, theta).inverse
    return 2.0 * b**2 * inverse.prefix_quadratic(weights, workload.counts)


RECORDS = (
    Algorithm(
        name="timm",
        label="TiMM",
        color="#D55E00",
        dash="longdashdot",
        symbol="triangle-up",
        measures="A·T_θ·x with A = GreedyH(W)",
        theta_rule=SHARED,
        measure=timm,
        error=timm_error,
        stream_id=4,
        cost=timm_cost,
        error_cost=timm_error_cost,
        interval=IntervalRule(lambda i: count_bounds(i, timm_variance), COUNT_METHOD),
    ),
    Algorithm(
        name="tamm",
        label="TaMM",
        color="#0072B2",
        dash="12px,3px,3px,3px,3px,3px",
        symbol="x",
        measures="A·x with A = GreedyH(W·T_θ)",
        theta_rule=SHARED,
        measure=tamm,
        error=tamm_error,
        stream_id=5,
        cost=tamm_cost,
        error_cost=tamm_error_cost,
        interval=IntervalRule(lambda i: count_bounds(i, tamm_variance), COUNT_METHOD),
    ),
)
