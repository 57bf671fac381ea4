"""The Sparse Vector Technique for θ (SPEC §2.1): the public grid, the draw for many trials at
once, and the law of the index it fires at.
"""


from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from dpsum_core import limits
from dpsum_core.data.dataset import Statistics
from dpsum_core.errors import DpsumError, ParameterError
from dpsum_core.noise import Noise, as_noise
from dpsum_core.text import number
from dpsum_core.truncation.choice import (
    LAW_POINTS,
    ThetaLaw,
    ThresholdChoice,
    _laplace_cdf,
    _laplace_quantile_midpoints,
)
from dpsum_core.truncation.method import START_FRACTION, Param, Truncation
from dpsum_core.truncation.method import Values as TruncationParams
from dpsum_core.validation import (
    check_choice,
    check_positive,
    check_unit_interval,
    check_upper,
)

SVT_VARIANTS: tuple[str, ...] = ("paper", "tight")


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
            f"the SVT grid u_k = s·c^(k−1) from s = {number(s)} up to U = {number(upper)} with c = {c!r} "
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
    data: Statistics, *, upper: float, params: TruncationParams, tau: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """SVT's public grid u (K,) and its private test statistics g_k = f_k − r·N: shape (K,), or
    (m, K) on each query's records {t ≤ τ_i} when ``tau`` is given (see :func:`svt_theta`)."""
    u = svt_grid(upper, s=SVT_S.in_force(params, upper), c=params.svt_c)
    if tau is None:
        points = u
        total: int | np.ndarray = data.size
    else:
        points = np.minimum(u[None, :], np.asarray(tau, float)[:, None])
        total = data.count_at_most(np.asarray(tau, float))[:, None]
    return u, data.count_at_most(points) - params.svt_r * np.asarray(total, float)


def svt_theta(
    data: Statistics,
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


def svt_laws(
    data: Statistics,
    *,
    epsilons: np.ndarray,
    upper: float,
    params: TruncationParams,
    tau: np.ndarray | None = None,
) -> list[ThetaLaw]:
    """The law of SVT's θ at each ε_θ in ``epsilons``: the grid u_k with the probabilities of
    :func:`svt_index_probabilities` (the gaps are computed once for every ε), and U when it
    never fires. Shapes as :class:`~dpsum_core.truncation.choice.ThetaLaw`."""
    m = None if tau is None else np.asarray(tau).size
    u, gaps = svt_gaps(data, upper=upper, params=params, tau=tau)
    support = np.append(u, float(upper))
    if m is not None:
        support = np.broadcast_to(support[:, None], (support.size, m))
    laws = []
    for e in np.atleast_1d(epsilons):
        b_eta, b_nu = svt_scales(float(e), r=params.svt_r, variant=params.svt_variant)
        probs = svt_index_probabilities(gaps, b_eta=b_eta, b_nu=b_nu)  # (K+1,) or (m, K+1)
        laws.append(ThetaLaw(support, probs if m is None else probs.T))
    return laws


def svt_cut_points(params: TruncationParams, upper: float) -> np.ndarray:
    """The public points SVT counts at: its grid u_k for U (a data summary must hold them)."""
    return svt_grid(upper, s=SVT_S.in_force(params, upper), c=params.svt_c)


def svt_distinct_thetas(params: TruncationParams, upper: float, trials: int) -> int:
    """Distinct θ over ``trials`` trials (for cost estimates): a grid point each, or U when
    SVT never fires, so at most K + 1."""
    grid = svt_grid_size(upper, s=SVT_S.in_force(params, upper), c=params.svt_c)
    return min(trials, grid + 1)


def _check_c(value: float) -> None:
    c = check_positive(value, "svt c")
    if c <= 1:
        raise ParameterError(f"svt c (grid ratio) must be > 1, got {c:g}")


def c_floor(upper: float, get: Callable[[str], Any]) -> float | None:
    """The smallest grid ratio c for U and the given s (at most MAX_SVT_GRID points), as the c
    widget's minimum — only while the current c is above it, so that a later change of U or s
    that makes c too small shows the engine's message instead of silently resetting c (a
    widget resets a value outside new bounds). ``None`` when U or s is not usable."""
    try:
        s = get("svt_s")
        s = upper * START_FRACTION if s is None else float(s)
        c_min = svt_c_min(check_upper(upper), s=check_positive(s, "svt s"))
    except (TypeError, DpsumError):
        return None
    c = get("svt_c")
    return c_min if c_min is not None and c is not None and c >= c_min else None


START_HELP = (
    f"Empty: U/{1 / START_FRACTION:g}, which follows the column's unit (dollars per year, per "
    "week, per hour). The paper used 50 000 with U = 800 000. A public constant: never tune it "
    "on the data."
)
START_TEXT = f"default U/{1 / START_FRACTION:g} (follows the column's unit)"

SVT_S = Param(
    "svt_s", "--svt-s", "s (first grid point)", help=f"SVT grid start s, {START_TEXT}",
    check=lambda v: check_positive(v, "svt s"), per_upper=True, step=10_000.0, low=0.0,
    high=limits.MAX_UPPER, explain=START_HELP,
)  # fmt: skip
PARAMS = (
    Param("svt_variant", "--svt-variant", "Variant", default="paper", choices=SVT_VARIANTS,
          help="SVT's noise: paper (Dwork–Roth AboveThreshold) or tight (Lyu–Su–Li split); "
               "default paper",
          check=lambda v: check_choice(v, "svt variant", SVT_VARIANTS),
          explain="paper: Dwork–Roth AboveThreshold (b_η = 2/ε_θ, b_ν = 4/ε_θ); "
                  "tight: Lyu–Su–Li budget split."),
    Param("svt_r", "--svt-r", "r (fraction)", default=0.998,
          help="SVT looks for the first grid point below which this fraction of the records "
               "lie (default 0.998)",
          check=lambda v: check_unit_interval(v, "svt r"), low=0.0, high=1.0, step=0.001,
          explain="SVT looks for the first grid point below which an r-fraction of the "
                  "records lie."),
    Param("svt_c", "--svt-c", "c (grid ratio)", default=1.2, check=_check_c, low=1.0,
          help=f"ratio of SVT's grid u_k = s·c^(k−1) up to its first point at or above U, at "
               f"most {limits.MAX_SVT_GRID:,} "
               "points (default 1.2)",
          step=0.05, floor=c_floor,
          explain=lambda c_min: f"Grid u_k = s·c^(k−1) up to its first point at or above U, at most "
          f"{limits.MAX_SVT_GRID:,} points" + (f": c ≥ {c_min:g} for this U and s." if c_min
                                                 else ".")),
    SVT_S,
)  # fmt: skip

RECORDS = (
    Truncation("svt", "SVT", "solid", 2, True, svt_theta, svt_laws, svt_cut_points,
               distinct_thetas=svt_distinct_thetas, params=PARAMS,
               description="θ chosen privately with the sparse vector technique (SVT), spending "
                           "ε_θ", source="SVT (AboveThreshold)"),
)  # fmt: skip
