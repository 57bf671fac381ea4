"""RawSum: measure raw per-bin sums, reconstruct by weighted least squares, choose θ afterwards.

The design note is RAWSUM.md in the project's shared material. The count-based algorithms
weight every record by its bin's upper edge, which leaves a discretisation floor no ε removes;
RawSum measures the raw sums s_j = Σ_{t in bin j} t instead, so its answers are unbiased before
the post-hoc drop of the top bins, and it spends nothing on θ.

1. Measure (ε split 0.3 / 0.7, public constants): geometric *shells* of bins (bin-index edges
   0, 1, 2, 4, …, 2^k, …, n) with Z_k = Σ_{t in shell k} t + Lap(g_k/(0.3ε)), g_k the shell's
   top edge; and GreedyH(W·diag(e)) rows on the scaled sums s_j/e_j with Lap(1/(0.7ε)).
2. Reconstruct ŝ by weighted least squares over all rows (a pseudo-inverse: GreedyH may
   collapse cells), one matrix product for all trials.
3. Scan the shells (post-processing): k̂ = the largest shell whose estimated mass exceeds
   z·sd (z = 2); θ* = the smallest public candidate ≥ g_k̂.
4. Answer ŷ_i = Σ_{j ≤ J_i, midpoint_j ≤ θ*} ŝ_j (bins above θ* are dropped, not clipped).
"""


from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from dpsum_core import limits
from dpsum_core.checkpoint import checkpoint
from dpsum_core.data.domain import Domain, bin_sums
from dpsum_core.mechanisms.algorithm import POSTHOC, POSTHOC_THETA, Algorithm
from dpsum_core.mechanisms.bounds import IntervalInputs, IntervalRule, Linear
from dpsum_core.mechanisms.cost import (
    PRODUCT_SECONDS,
    Seconds,
    Work,
    design_seconds,
    per_theta,
    strategy_seconds,
    vectorised,
)
from dpsum_core.mechanisms.greedy_h import cached_greedy_h
from dpsum_core.mechanisms.lru import LRU
from dpsum_core.mechanisms.measurement import Inputs, Measurement
from dpsum_core.mechanisms.workloads import Workload
from dpsum_core.noise import Noise, as_noise

if TYPE_CHECKING:
    from scipy import sparse

SHELL_SHARE = 0.3  # of ε on the shells; the rest on the GreedyH rows (RAWSUM.md)
SCAN_Z = 2.0  # a shell is "occupied" when its estimated mass exceeds SCAN_Z standard deviations
MIN_THETA_BIN = 10  # θ* is never below the 10th bin edge


def shell_edges(n: int) -> np.ndarray:
    """Bin-index edges 0, 1, 2, 4, …, 2^k, …, n (shell k covers bins edges[k-1]+1 … edges[k])."""
    powers = [0] + [2**k for k in range(max(1, math.ceil(math.log2(n))) + 1) if 2**k < n]
    return np.array([*powers, n], dtype=np.int64)


def theta_candidates(domain: Domain) -> np.ndarray:
    """The public post-hoc θ grid {e_j : j = round(2^{i/4}) ≥ 10} ∪ {∞}, ascending."""
    n = domain.bins
    top = math.ceil(4 * math.log2(max(n, 2)))
    j = np.unique(np.round(2.0 ** (np.arange(top + 1) / 4.0)).astype(np.int64))
    j = j[(j >= min(MIN_THETA_BIN, n)) & (j <= n)]
    return np.concatenate([domain.edges[j - 1], [np.inf]])


@dataclass(frozen=True, eq=False)
class RawSumDesign:
    """Everything RawSum needs that depends on public inputs only (U, n, the workload).

    Rows are whitened (divided by their noise scale b_r at ε = 1: B_w = B / b). With the normal
    matrix N = B_wᵀB_w and its (pseudo-)inverse N⁺, the least-squares estimate is
    ŝ = N⁺·B_wᵀ·(Z / b) at any ε (the 1/ε of the scales cancels), Cov(ŝ) = 2N⁺/ε² and
    E[ŝ] = N⁺N·s.
    """

    domain: Domain
    workload: Workload
    shells: np.ndarray  # bin-index edges (K + 1,)
    shell_top: np.ndarray  # g_k, the top edge of each shell (K,)
    B: sparse.csr_matrix  # (K + rows) × n, coefficients on the raw sums s
    scale: np.ndarray  # Laplace scale b_r of each row at ε = 1
    normal_inverse: np.ndarray  # N⁺ (n × n)
    full_rank: bool

    @property
    def K(self) -> int:
        """Number of shells."""
        return int(self.shell_top.size)

    @cached_property
    def whitened(self) -> sparse.csr_matrix:
        """B_w = diag(1/b)·B (sorted indices, see :func:`_build`)."""
        from scipy import sparse  # here, not at import: `dpsum --help` starts without scipy

        whitened = sparse.csr_matrix(sparse.diags(1.0 / self.scale) @ self.B)
        whitened.sort_indices()
        return whitened

    def solve(self, z_whitened: np.ndarray) -> np.ndarray:
        """ŝ = N⁺·B_wᵀ·z_w for every row of ``z_whitened`` (trials × rows → trials × n)."""
        return np.asarray(self.whitened.T @ z_whitened.T).T @ self.normal_inverse

    @cached_property
    def covariance(self) -> np.ndarray:
        """Cov(ŝ) at ε = 1: every whitened row has variance 2 (Lap(1)), so 2·N⁺N N⁺ = 2·N⁺."""
        return 2.0 * self.normal_inverse

    @cached_property
    def projection(self) -> np.ndarray:
        """E[ŝ] = R·s with R = N⁺N (the identity when the design has full column rank)."""
        if self.full_rank:
            return np.eye(self.domain.bins)
        N = (self.whitened.T @ self.whitened).toarray()
        return self.normal_inverse @ N

    @cached_property
    def prefix_variance(self) -> np.ndarray:
        """Var(Σ_{j ≤ J} ŝ_j) at ε = 1 for J = 1..n: the diagonal of the 2-D cumulative sum."""
        return np.diagonal(np.cumsum(np.cumsum(self.covariance, axis=0), axis=1)).copy()

    @cached_property
    def shell_matrix(self) -> np.ndarray:
        """K × n indicator of the bins of each shell."""
        return self.B[: self.K].toarray()

    @cached_property
    def shell_sd(self) -> np.ndarray:
        """Standard deviation of each shell's estimated mass at ε = 1."""
        S = self.shell_matrix
        return np.sqrt(((S @ self.covariance) * S).sum(axis=1))

    def loss_per_bin(self, scale: np.ndarray) -> np.ndarray:
        """Exact privacy loss of a record in bin j, Σ_rows |B_rj|·e_j / b_r, when row r gets
        Lap(b_r) noise (``scale``).

        A record t ≤ e_j in bin j moves s_j by t, hence row r by at most |B_rj|·e_j.
        """
        from scipy import sparse  # here, not at import: `dpsum --help` starts without scipy

        weighted = sparse.diags(1.0 / np.asarray(scale, float)) @ abs(self.B)
        return np.asarray(weighted.sum(axis=0)).ravel() * self.domain.edges


def _build(domain: Domain, workload: Workload) -> RawSumDesign:
    import scipy.linalg  # here, not at import: `dpsum --help` starts without scipy
    from scipy import sparse

    n, e = domain.bins, domain.edges
    shells = shell_edges(n)
    K = shells.size - 1
    sizes = np.diff(shells)
    S = sparse.csr_matrix((np.ones(n), (np.repeat(np.arange(K), sizes), np.arange(n))), (K, n))
    shell_top = e[shells[1:] - 1]
    checkpoint()  # each stage is seconds at thousands of bins: stoppable between them
    A = cached_greedy_h(workload.counts, n, e)  # GreedyH(W·diag(e)) = TaMM's strategy at θ = ∞
    checkpoint()
    B = sparse.csr_matrix(sparse.vstack([S, A.matrix @ sparse.diags(1.0 / e)]))
    # Canonical (sorted) index order from the start: scipy sorts indices in place on some
    # operations, which would change the summation order of later products and so the last
    # bits of the answers — the same seed must give bit-identical answers.
    B.sum_duplicates()
    B.sort_indices()
    scale = np.concatenate([shell_top / SHELL_SHARE, np.full(A.rows, 1.0 / (1.0 - SHELL_SHARE))])
    Bw = sparse.diags(1.0 / scale) @ B
    N = (Bw.T @ Bw).toarray()
    # GreedyH has full column rank except where it collapsed cells (bins no query covers);
    # there the system is rank-deficient and a pseudo-inverse keeps every estimable functional
    # (in particular W·s) unbiased.
    full_rank = bool(workload.counts.max() == n)
    checkpoint()
    if full_rank:
        inverse = scipy.linalg.cho_solve(scipy.linalg.cho_factor(N), np.eye(n))
    else:
        inverse = scipy.linalg.pinvh(N)
    return RawSumDesign(domain, workload, shells, shell_top, B, scale, inverse, full_rank)


def design_bytes(d: RawSumDesign) -> int:
    """Bytes a design holds once used: N⁺ and, built lazily, the covariance and the projection
    (three n × n float64 matrices), plus its sparse rows."""
    n = d.domain.bins
    return 3 * 8 * n * n + int(d.B.data.nbytes + d.B.indices.nbytes + d.B.indptr.nbytes)


# Process-wide: the key is public (U, n, the workload), so a hit reveals nothing about anyone's
# data. Bounded in bytes: eight designs at 5 000 bins would hold ≈ 5 GB.
_DESIGNS: LRU[RawSumDesign] = LRU(8, limits.MAX_DESIGN_CACHE_BYTES, design_bytes)


def design(domain: Domain, workload: Workload) -> RawSumDesign:
    """The cached :class:`RawSumDesign` for (U, n, workload): public inputs only, so a cache hit
    reveals nothing about anyone's data."""
    key = (domain.upper, domain.bins, workload.counts.tobytes())
    return _DESIGNS.get(key, lambda: _build(domain, workload))


def choose_theta(d: RawSumDesign, s_hat: np.ndarray, epsilon: float | np.ndarray) -> np.ndarray:
    """θ* per trial from the reconstructed sums (post-processing: reads only ŝ and public d).

    k̂ = the largest shell with M̂_k > z·sd_k (the first shell if none); θ* = the smallest
    candidate ≥ g_k̂, ∞ when g_k̂ = U.
    """
    mass = s_hat @ d.shell_matrix.T  # trials × K
    occupied = mass > SCAN_Z * d.shell_sd[None, :] / epsilon
    last = d.K - 1 - np.argmax(occupied[:, ::-1], axis=1)
    k_hat = np.where(occupied.any(axis=1), last, 0)
    g = d.shell_top[k_hat]
    cand = theta_candidates(d.domain)
    theta = cand[np.searchsorted(cand, g, side="left")]
    return np.where(g >= d.domain.upper, np.inf, theta)


def expected_theta(inputs: Inputs, epsilons: np.ndarray) -> np.ndarray:
    """θ* that the scan picks on the noise-free reconstruction R·s at each budget in
    ``epsilons`` (shape (e,)): RawSum's typical θ, for analytic error without drawing noise
    (the decision view).

    Privacy
    -------
    Read from the exact bin sums: for the data holder's analysis only, never a release.
    """
    d = design(inputs.domain, inputs.workload)
    expected = d.projection @ bin_sums(inputs.data, inputs.domain)
    # one row per ε: the scan's noise sd scales as 1/ε (choose_theta broadcasts it)
    eps = np.asarray(epsilons, float)
    return choose_theta(d, np.broadcast_to(expected, (eps.size, expected.size)), eps[:, None])


def kept_bins(domain: Domain, theta: np.ndarray) -> np.ndarray:
    """Number of leading bins kept at each θ: #{j : midpoint_j ≤ θ}."""
    e = domain.edges
    mid = (np.concatenate(([0.0], e[:-1])) + e) / 2
    return np.searchsorted(mid, np.asarray(theta, float), side="right")


def answers_at(d: RawSumDesign, s_hat: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """ŷ_i = Σ_{j ≤ J_i, midpoint_j ≤ θ} ŝ_j per trial (bins above θ dropped)."""
    keep = np.arange(d.domain.bins)[None, :] < kept_bins(d.domain, theta)[:, None]
    return d.workload.prefix(np.where(keep, s_hat, 0.0))


def reconstruct(
    inputs: Inputs, trials: int, *, epsilon: float, rng: np.random.Generator | Noise
) -> tuple[RawSumDesign, np.ndarray, float]:
    """RawSum's measurement and least-squares reconstruction: (design, ŝ (trials × n), ε spent).

    Privacy
    -------
    The only step that touches the data. A record with cleaned value t ≤ U lies in one shell
    k (t ≤ g_k) and moves its sum by t ≤ g_k: loss ≤ 0.3ε; it lies in one bin j (t ≤ e_j)
    and moves each GreedyH row covering j by w_r·t/e_j ≤ w_r, with Σ w_r = 1: loss ≤ 0.7ε.
    Sequential composition gives ε, computed exactly per bin by
    :meth:`RawSumDesign.loss_per_bin` from the scales used and returned as the ε spent. N is
    never used; the least squares are post-processing.
    """
    d = design(inputs.domain, inputs.workload)
    s = bin_sums(inputs.data, inputs.domain)
    exact = d.B @ s
    scale = d.scale / epsilon
    z = as_noise(rng).add_laplace(np.broadcast_to(exact, (trials, exact.size)), scale[None, :])
    s_hat = d.solve(z / d.scale[None, :])  # the 1/ε of the scales cancels in least squares
    return d, s_hat, float(d.loss_per_bin(scale).max())


def rawsum(
    inputs: Inputs, theta: np.ndarray, *, epsilon: float, rng: np.random.Generator | Noise
) -> Measurement:
    """RawSum for ``len(theta)`` trials (``theta`` only gives the trial count: θ is chosen after
    measuring). The measurement carries θ* per trial.

    Privacy
    -------
    ε (see :func:`reconstruct`); the shells, the strategy and the θ grid depend on public
    inputs only, and everything after the noisy vector (least squares, scan, θ*, drop) is
    post-processing.
    """
    d, s_hat, spent = reconstruct(inputs, np.asarray(theta).shape[0], epsilon=epsilon, rng=rng)
    theta_star = choose_theta(d, s_hat, epsilon)
    return Measurement(answers_at(d, s_hat, theta_star), spent, theta_star)


def rawsum_error(inputs: Inputs, theta: np.ndarray, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """Squared bias and variance of every query if θ* were ``theta`` (k × m).

    bias_i = Σ_{j ≤ min(J_i, J*)} (R·s)_j − y_i (the dropped mass, plus any non-estimable part
    where GreedyH collapsed cells), var_i = Var(Σ_{j ≤ min(J_i, J*)} ŝ_j). For a run the error is
    averaged over the θ* the trials chose; that ignores the (weak) dependence of θ* on the same
    noise, so it is the error of RawSum *given* its θ*.
    """
    d = design(inputs.domain, inputs.workload)
    s = bin_sums(inputs.data, inputs.domain)
    mean_cum = np.concatenate(([0.0], np.cumsum(d.projection @ s)))
    var_cum = np.concatenate(([0.0], d.prefix_variance)) / epsilon**2
    J = np.minimum(inputs.workload.counts[None, :], kept_bins(d.domain, theta)[:, None])
    bias = mean_cum[J] - inputs.true_answers[None, :]
    return bias**2, var_cum[J]


# The registry's records of this family (dpsum_core.mechanisms.registry collects them).
def rawsum_cost(work: Work) -> Seconds:
    """A vectorised pass and a (trials × n)·(n × n) reconstruction per run; the dense design
    (cubic in n, cached per (U, n, workload)) and its GreedyH once per click."""
    n = work.bins
    return Seconds(
        vectorised(work).run + PRODUCT_SECONDS * work.trials * n * n,
        once=design_seconds(n) + strategy_seconds(n),
        strategies=1,
    )


def rawsum_error_cost(work: Work) -> Seconds:
    """The error at each θ, vectorised; the dense design and its GreedyH once per click (its
    expected θ* at each ε reads the same design)."""
    n = work.bins
    return Seconds(
        per_theta(work).run, once=design_seconds(n) + strategy_seconds(n), strategies=1
    )


def rawsum_bounds(inputs: IntervalInputs) -> Linear:
    """RawSum's full-prefix estimate Σ_{j ≤ J_i} ŝ_j from its noisy rows (least squares, SPEC
    RAWSUM.md): unbiased for the true prefix sum whatever θ* the scan chose (it ignores θ*, so
    choosing θ* from the same noise does not bias it); sd from the design's covariance."""
    workload = inputs.workload
    d = design(inputs.domain, workload)
    s_hat = d.solve(np.asarray(inputs.draw, float).reshape(1, -1) / d.scale[None, :])[0]
    est = np.cumsum(s_hat)[workload.counts - 1]
    sd = np.sqrt(np.maximum(d.prefix_variance[workload.counts - 1], 0.0)) / inputs.epsilon
    return Linear(est, sd, est, sd)


RECORDS = (
    Algorithm(
        name="rawsum",
        label="RawSum",
        color="#CC79A7",
        dash="3px,3px,12px,3px",
        symbol="star",
        measures="raw per-bin sums: geometric shells + GreedyH(W·diag(e)) rows",
        theta_rule=POSTHOC,
        own_theta=POSTHOC_THETA,
        measure=rawsum,
        error=rawsum_error,
        stream_id=7,  # 6 is SQM's per-query θ stream (simulate.streams.SQM_THETA_STREAM)
        posthoc_theta=expected_theta,
        cost=rawsum_cost,
        error_cost=rawsum_error_cost,
        interval=IntervalRule(
            rawsum_bounds,
            "RawSum's unbiased full-prefix estimate (all measured bins, whatever θ* dropped) "
            "± the noise's 97.5 % margins",
        ),
    ),
)
