"""ClampShells: locate a clamp point θ* privately from geometric shells, then measure clamped
shell sums below it (the design note is CLAMPSHELLS.md in the project's shared material).

Privacy argument (CLAMPSHELLS.md § Privacy; add/remove one record, N never used):

1. *Stage 1, pε (p = 0.25).* Ratio-2 shells of bins over the whole domain; a record with cleaned
   value t ≤ U lies in exactly one shell k (t ≤ g_k, its top value) and moves only that shell's
   raw sum, by t: with Lap(g_k/(pε)) the loss is t·pε/g_k ≤ pε.
2. *Stage 2, (1−p)ε, for every J* stage 1 can output.* J* (and θ* = e_{J*}) is a function of
   stage 1's noisy output only — the top significant shell's edge, one shell higher when the
   noisy sums still grow there (ratios of the noisy sums, no new measurement; J* stays a
   shell edge ≥ jmin or n; :mod:`dpsum_core.mechanisms.clampshells_locate`) — so stage 2 is a
   fixed Laplace mechanism given J*: every record is clamped, c = min(t, θ*), and lies in
   exactly one *part* of bins 1..J*: the ratio-2 shells, and at depth 0 bin n on its own (the
   top shell stops at n − 1; the part exists only when J* = n, so it is still a partition,
   and it holds the point mass at U that cleaning creates). Inside a part, a public tree
   (depth chosen from the public ε only; depth 0 is the plain design) has λ distinct levels;
   the record lies in one node per level and moves it by c ≤ g_node: with
   Lap(g_node·λ/((1−p)ε)) the loss is ≤ λ·(1−p)ε/λ = (1−p)ε.
3. *A public cap* (a top code the user states as public knowledge, ``Inputs.public_cap``,
   never read from the data): J* is the lowest shell edge whose θ* covers the cap's bin, a
   constant, so there is no stage 1 and stage 2 is one fixed Laplace mechanism with all of ε
   (scales g_node·λ/ε: loss ≤ ε). A value above a wrong cap is clamped, never leaked.
4. Adaptive sequential composition: ε. Least squares inside each part, the GLS update of the
   parts below the top active one with stage 1's noisy sums of the same shells (no record is
   clamped there, so both measure the same raw sums; the tail scan keeps stage 2's own,
   larger, variances), the tail scan, cumulative sums, interpolation (quadratic inside a leaf
   at depth 0, with public weights), the clamped total above θ*, the onset gate (answers
   before the first one above z noise sds, or before a positive one whose next answer is
   above ten (five at depth ≥ 2) of its sds, are 0: the sds come from the public design and
   J*, z from them and the public δ of the error metric;
   :mod:`dpsum_core.mechanisms.clampshells_answers`), isotonic regression and clipping are
   post-processing: functions of the noisy output and public inputs only.

Measured (``python bench/accuracy.py --suite --trials 50``: nine synthetic columns, Q1 and Q2,
ε ∈ {0.01, 0.03, 0.1, 0.3, 1}, isotonic on; the raise, the GLS update, the onset gate and the
tree depths were tuned on the tuning split, columns seeds 7 and 8, and are reported on the
reporting split, columns seed 2024, never on sample_data; bench/ACCURACY.md has the table):
TaMM+SVT (s = U/40) / ClampShells on the median over queries is 3.8–9.0× at ε = 0.01 (5.7× on
the 5 000-row annual column, 8.2–8.4× on the top-coded one) and 1.1–9.0× everywhere;
ClampShells is within 10 % of the best of all algorithms on the median in 89 of 90 cells (worst
1.12×, hourly, Q2, ε = 1, behind RawSum) and on the mean over queries in 82 of 90 (worst 1.76×:
hourly at ε = 0.3, whose heaps at whole dollars sit inside the leaves, and the first Q2 query
of the bimodal and rounded columns at ε = 1, 1.13× and 1.15×).

Sums are exact: every cell sum is the correctly rounded *exact* sum of the records in the cell
(integer limbs, :mod:`dpsum_core.data.exact`), so adding a record changes only the one sum it
belongs to, bit for bit (never a difference of rounded running totals).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from itertools import pairwise
from typing import TYPE_CHECKING

import numpy as np

from dpsum_core import limits
from dpsum_core.checkpoint import checkpoint
from dpsum_core.data.dataset import Dataset, Statistics
from dpsum_core.data.domain import Domain
from dpsum_core.data.exact import prefix_limbs, to_units, units_to_float, value_units
from dpsum_core.data.summary import DataSummary, MissingStatistics
from dpsum_core.mechanisms.algorithm import INSIDE, INSIDE_THETA, Algorithm
from dpsum_core.mechanisms.clampshells_answers import (
    SHAPE_MAX_LEVELS,
    answer_sd,
    answers_from_cells,
    onset_gate,
    onset_next_z,
    tail_scan,
)
from dpsum_core.mechanisms.clampshells_locate import (
    LOCATE_SHARE,
    MIN_CLAMP_BIN,
    clamp_law,
    combine_stage1,
    locate_measured,
    public_clamp_bin,
)
from dpsum_core.mechanisms.lru import LRU
from dpsum_core.mechanisms.measurement import Inputs, Measurement
from dpsum_core.mechanisms.rawsum import shell_edges
from dpsum_core.noise import Noise, as_noise

if TYPE_CHECKING:
    from scipy import sparse

# LOCATE_SHARE (p), LOCATE_Z (z₁), MIN_CLAMP_BIN (jmin) and HEAVY_RATIO: stage 1's constants,
# in clampshells_locate.
# The larger-ε remedy (public: driven by ε only). Interpolating inside a ratio-2 shell has a
# bias no ε removes. As ε grows, stage 2 measures a tree inside every shell: levels 0..L, level
# ℓ cutting the shell into min(B^ℓ, width) equal parts (B = 8), the shell's (1−p)ε split evenly
# over its distinct levels, leaves reconstructed by least squares; answers interpolate inside
# leaves. L = round(log_B(ε / TREE_FROM)), clipped to [0, TREE_MAX]: L = 0 (the plain design)
# below ε ≈ 0.057, 1 (8 leaves per shell) up to ε ≈ 0.45, 2 (64) up to ε ≈ 3.6. Swept on
# synthetic columns (bench/columns.py, seed 1; B ∈ {2, 4, 6, 8, 12, 16, 32}, L ∈ 0..10,
# p ∈ {0.1, 0.15, 0.25}), never on sample_data. TREE_FROM was 0.0125 (depth 2 from ε ≈ 0.28);
# issue 26's suite (tuning columns seeds 7 and 8, L ∈ 0..3 at each ε) found depth 1 better at
# ε = 0.3: median over queries 0.74–0.75× (geometric mean over 18 cells), within 10 % of the
# best in 18 of 18 cells on the median (16 before); the hourly column's mean over queries,
# whose heaps at whole dollars sit inside the 8 leaves, is the cost (1.3× → 1.8× the best).
# Shape at depth 0 (small ε, where a leaf is a whole ratio-2 shell): bin n measured on its own
# (the point mass at U) and quadratic interpolation inside a leaf (:func:`curvature`). Deeper
# trees have leaves fine enough that both cost more than they gain (synthetic columns, seeds 7
# and 8 of bench/columns.py, never the evaluation seed 2024 or sample_data).
TREE_FROM = 0.02
TREE_BRANCH = 8
TREE_MAX = 3


def levels_for(epsilon: float) -> int:
    """Tree depth L inside every shell at total budget ``epsilon`` (public: ε only)."""
    if epsilon <= TREE_FROM:
        return 0
    return int(min(TREE_MAX, max(0, round(math.log(epsilon / TREE_FROM, TREE_BRANCH)))))


@dataclass(frozen=True, eq=False)
class ClampShellsDesign:
    """Everything ClampShells needs that depends on public inputs only (U, n, the tree depth).

    ``shells`` are stage 1's bin-index edges 0, 1, 2, 4, …, n. Stage 2 measures *nodes*: for
    each shell its distinct partitions into min(2^ℓ, width) equal parts, ℓ = 0..L; the finest
    are the *cells* (leaves). A shell with λ distinct levels gives each node
    Lap(g_node·λ/((1−p)ε)): a record lies in one node per level, so its loss is ≤ (1−p)ε.
    The partitions for any J* stage 1 outputs are *prefixes* of these (whole shells), because
    J* is always a shell edge (a power of two ≥ jmin, or n).

    Scales and (co)variances are stored at ε = 1 (they scale as 1/ε and 1/ε²).
    """

    domain: Domain
    levels: int
    shells: np.ndarray  # (K + 1,) stage 1's bin-index edges
    shell_top: np.ndarray  # g_k (K,), stage 1
    parts: np.ndarray  # stage 2's bin-index edges: ``shells`` with bin n on its own (n − 1 added)
    node_lo: np.ndarray  # (N,) bin-index edges: node covers bins lo+1..hi
    node_hi: np.ndarray
    node_shell: np.ndarray  # (N,)
    node_scale: np.ndarray  # (N,) Laplace scale at ε = 1
    cells: np.ndarray  # (C + 1,) leaf edges, a refinement of ``parts``
    cell_shell: np.ndarray  # (C,)
    reconstruct: sparse.csr_matrix  # (C × N): least-squares leaves from the nodes of each shell
    leaf_cov: tuple[np.ndarray, ...]  # per shell, Cov of its leaf estimates at ε = 1

    @property
    def min_clamp_bin(self) -> int:
        """jmin, capped at n."""
        return min(MIN_CLAMP_BIN, self.domain.bins)

    def clamp_bins(self) -> np.ndarray:
        """Every J* stage 1 can output, ascending: the shell edges ≥ jmin (n included)."""
        edges = self.shells[1:]
        return edges[edges >= self.min_clamp_bin]

    def shells_below(self, j_star: np.ndarray | int) -> np.ndarray:
        """Number of stage-2 parts (shells, and bin n on its own) covering bins 1..J*."""
        return np.searchsorted(self.parts, np.asarray(j_star), side="left")

    @property
    def point_top(self) -> bool:
        """Whether the top bin n is a stage-2 part of its own (the point mass at U)."""
        return self.parts.size > self.shells.size

    @cached_property
    def shell_var(self) -> np.ndarray:
        """Var of each shell's estimated total at ε = 1."""
        return np.array([c.sum() for c in self.leaf_cov])

    @cached_property
    def leaf_moments(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per leaf c, at ε = 1: Var(Σ of the earlier leaves of its shell), Cov(that sum, x̂_c),
        Var(x̂_c) and Var(Σ of the leaves of its shell from c on)."""
        return _moments(self.leaf_cov)

    @cached_property
    def combined_moments(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """:attr:`leaf_moments` after the GLS update with stage 1 (:attr:`stage1_gls`), and the
        shells' variances (the fourth entry is the per-shell variance here, not the suffix)."""
        before, cov, var, _ = _moments(self.stage1_gls[1])
        return before, cov, var, np.array([c.sum() for c in self.stage1_gls[1]])

    @cached_property
    def stage1_gls(self) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
        """Stage 1's noisy sum of a shell combined with stage 2's leaves of the same shell by
        generalised least squares (a rank-one update), for every part that is a stage-1 shell:
        per leaf the gain V1/(1ᵀV1 + σ₁²) (0 in the other parts), and per part the leaves'
        covariance after combining, V − V11ᵀV/(1ᵀV1 + σ₁²) (V itself elsewhere); V the leaves'
        covariance, σ₁² = 2(g_k/p)² stage 1's variance, both at ε = 1, so the gain holds at
        every ε. Valid for the parts below the top active one, where no record is clamped
        (raw sum = clamped sum)."""
        gains, combined = [], []
        K = self.shells.size - 1
        for k, V in enumerate(self.leaf_cov):
            if k < K and self.parts[k + 1] == self.shells[k + 1]:
                v1 = V.sum(axis=1)
                denom = v1.sum() + 2.0 * (self.shell_top[k] / LOCATE_SHARE) ** 2
                gains.append(v1 / denom)
                combined.append(V - np.outer(v1, v1) / denom)
            else:
                gains.append(np.zeros(V.shape[0]))
                combined.append(V)
        return np.concatenate(gains), tuple(combined)

    def loss_per_bin(self, epsilon: float) -> np.ndarray:
        """Exact stage-2 loss of a record at e_j (its worst value in bin j), Σ_{nodes ∋ j} e_j/b,
        at total budget ``epsilon``, for every bin j (the same for every J* ≥ j: a clamped
        record above θ* sits at θ* = e_{J*}, the top of bin J*)."""
        n = self.domain.bins
        inv = np.zeros(n + 1)
        np.add.at(inv, self.node_lo, epsilon / self.node_scale)
        np.add.at(inv, self.node_hi, -epsilon / self.node_scale)
        return np.cumsum(inv)[:n] * self.domain.edges


def _moments(covs: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per leaf c of parts with leaf covariances ``covs``: Var(Σ of the earlier leaves of its
    part), Cov(that sum, x̂_c), Var(x̂_c) and Var(Σ of the leaves of its part from c on)."""
    before, cov, var, suffix = [], [], [], []
    for V in covs:
        P = np.cumsum(np.cumsum(V, axis=0), axis=1)
        r = V.shape[0]
        before.append(np.concatenate(([0.0], np.diagonal(P)[:-1])))
        cov.append(np.concatenate(([0.0], np.cumsum(V, axis=0)[np.arange(r - 1), np.arange(1, r)])))
        var.append(np.diagonal(V).copy())
        S = np.cumsum(np.cumsum(V[::-1, ::-1], axis=0), axis=1)
        suffix.append(np.diagonal(S)[::-1].copy())
    return tuple(np.concatenate(a) for a in (before, cov, var, suffix))  # type: ignore[return-value]


def _shell_tree(a: int, b: int, levels: int, branch: int) -> list[np.ndarray]:
    """Distinct nested partitions of bins a+1..b into min(B^ℓ, b − a) equal parts, ℓ = 0..L."""
    w = b - a
    parts = sorted({min(branch**ell, w) for ell in range(levels + 1)})
    return [np.array([a + round(i * w / m) for i in range(m + 1)], dtype=np.int64) for m in parts]


def _build_design(domain: Domain, levels: int, branch: int = 2) -> ClampShellsDesign:
    """The :class:`ClampShellsDesign` of (U, n, tree depth L, branching B): public inputs only."""
    e = domain.edges
    shells = shell_edges(domain.bins)
    n = domain.bins
    # Stage 2 measures bin n on its own: cleaning clips every value above U to U, so a point mass
    # often sits there; apart, it is neither smeared over the top shell by interpolation nor
    # does it cost any query below U noise (a record lies in one part either way).
    point = levels <= SHAPE_MAX_LEVELS and n - 1 > shells[-2]
    parts = np.insert(shells, -1, n - 1) if point else shells
    lo, hi, shell_of, scale, cells, cell_shell = [], [], [], [], [0], []
    blocks, covs = [], []
    for k, (a, b) in enumerate(pairwise(parts.tolist())):
        tree = _shell_tree(a, b, levels, branch)
        leaves = tree[-1]
        n_lo = np.concatenate([t[:-1] for t in tree])
        n_hi = np.concatenate([t[1:] for t in tree])
        b1 = e[n_hi - 1] * len(tree) / (1.0 - LOCATE_SHARE)
        # node × leaf incidence (leaves nest in every node), weighted least squares
        A = ((n_lo[:, None] <= leaves[None, :-1]) & (leaves[None, 1:] <= n_hi[:, None])).astype(float)
        Wt = 1.0 / (2.0 * b1**2)
        normal = A.T @ (A * Wt[:, None])
        inverse = np.linalg.inv(normal)
        blocks.append(inverse @ (A.T * Wt[None, :]))
        covs.append(inverse)  # Cov(x̂) = (AᵀΣ⁻¹A)⁻¹ with Σ = diag(2b²)
        lo.append(n_lo)
        hi.append(n_hi)
        shell_of.append(np.full(n_lo.size, k))
        scale.append(b1)
        cells.extend(leaves[1:].tolist())
        cell_shell.append(np.full(leaves.size - 1, k))
    node_lo, node_hi, node_shell, node_scale = (np.concatenate(x) for x in (lo, hi, shell_of, scale))
    cell_arr = np.array(cells, dtype=np.int64)
    for arr in (shells, parts, cell_arr, node_lo, node_hi, node_shell, node_scale):
        arr.setflags(write=False)
    from scipy import sparse  # here, not at import: `dpsum --help` starts without scipy

    op = sparse.csr_matrix(sparse.block_diag(blocks, format="csr"))
    op.sort_indices()
    return ClampShellsDesign(
        domain, levels, shells, e[shells[1:] - 1], parts, node_lo, node_hi, node_shell, node_scale, cell_arr,
        np.concatenate(cell_shell), op, tuple(covs),
    )


def design_bytes(d: ClampShellsDesign) -> int:
    """Bytes a design holds once used: its arrays, the sparse reconstruction, the leaf
    covariances and (built lazily) the four per-leaf moments."""
    op = d.reconstruct
    arrays = [d.shells, d.parts, d.node_lo, d.node_hi, d.node_scale, d.cells, *d.leaf_cov]
    return sum(a.nbytes for a in arrays) + op.data.nbytes * 2 + 32 * d.cells.size


# Process-wide: the key is public (U, n, L, B). Bounded in bytes, not only in entries.
_DESIGNS: LRU[ClampShellsDesign] = LRU(32, limits.MAX_CLAMPSHELLS_CACHE_BYTES, design_bytes)


def design(domain: Domain, levels: int, branch: int = 2) -> ClampShellsDesign:
    """The cached :class:`ClampShellsDesign` of (U, n, tree depth L, branching B): public
    inputs only, so a cache hit reveals nothing about anyone's data."""
    return _DESIGNS.get((domain, levels, branch), lambda: _build_design(domain, levels, branch))


def design_for(domain: Domain, epsilon: float) -> ClampShellsDesign:
    """The design used at total budget ``epsilon``."""
    return design(domain, levels_for(epsilon), TREE_BRANCH)


# --------------------------------------------------------------------------------------------
# Exact statistics of the data: the only reads of the records
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class EdgeStatistics:
    """Σ_{t ≤ e_j} t exactly (Python ints, units of 2⁻¹⁰⁴) and #{t ≤ e_j}, for j = 0..n (e_0 = 0
    stands for "nothing": both 0). Private."""

    units: list[int]
    counts: np.ndarray

    def interval_sums(self, edges: np.ndarray) -> np.ndarray:
        """Correctly rounded exact sums of the records in bins (edges[i], edges[i+1]]."""
        u = self.units
        idx = np.asarray(edges).tolist()
        return np.array([units_to_float(u[b] - u[a]) for a, b in pairwise(idx)])

    def clamped_sums(self, lo: np.ndarray, hi: np.ndarray, domain: Domain, j_star: int) -> np.ndarray:
        """Σ min(t, θ*) over the records of bins lo+1..hi of each interval (hi ≤ J*, θ* =
        e_{J*}), exact then rounded once: a raw sum, plus θ* for every record above θ* when the
        interval ends at J* (clamped records sit at θ*, the top of bin J*)."""
        above = int(self.counts[-1] - self.counts[j_star])
        extra = value_units(np.array([float(domain.edges[j_star - 1])]))[0] * above
        u = self.units
        return np.array(
            [
                units_to_float(u[b] - u[a] + (extra if b == j_star else 0))
                for a, b in zip(np.asarray(lo).tolist(), np.asarray(hi).tolist(), strict=True)
            ]
        )


def edge_statistics(data: Statistics, domain: Domain) -> EdgeStatistics:
    """:class:`EdgeStatistics` of a :class:`~dpsum_core.data.dataset.Dataset` or a
    :class:`~dpsum_core.data.summary.DataSummary`.

    What ClampShells needs from the data: counts and exact sums at every bin edge (a summary
    holds both at its cut points, which always include the edges). Clamped sums follow: the sum
    clamped at e_J is Σ_{t ≤ e_J} t + e_J·#{t > e_J}.

    Privacy
    -------
    Private statistics, read before any noise; never shown.
    """
    edges = domain.edges
    counts = np.concatenate(([0], np.asarray(data.count_at_most(edges), np.int64)))
    if isinstance(data, DataSummary):  # exact sums at held points
        held = np.searchsorted(data.points, edges)
        ok = (held < data.points.size) & (data.points[np.minimum(held, data.points.size - 1)] == edges)
        if not ok.all():
            raise MissingStatistics(edges[~ok], np.empty(0))
        units = [0, *data.units_at_most(edges)]
    elif isinstance(data, Dataset):
        idx = np.searchsorted(data.values, edges, side="right")
        units = [0, *(to_units(*s) for s in prefix_limbs(data.values, idx))]
    else:
        raise TypeError(f"ClampShells reads a Dataset or a DataSummary, got {type(data).__name__}")
    return EdgeStatistics(units, counts)


# --------------------------------------------------------------------------------------------
# The mechanism
# --------------------------------------------------------------------------------------------
def stage2_exact(stats: EdgeStatistics, d: ClampShellsDesign, j_star: int) -> np.ndarray:
    """Exact clamped sums of the stage-2 nodes of J* (the nodes of the shells below J*)."""
    nodes = d.node_shell < d.shells_below(j_star)
    return stats.clamped_sums(d.node_lo[nodes], d.node_hi[nodes], d.domain, j_star)


def measure_clamped(
    stats: EdgeStatistics,
    d: ClampShellsDesign,
    j_star: np.ndarray,
    *,
    epsilon: float,
    rng: Noise,
) -> tuple[np.ndarray, float]:
    """Stage 2: noisy clamped node sums (trials × N, zero in the shells above each trial's
    J*) and the ε spent ((1−p)ε). One draw over the active nodes of all trials.

    Privacy
    -------
    (1−p)ε given J*: a clamped record c = min(t, θ*) lies in one node per level of its shell
    (λ levels) and moves each by c ≤ g_node, with Lap(g_node·λ/((1−p)ε)):
    :meth:`ClampShellsDesign.loss_per_bin` computes the exact sum, returned as the ε spent.
    """
    trials, N = j_star.size, d.node_scale.size
    active = d.node_shell[None, :] < d.shells_below(j_star)[:, None]
    exact = np.zeros((trials, N))
    for j in np.unique(j_star).tolist():
        checkpoint()  # one group of trials per J*: stoppable between them
        rows = np.flatnonzero(j_star == j)
        sums = stage2_exact(stats, d, int(j))
        exact[rows[:, None], np.arange(sums.size)[None, :]] = sums
    cols = np.broadcast_to(np.arange(N), (trials, N))[active]
    z = np.zeros((trials, N))
    z[active] = rng.add_laplace(exact[active], d.node_scale[cols] / epsilon)
    spent = float(d.loss_per_bin(epsilon)[: int(j_star.max())].max()) if trials else 0.0
    return z, spent


def stage2_epsilon(epsilon: float, cap: float | None) -> float:
    """The ε at which the design's scales (stored for stage 2's share (1−p)ε at ε = 1) give
    stage 2's noise: ``epsilon`` itself, or ε/(1−p) with a public cap (all of ε on stage 2)."""
    return epsilon if cap is None else epsilon / (1.0 - LOCATE_SHARE)


def clampshells(
    inputs: Inputs, theta: np.ndarray, *, epsilon: float, rng: np.random.Generator | Noise
) -> Measurement:
    """ClampShells for ``len(theta)`` trials (``theta`` only gives the trial count: θ* is located
    inside, with the algorithm's own share of ``epsilon``).

    Parameters
    ----------
    inputs
        Data (a Dataset or a DataSummary: counts and exact sums at the bin edges), workload,
        domain.
    theta
        Ignored but for its length (the trial count).
    epsilon
        The algorithm's whole budget ε: pε locates θ*, (1−p)ε measures.
    rng
        A numpy Generator (simulation) or a :class:`~dpsum_core.noise.Noise` source (release).

    Returns
    -------
    Measurement
        Answers (trials × m, before isotonic regression), θ* per trial, ε spent on the
        measurement ((1−p)ε) and on locating θ* (pε, ``epsilon_theta``).

    Privacy
    -------
    ε-DP under add/remove-one (CLAMPSHELLS.md § Privacy; see the module docstring): stage 1
    spends pε, stage 2 (1−p)ε for every J* stage 1 can output; with a public cap no stage 1
    and ε on stage 2 at the cap's fixed J*; both spends are computed from the scales actually
    drawn. N is never used; all else is post-processing.
    """
    trials = int(np.asarray(theta).shape[0])
    noise = as_noise(rng)
    d = design_for(inputs.domain, epsilon)
    stats = edge_statistics(inputs.data, inputs.domain)
    cap = inputs.public_cap
    if cap is None:
        j_star, z1, spent_locate = locate_measured(stats, d, trials, epsilon=epsilon, rng=noise)
    else:  # a public cap: θ* without stage 1 (nothing measured, nothing spent)
        j_star, z1, spent_locate = np.full(trials, public_clamp_bin(d, cap), np.int64), None, 0.0
    eps2 = stage2_epsilon(epsilon, cap)
    z, spent_measure = measure_clamped(stats, d, j_star, epsilon=eps2, rng=noise)
    # Least squares inside each shell (block-diagonal, public): the 1/ε of the scales cancels.
    leaves = np.asarray(d.reconstruct @ z.T).T
    if z1 is not None:
        leaves = combine_stage1(d, leaves, z1, j_star)
    kept = tail_scan(d, leaves, j_star, eps2)
    counts = inputs.workload.counts
    sd = answer_sd(d, counts, j_star, eps2, stage1=z1 is not None)
    answers = answers_from_cells(d, kept, j_star, counts)
    answers = onset_gate(answers, sd, inputs.delta, onset_next_z(d.levels))
    theta_star = inputs.domain.edges[j_star - 1]
    return Measurement(answers, spent_measure, theta_star, epsilon_theta=spent_locate)


# --------------------------------------------------------------------------------------------
# Expected error, analytic
# --------------------------------------------------------------------------------------------
def _components_at(
    stats: EdgeStatistics, d: ClampShellsDesign, j_star: int, inputs: Inputs, epsilon: float
) -> tuple[np.ndarray, np.ndarray]:
    """bias² and variance of every query given J*, without the tail scan (least squares is
    unbiased, E[x̂] = the exact clamped leaf sums, and every answer is a fixed linear function
    of x̂: its variance is aᵀ Cov(x̂) a, block by block over the independent shells)."""
    counts = inputs.workload.counts
    nc = int(np.searchsorted(d.cells, j_star, side="left"))
    sums = stats.clamped_sums(d.cells[:nc], d.cells[1 : nc + 1], d.domain, j_star)
    # Each query's coefficients on the active leaves: the same map as answers_from_cells.
    basis = np.eye(nc, d.cells.size - 1)
    coef = answers_from_cells(d, basis, np.full(nc, j_star), counts).T  # (m × nc)
    mean = coef @ sums
    var = np.zeros(counts.size)
    # parts below the top active one are combined with stage 1 (none with a public cap)
    top = int(d.shells_below(j_star)) - 1 if inputs.public_cap is None else 0
    for k, V in enumerate(d.leaf_cov):
        V = d.stage1_gls[1][k] if k < top else V
        idx = np.flatnonzero(d.cell_shell[:nc] == k)
        if idx.size:  # all of the shell's leaves, or its first ones when J* is inside it
            a = coef[:, idx]
            var += np.einsum("ij,jk,ik->i", a, V[: idx.size, : idx.size], a)
    return (mean - inputs.true_answers) ** 2, var / stage2_epsilon(epsilon, inputs.public_cap) ** 2


def clampshells_error(inputs: Inputs, theta: np.ndarray, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """Squared bias and variance of every query if θ* were each of ``theta`` (k × m), at total
    budget ``epsilon`` (stage 2 gets (1−p)ε; the design, sub-cells included, is the one used at
    ``epsilon``).

    θ is mapped to J* = the bin whose upper edge is the smallest ≥ θ (∞ → n). The tail scan is
    left out (documented approximation): it only drops cells whose tail mass is within one
    noise sd of zero, so it changes the error where the top cells are nearly empty; the
    Monte Carlo test bounds the effect. Unlike the paper's algorithms the bias depends on ε (the
    sub-cells do), so callers must not rescale a variance computed at another ε.

    Privacy
    -------
    Read from the exact data: for the data holder's analysis only, never a release.
    """
    d = design_for(inputs.domain, epsilon)
    stats = edge_statistics(inputs.data, inputs.domain)
    th = np.asarray(theta, float)
    j = np.minimum(np.searchsorted(inputs.domain.edges, th, side="left") + 1, inputs.domain.bins)
    j = np.maximum(j, d.min_clamp_bin)
    out_b, out_v = [], []
    cache: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for jj in j.tolist():
        if jj not in cache:
            checkpoint()
            cache[jj] = _components_at(stats, d, int(jj), inputs, epsilon)
        out_b.append(cache[jj][0])
        out_v.append(cache[jj][1])
    m = inputs.workload.size
    shape = (th.size, m)
    return (np.array(out_b).reshape(shape), np.array(out_v).reshape(shape))


def theta_law(inputs: Inputs, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """The exact law of θ* at total budget ``epsilon``: (θ values, probabilities).

    Privacy
    -------
    Read from the exact data: for the data holder's analysis only.
    """
    d = design_for(inputs.domain, epsilon)
    if inputs.public_cap is not None:  # J* is public: one value, probability 1
        return inputs.domain.edges[[public_clamp_bin(d, inputs.public_cap) - 1]], np.ones(1)
    support, probs = clamp_law(edge_statistics(inputs.data, inputs.domain), d, epsilon)
    return inputs.domain.edges[support - 1], probs


def expected_theta(inputs: Inputs, epsilons: np.ndarray) -> np.ndarray:
    """The most likely θ* at each budget in ``epsilons`` (the registry's ``posthoc_theta``).

    Privacy
    -------
    Read from the exact data: for the data holder's analysis only.
    """
    out = []
    for eps in np.asarray(epsilons, float).tolist():
        values, probs = theta_law(inputs, eps)
        out.append(values[int(np.argmax(probs))])
    return np.array(out)


def expected_mse(inputs: Inputs, epsilon: float) -> np.ndarray:
    """E(ŷ_i − y_i)² per query over the exact law of θ* (before isotonic regression, tail
    scan left out: see :func:`clampshells_error`).

    Privacy
    -------
    Read from the exact data: for the data holder's analysis only.
    """
    theta, probs = theta_law(inputs, epsilon)
    bias2, var = clampshells_error(inputs, theta, epsilon)
    return probs @ (bias2 + var)


RECORDS = (
    Algorithm(
        name="clampshells",
        label="ClampShells",
        color="#8C510A",  # dark brown: black is the true answer's colour
        dash="8px,2px,2px,2px",
        symbol="hexagon",
        measures="raw shell sums to locate θ*, then clamped shell sums below θ*",
        theta_rule=INSIDE,
        own_theta=INSIDE_THETA,
        measure=clampshells,
        error=clampshells_error,
        stream_id=8,  # 7 is RawSum's; never reused
        posthoc_theta=expected_theta,
        theta_share=LOCATE_SHARE,
        theta_law=theta_law,
        error_rescales=False,
        default=False,
    ),
)
