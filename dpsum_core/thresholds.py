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

from . import limits
from .data import Dataset
from .errors import ParameterError
from .noise import Noise, as_noise
from .validation import check_choice, check_positive, check_unit_interval

TruncationMethod = Literal["none", "fixed", "svt", "recursive"]
TRUNCATION_METHODS: tuple[str, ...] = ("none", "fixed", "svt", "recursive")
SVT_VARIANTS: tuple[str, ...] = ("paper", "tight")
FIXED_NEEDS_THETA = "truncation 'fixed' needs a threshold: set theta (e.g. --theta 100000)"


@dataclass(frozen=True)
class TruncationParams:
    """Public parameters of the threshold choice.

    ``None`` means a default resolved where its inputs are known: β = 2·ε_θ/5 (the paper's),
    and the SVT start s and the recursive θ₀ = U/8 (:data:`START_FRACTION`), which follows the
    column's unit (dollars per year, per week, per hour) instead of staying at the paper's
    50 000 whatever U is. :data:`PAPER` holds the paper's constants exactly, for reproducing it.
    """

    svt_variant: str = "paper"
    svt_r: float = 0.998
    svt_c: float = 1.2
    svt_s: float | None = None
    rm_beta: float | None = None
    rm_theta0: float | None = None
    rm_mu: float = 0.5
    theta: float | None = None  # the user's fixed θ

    def __post_init__(self) -> None:
        check_choice(self.svt_variant, "svt variant", SVT_VARIANTS)
        check_unit_interval(self.svt_r, "svt r")
        c = check_positive(self.svt_c, "svt c")
        if c <= 1:
            raise ParameterError(f"svt c (grid ratio) must be > 1, got {c:g}")
        if self.svt_s is not None:
            check_positive(self.svt_s, "svt s")
        if self.rm_beta is not None:
            check_positive(self.rm_beta, "recursive beta", upper=limits.MAX_RM_BETA)
        if self.rm_theta0 is not None:
            check_positive(self.rm_theta0, "recursive theta0")
        mu = check_positive(self.rm_mu, "recursive mu")
        if mu > 0.5:
            raise ParameterError(f"recursive mu must be in (0, 0.5], got {mu:g}")
        if self.theta is not None:
            check_positive(self.theta, "theta")

    def check_svt_grid(self, upper: float) -> None:
        """Raise ParameterError if SVT's grid up to ``upper`` has more than MAX_SVT_GRID points.

        The grid depends on U as well as on s and c, so this is called where U is known (the
        experiment's configuration); the message names the smallest c and the smallest s that
        fit (a larger c or s means fewer points).
        """
        check_svt_grid(upper, s=self.start(upper)[0], c=self.svt_c)

    def as_dict(self) -> dict:
        """Plain dict for JSON."""
        return asdict(self)

    def start(self, upper: float) -> tuple[float, float]:
        """(s, θ₀) in force for domain bound U: the given values, or U·START_FRACTION."""
        default = upper * START_FRACTION
        return (
            default if self.svt_s is None else self.svt_s,
            default if self.rm_theta0 is None else self.rm_theta0,
        )

    def resolved(self, upper: float) -> dict:
        """The parameters in force for U (defaults filled in, β as given), for run.json."""
        s, theta0 = self.start(upper)
        return {**self.as_dict(), "svt_s": s, "rm_theta0": theta0}


# The start of the SVT grid and the recursive mechanism's θ₀ as a fraction of U, so that they
# carry over to any unit (the paper's 50 000 at U = 800 000 is U/16). Truncation can only pick
# θ ≥ s, and θ₀ anchors the recursive crossover curve θ₀·e^{βi}: both must sit below the top
# of a column's values, which for income-like columns with a sensible public U is a few tenths
# of U. Measured with bench/accuracy.py --starts on synthetic annual (45 000 and 4 856 rows),
# weekly, hourly and top-coded columns, Q1, ε ∈ {0.01, 0.1, 1}: U/8 gave the lowest TaMM
# error with SVT and with the recursive mechanism in every column at ε = 0.01 (e.g. annual
# 0.098 vs 0.117 at U/16 and 0.121 at U/100 with SVT), and was within noise of the best
# elsewhere; lower starts only add SVT steps and pull the recursive θ down. A start above the
# column's top is flagged after the run (θ ≥ U in most trials).
START_FRACTION = 1 / 8
PAPER = TruncationParams(svt_s=50_000.0, rm_theta0=50_000.0)


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
        Budget the choice's noise bought, computed from its noise scales (per query for SQM's
        per-query choices; 0 for none/fixed).
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
def svt_grid_size(upper: float, *, s: float, c: float) -> int:
    """K = ⌈log_c(U/s)⌉ + 1 (at least 1): the number of grid points up to U."""
    return max(1, math.ceil((math.log(upper) - math.log(s)) / math.log(c) - 1e-9) + 1)


def svt_c_min(upper: float, *, s: float) -> float | None:
    """The smallest c (rounded up, 3 significant digits of c − 1) whose grid up to U has at
    most MAX_SVT_GRID points, or ``None`` if every c > 1 does (s ≥ U).

    K ≤ K_max ⇔ log_c(U/s) ≤ K_max − 1 ⇔ c ≥ (U/s)^{1/(K_max−1)}.
    """
    log_ratio = math.log(upper) - math.log(s)
    if log_ratio <= 0:
        return None
    return 1.0 + _ceil_significant(math.expm1(log_ratio / (limits.MAX_SVT_GRID - 1)))


def check_svt_grid(upper: float, *, s: float, c: float) -> int:
    """Return K if it is at most ``limits.MAX_SVT_GRID``, else raise ParameterError saying
    which c or s would fit (K ≤ K_max ⇔ c ≥ :func:`svt_c_min` ⇔ s ≥ U / c^{K_max−1})."""
    size = svt_grid_size(upper, s=s, c=c)
    most = limits.MAX_SVT_GRID
    if size > most:
        s_fit = _ceil_significant(math.exp(math.log(upper) - (most - 1) * math.log(c)))
        raise ParameterError(
            f"the SVT grid u_k = s·c^(k−1) from s = {s:g} up to U = {upper:g} with c = {c!r} "
            f"has {size:,} points, more than the {most:,} allowed: use c ≥ "
            f"{svt_c_min(upper, s=s):.12g} or s ≥ {s_fit:.12g}"
        )
    return size


def _ceil_significant(x: float, digits: int = 3) -> float:
    """``x`` > 0 rounded up to ``digits`` significant digits (a bound that still holds)."""
    step = 10.0 ** (math.floor(math.log10(x)) - digits + 1)
    return math.ceil(x / step) * step


def svt_grid(upper: float, *, s: float, c: float) -> np.ndarray:
    """Public grid u_k = s·c^{k−1}, k = 1..K, K = ⌈log_c(U/s)⌉ + 1, so that u_K ≥ U.

    Raises
    ------
    ParameterError
        If K exceeds ``limits.MAX_SVT_GRID`` (see :func:`check_svt_grid`).
    """
    K = check_svt_grid(upper, s=s, c=c)
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


def svt_epsilon(b_eta: float, b_nu: float, *, r: float, variant: str) -> float:
    """ε bought by AboveThreshold's noise: Δ/b_η + 2Δ/b_ν (Δ = 1 for ``paper``, max(r, 1−r)
    for ``tight``), the inverse of :func:`svt_scales`."""
    delta = 1.0 if variant == "paper" else max(r, 1.0 - r)
    return delta / b_eta + 2.0 * delta / b_nu


def svt_first_above(
    gaps: np.ndarray,
    *,
    b_eta: float,
    b_nu: float,
    trials: int,
    rng: np.random.Generator | Noise,
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
    noise = as_noise(rng)
    chunk = max(1, _SVT_CHUNK // max(1, gaps.size))
    index = np.empty((trials, *gaps.shape[:-1]), dtype=np.intp)
    fired = np.empty((trials, *gaps.shape[:-1]), dtype=bool)
    for lo in range(0, trials, chunk):
        n = min(chunk, trials - lo)
        eta = noise.add_laplace(np.zeros((n, *gaps.shape[:-1], 1)), b_eta)
        above = noise.add_laplace(np.broadcast_to(gaps, (n, *gaps.shape)), b_nu) >= eta
        index[lo : lo + n] = np.argmax(above, axis=-1)
        fired[lo : lo + n] = above.any(axis=-1)
    return index, fired


def svt_gaps(
    data: Dataset, *, upper: float, params: TruncationParams, tau: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """SVT's public grid u (K,) and its private test statistics g_k = f_k − r·N: shape (K,), or
    (m, K) on each query's records {t ≤ τ_i} when ``tau`` is given (see :func:`svt_theta`)."""
    u = svt_grid(upper, s=params.start(upper)[0], c=params.svt_c)
    if tau is None:
        points = u
        total: int | np.ndarray = data.size
    else:
        points = np.minimum(u[None, :], np.asarray(tau, float)[:, None])
        total = data.count_at_most(np.asarray(tau, float))[:, None]
    return u, data.count_at_most(points) - params.svt_r * np.asarray(total, float)


def svt_theta(
    data: Dataset,
    *,
    epsilon: float,
    upper: float,
    params: TruncationParams,
    trials: int,
    rng: np.random.Generator | Noise,
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
    u, gaps = svt_gaps(data, upper=upper, params=params, tau=tau)
    b_eta, b_nu = svt_scales(epsilon, r=params.svt_r, variant=params.svt_variant)
    idx, fired = svt_first_above(gaps, b_eta=b_eta, b_nu=b_nu, trials=trials, rng=rng)
    theta = np.where(fired, u[idx], float(upper))
    spent = svt_epsilon(b_eta, b_nu, r=params.svt_r, variant=params.svt_variant)
    return ThresholdChoice("svt", theta, spent, int((~fired).sum()))


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
    upper: float,
    params: TruncationParams,
    trials: int,
    rng: np.random.Generator | Noise,
    tau: np.ndarray | None = None,
) -> ThresholdChoice:
    """θ by the first stage of the recursive mechanism specialised to sums (SPEC §2.3).

    ln θ = ln θ₀ + β·i* + (β/ε_θ)·ln(1/(2μ)) + Lap(β/ε_θ), then θ = min(θ, U).

    This is this project's reading of Chen & Zhou (2013)'s first stage (their exact formula
    could not be recovered); it is ε_θ-DP for any public β > 0, θ₀ > 0, μ ∈ (0, ½].

    Privacy
    -------
    Adding one record moves i* by 0 or +1 (removing: 0 or −1), so β·i* has sensitivity β and
    Lap(β/ε_θ) makes ln θ ε_θ-DP; θ is a post-processing of it. So is clamping ln θ at the
    public ln U: every value is ≤ U after cleaning, so any θ ≥ U truncates nothing and θ = U
    gives the same answers, while a large β (noise of scale β/ε_θ on ln θ) no longer
    overflows exp to ∞.
    """
    beta = params.rm_beta if params.rm_beta is not None else 2.0 * epsilon / 5.0
    counts = None if tau is None else data.count_at_most(np.asarray(tau, float))
    theta0 = params.start(upper)[1]
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
    return ThresholdChoice("recursive", theta, beta / scale)


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
    rng: np.random.Generator | Noise,
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
            raise ParameterError(FIXED_NEEDS_THETA)
        return ThresholdChoice("fixed", np.full(shape, float(params.theta)), 0.0)
    if method == "svt":
        return svt_theta(
            data, epsilon=epsilon, upper=upper, params=params, trials=trials, rng=rng, tau=tau
        )
    return recursive_theta(
        data, epsilon=epsilon, upper=upper, params=params, trials=trials, rng=rng, tau=tau
    )


# --------------------------------------------------------------------------------------------
# The distribution of θ (for analytic error without drawing any noise)
# --------------------------------------------------------------------------------------------
# Quadrature points: SVT's threshold noise η is integrated out at LAW_POINTS quantile midpoints
# of its Laplace law; the recursive mechanism's continuous θ is represented by LAW_POINTS
# equally likely quantile midpoints. With 16 points SVT's index probabilities on the sample
# data (Q1, per query as SQM uses them, ε from 10⁻⁴ to 10) are within 0.005 of a 1 024-point
# rule, at a sixth of the cost of 64 points (the decision view evaluates 25 ε values at once).
LAW_POINTS = 16


@dataclass(frozen=True, eq=False)
class ThetaLaw:
    """The law of θ: ``support`` values with probabilities ``weights``.

    ``support`` has shape (k,) (one θ shared by the batch algorithms) or (k, m) (SQM: θ_i per
    query); ``weights`` has shape (k,) or (k, m), summing to 1 over k.
    """

    support: np.ndarray
    weights: np.ndarray


def _laplace_quantile_midpoints(points: int) -> np.ndarray:
    """Quantiles of Lap(0, 1) at probabilities (j + ½)/points."""
    q = (np.arange(points) + 0.5) / points
    return np.where(q < 0.5, np.log(2 * q), -np.log(2 * (1 - q)))


def _laplace_cdf(x: np.ndarray) -> np.ndarray:
    """P(Lap(0, 1) < x)."""
    half_tail = 0.5 * np.exp(-np.abs(x))
    return np.where(x < 0, half_tail, 1 - half_tail)


def svt_index_probabilities(
    gaps: np.ndarray, *, b_eta: float, b_nu: float, points: int = LAW_POINTS
) -> np.ndarray:
    """P(AboveThreshold first fires at k), k = 0..K−1, and P(it never fires) last: (..., K+1).

    Given η, the query answers are independent: P(first = k | η) = Π_{j<k} F(η − g_j)·(1 −
    F(η − g_k)), F the CDF of Lap(b_ν); η ~ Lap(b_η) is integrated out at ``points`` quantile
    midpoints. The same law as :func:`svt_first_above`, with no noise drawn.

    Privacy
    -------
    The gaps are private: the probabilities are for the data holder's analysis only.
    """
    eta = b_eta * _laplace_quantile_midpoints(points)  # (Q,)
    below = _laplace_cdf((eta[:, None, None] - np.atleast_2d(gaps)[None]) / b_nu)  # (Q, I, K)
    before = np.cumprod(below, axis=-1)
    none_before = np.concatenate([np.ones_like(before[..., :1]), before[..., :-1]], axis=-1)
    first = none_before * (1 - below)
    probs = np.concatenate([first, before[..., -1:]], axis=-1).mean(axis=0)  # (I, K+1)
    return probs.reshape(*np.shape(gaps)[:-1], probs.shape[-1])


def theta_laws(
    data: Dataset,
    method: str,
    *,
    epsilons: np.ndarray,
    upper: float,
    params: TruncationParams,
    tau: np.ndarray | None = None,
) -> list[ThetaLaw]:
    """The law of the θ that :func:`choose_theta` draws with the same arguments, at each ε_θ in
    ``epsilons`` (no noise drawn).

    ``none`` and ``fixed``: one point. ``svt``: the grid u_k with the probabilities of
    :func:`svt_index_probabilities` (the gaps are computed once for every ε), and U when it
    never fires. ``recursive``: ``LAW_POINTS`` equally likely quantile midpoints of
    ln θ = centre + Lap(β/ε_θ), clamped at U.

    Privacy
    -------
    Computed from the private data without noise: for the data holder's analysis of error
    (the decision view), never a release.
    """
    check_choice(method, "truncation", TRUNCATION_METHODS)
    eps = [float(e) for e in np.atleast_1d(epsilons)]
    m = None if tau is None else np.asarray(tau).size
    one = np.ones(1) if m is None else np.ones((1, m))
    if method in ("none", "fixed"):
        if method == "fixed" and params.theta is None:
            raise ParameterError(FIXED_NEEDS_THETA)
        value = np.inf if method == "none" else float(params.theta)  # type: ignore[arg-type]
        return [ThetaLaw(one * value, one) for _ in eps]
    if method == "svt":
        u, gaps = svt_gaps(data, upper=upper, params=params, tau=tau)
        support = np.append(u, float(upper))
        if m is not None:
            support = np.broadcast_to(support[:, None], (support.size, m))
        laws = []
        for e in eps:
            b_eta, b_nu = svt_scales(e, r=params.svt_r, variant=params.svt_variant)
            probs = svt_index_probabilities(gaps, b_eta=b_eta, b_nu=b_nu)  # (K+1,) or (m, K+1)
            laws.append(ThetaLaw(support, probs if m is None else probs.T))
        return laws
    return [_recursive_law(data, e, upper=upper, params=params, tau=tau) for e in eps]


def theta_law(
    data: Dataset,
    method: str,
    *,
    epsilon: float,
    upper: float,
    params: TruncationParams,
    tau: np.ndarray | None = None,
) -> ThetaLaw:
    """:func:`theta_laws` at one ε_θ."""
    return theta_laws(
        data, method, epsilons=np.array([epsilon]), upper=upper, params=params, tau=tau
    )[0]


def _recursive_law(
    data: Dataset, epsilon: float, *, upper: float, params: TruncationParams, tau: np.ndarray | None
) -> ThetaLaw:
    """LAW_POINTS quantile midpoints of the recursive mechanism's θ (see :func:`recursive_theta`)."""
    m = None if tau is None else np.asarray(tau).size
    beta = params.rm_beta if params.rm_beta is not None else 2.0 * epsilon / 5.0
    counts = None if tau is None else data.count_at_most(np.asarray(tau, float))
    theta0 = params.start(upper)[1]
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
    support = support[:, 0] if m is None else support
    return ThetaLaw(support, np.full(support.shape, 1.0 / LAW_POINTS))
