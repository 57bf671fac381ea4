"""Choosing the truncation threshold θ (SPEC §2): none, fixed, SVT, recursive mechanism.

Every function returns θ for many trials at once and says how much budget it spent. All
parameters (r, c, s, β, θ₀, μ, the grid) are public constants, never tuned on the data; only
the chosen θ is released, never a noisy count.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Literal

import numpy as np

from .data import Dataset
from .errors import ParameterError
from .validation import check_choice, check_positive, check_unit_interval

TruncationMethod = Literal["none", "fixed", "svt", "recursive"]
TRUNCATION_METHODS: tuple[str, ...] = ("none", "fixed", "svt", "recursive")
SVT_VARIANTS: tuple[str, ...] = ("paper", "tight")


@dataclass(frozen=True)
class TruncationParams:
    """Public parameters of the threshold choice (paper defaults).

    ``rm_beta=None`` means β = 2·ε_θ/5, the paper's default, resolved where ε_θ is known.
    """

    svt_variant: str = "paper"
    svt_r: float = 0.998
    svt_c: float = 1.2
    svt_s: float = 50_000.0
    rm_beta: float | None = None
    rm_theta0: float = 50_000.0
    rm_mu: float = 0.5
    theta: float | None = None  # the user's fixed θ

    def __post_init__(self) -> None:
        check_choice(self.svt_variant, "svt variant", SVT_VARIANTS)
        check_unit_interval(self.svt_r, "svt r")
        c = check_positive(self.svt_c, "svt c")
        if c <= 1:
            raise ParameterError(f"svt c (grid ratio) must be > 1, got {c:g}")
        check_positive(self.svt_s, "svt s")
        if self.rm_beta is not None:
            check_positive(self.rm_beta, "recursive beta")
        check_positive(self.rm_theta0, "recursive theta0")
        mu = check_positive(self.rm_mu, "recursive mu")
        if mu > 0.5:
            raise ParameterError(f"recursive mu must be in (0, 0.5], got {mu:g}")
        if self.theta is not None:
            check_positive(self.theta, "theta")

    def as_dict(self) -> dict:
        """Plain dict for JSON."""
        return asdict(self)


@dataclass(frozen=True, eq=False)
class ThresholdChoice:
    """θ chosen in each trial, and what that cost.

    Attributes
    ----------
    method
        ``none``, ``fixed``, ``svt`` or ``recursive``.
    theta
        θ per trial (``inf`` for no truncation); shape (trials,) or (trials, m) for SQM.
    epsilon
        Budget spent on the choice (per query for SQM's per-query choices).
    fallbacks
        Trials in which SVT never fired and θ fell back to the public U.
    """

    method: str
    theta: np.ndarray
    epsilon: float
    fallbacks: int = 0


# --------------------------------------------------------------------------------------------
# Sparse Vector Technique
# --------------------------------------------------------------------------------------------
def svt_grid(upper: float, *, s: float, c: float) -> np.ndarray:
    """Public grid u_k = s·c^{k−1}, k = 1..K, K = ⌈log_c(U/s)⌉ + 1, so that u_K ≥ U."""
    K = max(1, math.ceil(math.log(upper / s) / math.log(c) - 1e-12) + 1)
    return s * c ** np.arange(K, dtype=float)


def svt_scales(epsilon: float, *, r: float, variant: str) -> tuple[float, float]:
    """Laplace scales (b_η, b_ν) of the threshold and query noise (SPEC §2.2 table)."""
    if variant == "paper":
        return 2.0 / epsilon, 4.0 / epsilon
    delta = max(r, 1.0 - r)
    eps1 = epsilon / (1.0 + 2.0 ** (2.0 / 3.0))
    eps2 = epsilon - eps1
    return delta / eps1, 2.0 * delta / eps2


_SVT_CHUNK = 4_000_000


def svt_first_above(
    gaps: np.ndarray, *, b_eta: float, b_nu: float, trials: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """AboveThreshold: first k with g_k + ν_k ≥ η, for ``trials`` independent runs.

    Parameters
    ----------
    gaps
        g_k = f_k − r·N, shape (..., K); leading axes are independent instances (queries).

    Returns
    -------
    index, fired
        Index of the first positive answer (0 where none fired) and whether one fired,
        each of shape (trials, ...).

    Privacy
    -------
    g_k has sensitivity ≤ 1 under add/remove-one; with b_η, b_ν from :func:`svt_scales` the
    output index is ε-DP (Dwork–Roth AboveThreshold, or Lyu–Su–Li for ``tight``). Noise for all
    K queries is drawn even though only a prefix is "looked at": that does not change the
    output distribution and keeps the draw vectorised.
    """
    # Trials are drawn in chunks of about _SVT_CHUNK noise values: SQM's per-query SVT needs
    # trials × m × K draws (1.7·10⁸ for 10⁴ trials of Q1), which must not be held at once.
    chunk = max(1, _SVT_CHUNK // max(1, gaps.size))
    index = np.empty((trials, *gaps.shape[:-1]), dtype=np.intp)
    fired = np.empty((trials, *gaps.shape[:-1]), dtype=bool)
    for lo in range(0, trials, chunk):
        n = min(chunk, trials - lo)
        eta = rng.laplace(0.0, b_eta, size=(n, *gaps.shape[:-1], 1))
        nu = rng.laplace(0.0, b_nu, size=(n, *gaps.shape))
        above = gaps[None, ...] + nu >= eta
        index[lo : lo + n] = np.argmax(above, axis=-1)
        fired[lo : lo + n] = above.any(axis=-1)
    return index, fired


def svt_theta(
    data: Dataset,
    *,
    epsilon: float,
    upper: float,
    params: TruncationParams,
    trials: int,
    rng: np.random.Generator,
    tau: np.ndarray | None = None,
) -> ThresholdChoice:
    """θ by SVT: the first grid point u_k whose count reaches an r-fraction of the records.

    Parameters
    ----------
    data
        Cleaned, sorted values (private).
    epsilon
        ε_θ spent by each choice.
    upper
        Public U, the fallback when no grid point fires.
    tau
        For SQM: one choice per query on that query's records {t ≤ τ_i}; θ has shape
        (trials, m).

    Privacy
    -------
    Unbounded (add/remove-one) DP. N is private, so the test statistic is g_k = f_k − r·N
    (sensitivity max(r, 1−r) ≤ 1) against noisy 0, never f_k against a noisy r·N with N
    treated as public. Restricting to {t ≤ τ} is a fixed public filter: a neighbour changes
    the restricted data by at most one record.
    """
    u = svt_grid(upper, s=params.svt_s, c=params.svt_c)
    if tau is None:
        points = u
        total = data.size
    else:
        points = np.minimum(u[None, :], np.asarray(tau, float)[:, None])
        total = data.count_at_most(np.asarray(tau, float))[:, None]
    gaps = data.count_at_most(points) - params.svt_r * np.asarray(total, float)
    b_eta, b_nu = svt_scales(epsilon, r=params.svt_r, variant=params.svt_variant)
    idx, fired = svt_first_above(gaps, b_eta=b_eta, b_nu=b_nu, trials=trials, rng=rng)
    theta = np.where(fired, u[idx], float(upper))
    return ThresholdChoice("svt", theta, epsilon, int((~fired).sum()))


# --------------------------------------------------------------------------------------------
# Recursive mechanism (first stage)
# --------------------------------------------------------------------------------------------
def crossover_index(
    data: Dataset, *, beta: float, theta0: float, counts: np.ndarray | int | None = None
) -> np.ndarray:
    """i* = min{i ≥ 0 : d_i < θ₀·e^{β·i}} with d the values sorted descending, d_N = 0.

    ``counts`` restricts to the ``c`` smallest records (SQM's {t ≤ τ}); one i* per entry. The
    predicate is monotone in i (d falls, θ₀e^{βi} rises), so a vectorised binary search finds it.
    """
    if not isinstance(data, Dataset):  # a DataSummary answers from its top-k (summary.py)
        return data.crossover_index(beta=beta, theta0=theta0, counts=counts)
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


def recursive_theta(
    data: Dataset,
    *,
    epsilon: float,
    params: TruncationParams,
    trials: int,
    rng: np.random.Generator,
    tau: np.ndarray | None = None,
) -> ThresholdChoice:
    """θ by the first stage of the recursive mechanism specialised to sums (SPEC §2.3).

    ln θ = ln θ₀ + β·i* + (β/ε_θ)·ln(1/(2μ)) + Lap(β/ε_θ).

    This is this project's reading of Chen & Zhou (2013)'s first stage (their exact formula
    could not be recovered); it is ε_θ-DP for any public β > 0, θ₀ > 0, μ ∈ (0, ½].

    Privacy
    -------
    Adding one record moves i* by 0 or +1 (removing: 0 or −1), so β·i* has sensitivity β and
    Lap(β/ε_θ) makes ln θ ε_θ-DP; θ is a post-processing of it.
    """
    beta = params.rm_beta if params.rm_beta is not None else 2.0 * epsilon / 5.0
    counts = None if tau is None else data.count_at_most(np.asarray(tau, float))
    i_star = crossover_index(data, beta=beta, theta0=params.rm_theta0, counts=counts)
    scale = beta / epsilon
    shift = scale * math.log(1.0 / (2.0 * params.rm_mu))
    center = math.log(params.rm_theta0) + beta * i_star.astype(float) + shift
    shape = (trials,) if tau is None else (trials, i_star.size)
    log_theta = (center if tau is not None else center[0]) + rng.laplace(0.0, scale, size=shape)
    return ThresholdChoice("recursive", np.exp(log_theta), epsilon)


# --------------------------------------------------------------------------------------------
# Dispatch
# --------------------------------------------------------------------------------------------
def choose_theta(
    data: Dataset,
    method: str,
    *,
    epsilon: float,
    upper: float,
    params: TruncationParams,
    trials: int,
    rng: np.random.Generator,
    tau: np.ndarray | None = None,
) -> ThresholdChoice:
    """θ for ``trials`` trials by ``method``; ``epsilon`` is ignored for none/fixed (cost 0).

    Privacy
    -------
    ``none`` and ``fixed`` look at nothing private (cost 0); a fixed θ is DP only if it was
    chosen without looking at the data. ``svt`` and ``recursive`` spend ``epsilon`` each call
    (per query when ``tau`` is given, as SQM uses them).
    """
    check_choice(method, "truncation", TRUNCATION_METHODS)
    shape = (trials,) if tau is None else (trials, np.asarray(tau).size)
    if method == "none":
        return ThresholdChoice("none", np.full(shape, np.inf), 0.0)
    if method == "fixed":
        if params.theta is None:
            raise ParameterError(
                "truncation 'fixed' needs a threshold: set theta (e.g. --theta 100000)"
            )
        return ThresholdChoice("fixed", np.full(shape, float(params.theta)), 0.0)
    if method == "svt":
        return svt_theta(
            data, epsilon=epsilon, upper=upper, params=params, trials=trials, rng=rng, tau=tau
        )
    return recursive_theta(data, epsilon=epsilon, params=params, trials=trials, rng=rng, tau=tau)
