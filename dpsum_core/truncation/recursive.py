"""The recursive mechanism's first stage for θ (SPEC §2.2): the crossover index, the draw for
many trials at once, and the law of θ.
"""


from __future__ import annotations

import math

import numpy as np

from dpsum_core import limits
from dpsum_core.data.dataset import Dataset, Statistics
from dpsum_core.data.summary import DataSummary
from dpsum_core.errors import ParameterError
from dpsum_core.noise import Noise, as_noise
from dpsum_core.truncation.choice import (
    LAW_POINTS,
    ThetaLaw,
    ThresholdChoice,
    _laplace_quantile_midpoints,
)
from dpsum_core.truncation.method import Param, Truncation
from dpsum_core.truncation.method import Values as TruncationParams
from dpsum_core.truncation.svt import START_HELP, START_TEXT
from dpsum_core.validation import check_positive


# --------------------------------------------------------------------------------------------
# Recursive mechanism (first stage)
# --------------------------------------------------------------------------------------------
def crossover_index(
    data: Statistics, *, beta: float, theta0: float, counts: np.ndarray | int | None = None
) -> np.ndarray:
    """i* = min{i ≥ 0 : d_i < θ₀·e^{β·i}} with d the values sorted descending, d_N = 0.

    ``counts`` restricts to the ``c`` smallest records (SQM's {t ≤ τ}); one i* per entry. The
    predicate is monotone in i (d falls, θ₀e^{βi} rises), so a vectorised binary search finds it.
    """
    if isinstance(data, DataSummary):  # a summary answers from its top-k (summary.py)
        return data.crossover_index(beta=beta, theta0=theta0, counts=counts)
    if not isinstance(data, Dataset):
        raise TypeError(f"crossover_index reads a Dataset or a DataSummary, not {type(data)}")
    vals = data.values
    c = np.atleast_1d(np.asarray(data.size if counts is None else counts, dtype=np.int64))
    log_t0 = math.log(theta0)

    def holds(i: np.ndarray) -> np.ndarray:
        inside = i < c
        d = vals[np.clip(c - 1 - i, 0, max(vals.size - 1, 0))]
        with np.errstate(divide="ignore"):
            return ~inside | (d <= 0) | (np.log(np.where(d > 0, d, 1.0)) < log_t0 + beta * i)

    lo = np.zeros_like(c)
    hi = c.copy()  # holds(c) is always true
    while np.any(lo < hi):
        mid = (lo + hi) // 2
        ok = holds(mid)
        hi = np.where(ok, mid, hi)
        lo = np.where(ok, lo, mid + 1)
    return lo


def theta_floor(upper: float) -> float:
    """The smallest θ released: U·:data:`~dpsum_core.limits.THETA_MIN_FRACTION` (public)."""
    return float(upper) * limits.THETA_MIN_FRACTION


def recursive_theta(
    data: Statistics,
    *,
    epsilon: float,
    upper: float,
    params: TruncationParams,
    trials: int,
    rng: np.random.Generator | Noise,
    tau: np.ndarray | None = None,
) -> ThresholdChoice:
    """θ by the first stage of the recursive mechanism specialised to sums (SPEC §2.3).

    ln θ = ln θ₀ + β·i* + (β/ε_θ)·ln(1/(2μ)) + Lap(β/ε_θ), then θ = min(max(θ, U·2⁻⁴⁰), U).

    This is this project's reading of Chen & Zhou (2013)'s first stage (their exact formula
    could not be recovered); it is ε_θ-DP for any public β > 0, θ₀ > 0, μ ∈ (0, ½].

    Privacy
    -------
    Adding one record moves i* by 0 or +1 (removing: 0 or −1), so β·i* has sensitivity β and
    Lap(β/ε_θ) makes ln θ ε_θ-DP; θ is a post-processing of it. So is clamping ln θ at the
    public ln U: every value is ≤ U after cleaning, so any θ ≥ U truncates nothing and θ = U
    gives the same answers, while a large β (noise of scale β/ε_θ on ln θ) no longer
    overflows exp to ∞; and raising θ to the public floor :func:`theta_floor` keeps it from
    underflowing to 0 (a zero noise scale downstream).
    """
    beta = params.rm_beta if params.rm_beta is not None else 2.0 * epsilon / 5.0
    counts = None if tau is None else data.count_at_most(np.asarray(tau, float))
    theta0 = THETA0.in_force(params, upper)
    i_star = crossover_index(data, beta=beta, theta0=theta0, counts=counts)
    scale = beta / epsilon
    shift = scale * math.log(1.0 / (2.0 * params.rm_mu))
    center = math.log(theta0) + beta * i_star.astype(float) + shift
    shape = (trials,) if tau is None else (trials, i_star.size)
    log_theta = as_noise(rng).add_laplace(
        np.broadcast_to(center if tau is not None else center[0], shape), scale
    )
    # Clamping ln θ at ln U is post-processing; it keeps a large β from overflowing θ.
    log_upper = math.log(upper)
    # exp(ln U) may round below U: a clamped θ is U exactly, so "θ ≥ U" still reads as inactive.
    theta = np.where(
        log_theta >= log_upper, upper, np.minimum(np.exp(np.minimum(log_theta, log_upper)), upper)
    )
    # Post-processing too: θ stays above the public floor, so exp never underflows to θ = 0.
    theta = np.maximum(theta, theta_floor(upper))
    return ThresholdChoice("recursive", theta, beta / scale)


def recursive_law(
    data: Statistics, epsilon: float, *, upper: float, params: TruncationParams, tau: np.ndarray | None
) -> ThetaLaw:
    """LAW_POINTS quantile midpoints of the recursive mechanism's θ (see :func:`recursive_theta`)."""
    m = None if tau is None else np.asarray(tau).size
    beta = params.rm_beta if params.rm_beta is not None else 2.0 * epsilon / 5.0
    counts = None if tau is None else data.count_at_most(np.asarray(tau, float))
    theta0 = THETA0.in_force(params, upper)
    i_star = crossover_index(data, beta=beta, theta0=theta0, counts=counts)
    scale = beta / epsilon
    center = (
        math.log(theta0) + beta * i_star.astype(float) + scale * math.log(1 / (2 * params.rm_mu))
    )
    log_theta = (center if m is not None else center[:1])[None, :] + scale * (
        _laplace_quantile_midpoints(LAW_POINTS)[:, None]
    )
    # as recursive_theta: a clamped θ is U exactly
    log_upper = math.log(upper)
    support = np.where(log_theta >= log_upper, upper, np.exp(np.minimum(log_theta, log_upper)))
    support = np.maximum(support, theta_floor(upper))
    support = support[:, 0] if m is None else support
    return ThetaLaw(support, np.full(support.shape, 1.0 / LAW_POINTS))


def recursive_laws(
    data: Statistics,
    *,
    epsilons: np.ndarray,
    upper: float,
    params: TruncationParams,
    tau: np.ndarray | None = None,
) -> list[ThetaLaw]:
    """:func:`recursive_law` at each ε_θ in ``epsilons``."""
    return [
        recursive_law(data, float(e), upper=upper, params=params, tau=tau)
        for e in np.atleast_1d(epsilons)
    ]


def recursive_distinct_thetas(params: TruncationParams, upper: float, trials: int) -> int:
    """Distinct θ over ``trials`` trials (for cost estimates): θ is continuous, so every trial
    has its own."""
    return trials


def _check_mu(value: float) -> None:
    mu = check_positive(value, "recursive mu")
    if mu > 0.5:
        raise ParameterError(f"recursive mu must be in (0, 0.5], got {mu:g}")


THETA0 = Param(
    "rm_theta0", "--rm-theta0", "θ₀", help=f"recursive θ₀, {START_TEXT}",
    check=lambda v: check_positive(v, "recursive theta0"), per_upper=True, step=10_000.0,
    low=0.0, explain=START_HELP,
)  # fmt: skip
PARAMS = (
    Param("rm_beta", "--rm-beta", "β", help="recursive β, default 2·ε_θ/5",
          check=lambda v: check_positive(v, "recursive beta", upper=limits.MAX_RM_BETA),
          auto="β = 2·ε_θ/5 (paper default)", step=0.0001, low=0.0, high=limits.MAX_RM_BETA),
    THETA0,
    Param("rm_mu", "--rm-mu", "μ (in (0, ½])", default=0.5, check=_check_mu, step=0.05, low=0.0,
          high=0.5, help="recursive μ, in (0, 0.5] (default 0.5)"),
)  # fmt: skip

RECORDS = (
    Truncation("recursive", "Recursive", "dash", 3, True, recursive_theta, recursive_laws,
               distinct_thetas=recursive_distinct_thetas, params=PARAMS,
               title="Recursive mechanism", source="recursive mechanism",
               description="θ chosen privately with the recursive mechanism, spending ε_θ"),
)  # fmt: skip
