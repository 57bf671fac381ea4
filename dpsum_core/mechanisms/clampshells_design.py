"""ClampShells' public design (the shells, the tree inside each shell, the least-squares
reconstruction, cached by public inputs only) and the exact edge statistics of the data it
reads (the mechanism, its privacy argument and its measurements are in
:mod:`dpsum_core.mechanisms.clampshells`; stage 1 in :mod:`~dpsum_core.mechanisms.clampshells_locate`,
the answers in :mod:`~dpsum_core.mechanisms.clampshells_answers`: those two import from here,
never from the mechanism, so the modules form no cycle)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property, partial
from itertools import pairwise
from typing import TYPE_CHECKING, Any

import numpy as np

from dpsum_core import limits
from dpsum_core.data.dataset import Dataset, Statistics
from dpsum_core.data.domain import Domain
from dpsum_core.data.exact import prefix_limbs, to_units, units_to_float, value_units
from dpsum_core.data.summary import DataSummary, MissingStatistics
from dpsum_core.mechanisms.lru import LRU
from dpsum_core.mechanisms.rawsum import shell_edges

if TYPE_CHECKING:
    from collections.abc import Callable

    from scipy import sparse

    from dpsum_core.mechanisms.workloads import Workload

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
# Leaves on the workload's edges (issue 26, item 3): from depth 1, a part whose q query
# intervals (the workload's edges inside it, public) number at most B^L takes them as its finest
# level, grouped into min(B^ℓ, q) runs of consecutive intervals above, instead of B^L equal
# leaves; a part with no query edge inside is measured whole. No query then interpolates inside
# a leaf (Q2's thresholds at every 10th bin sat inside leaves of 8, 4 or 2 bins, where the heaps
# of the hourly column at whole dollars made interpolation biased). Q1 has an edge at every bin:
# its design is the equal-split one. Tuning split (columns seeds 7 and 8, 50 trials): hourly
# Q2's mean over queries 0.53–0.84× at ε ∈ {0.1, 0.3, 1} (1.74× the best → 1.06–1.08× at 0.3),
# every Q2 cell at ε = 1 0.60–0.88× on the median and 0.55–0.94× on the mean (the rounded
# column on seed 8: 1.11×, still the best) with the onset factor kept at 10 (clampshells_answers);
# 2 000-trial checks of the Q2 medians at ε ∈ {0.1, 0.3}: 0.92–1.01×.
# Shape at depth 0 (small ε, where a leaf is a whole ratio-2 shell): bin n measured on its own
# (the point mass at U) and quadratic interpolation inside a leaf (:func:`curvature`). Deeper
# trees have leaves fine enough that both cost more than they gain (synthetic columns, seeds 7
# and 8 of bench/columns.py, never the evaluation seed 2024 or sample_data).
TREE_FROM = 0.02
LOCATE_SHARE = 0.25  # p: share of ε spent locating θ* (stage 1, clampshells_locate)
MIN_CLAMP_BIN = 8  # jmin: J* is never below the 8th bin edge
# Leaf shape (bin n apart, quadratic interpolation) only up to this tree depth (see above).
SHAPE_MAX_LEVELS = 0
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
    aligned_on: np.ndarray | None  # the workload's query edges the leaves align on: see above
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
    def aligned(self) -> bool:
        """Whether the leaves lie on the workload's query edges (not Q1's every bin)."""
        return self.aligned_on is not None

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
        return before, cov, var, np.array([_memo(c, "sum", c.sum) for c in self.stage1_gls[1]])

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
                top = float(self.shell_top[k])
                gain, after = _memo(V, top, partial(_stage1_update, V, top))
                gains.append(gain)
                combined.append(after)
            else:
                gains.append(np.zeros(V.shape[0]))
                combined.append(V)
        return np.concatenate(gains), tuple(combined)

    def loss_per_bin(self, scale: np.ndarray) -> np.ndarray:
        """Exact stage-2 loss of a record at e_j (its worst value in bin j), Σ_{nodes ∋ j} e_j/b,
        when node i gets Lap(``scale[i]``) — the scales actually drawn, so that a wrong scale
        shows in the ε reported — for every bin j (the same for every J* ≥ j: a clamped
        record above θ* sits at θ* = e_{J*}, the top of bin J*)."""
        n = self.domain.bins
        inv = np.zeros(n + 1)
        np.add.at(inv, self.node_lo, 1.0 / np.asarray(scale, float))
        np.add.at(inv, self.node_hi, -1.0 / np.asarray(scale, float))
        return np.cumsum(inv)[:n] * self.domain.edges


# Per-part results keyed by the identity of the part's leaf covariance: parts are cached
# (_PARTS), so the designs refined per trial share their unchanged parts' arrays and these
# results. The array itself is kept and checked, so a reused id cannot alias; bounded in entries.
# Bounded in entries and in bytes (V counted too: the cache keeps it alive), emptied when full.
_BY_COV: dict[tuple[int, object], tuple[np.ndarray, Any]] = {}
_BY_COV_MAX = 512
_BY_COV_MAX_BYTES = limits.MAX_CLAMPSHELLS_CACHE_BYTES // 4
_by_cov_bytes = [0]


def _nbytes(x: Any) -> int:
    """Bytes of an array, or of the arrays in a tuple (other values count 0)."""
    if isinstance(x, np.ndarray):
        return x.nbytes
    return sum(_nbytes(v) for v in x) if isinstance(x, tuple) else 0


def _memo(V: np.ndarray, tag: object, build: Callable[[], Any]) -> Any:
    """``build()`` for the part of covariance ``V`` (a pure function of V and ``tag``), cached."""
    key = (id(V), tag)
    hit = _BY_COV.get(key)
    if hit is None or hit[0] is not V:
        hit = (V, build())
        size = _nbytes(hit)
        if len(_BY_COV) >= _BY_COV_MAX or _by_cov_bytes[0] + size > _BY_COV_MAX_BYTES:
            _BY_COV.clear()
            _by_cov_bytes[0] = 0
        _BY_COV[key] = hit
        _by_cov_bytes[0] += size
    return hit[1]


def _stage1_update(V: np.ndarray, top: float) -> tuple[np.ndarray, np.ndarray]:
    """:attr:`ClampShellsDesign.stage1_gls` of one part: the gain and the covariance after."""
    v1 = V.sum(axis=1)
    denom = v1.sum() + 2.0 * (top / LOCATE_SHARE) ** 2
    return v1 / denom, V - np.outer(v1, v1) / denom


def _part_moments(V: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_moments` of one part."""
    P = np.cumsum(np.cumsum(V, axis=0), axis=1)
    r = V.shape[0]
    S = np.cumsum(np.cumsum(V[::-1, ::-1], axis=0), axis=1)
    return (
        np.concatenate(([0.0], np.diagonal(P)[:-1])),
        np.concatenate(([0.0], np.cumsum(V, axis=0)[np.arange(r - 1), np.arange(1, r)])),
        np.diagonal(V).copy(),
        np.diagonal(S)[::-1].copy(),
    )


def _moments(covs: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per leaf c of parts with leaf covariances ``covs``: Var(Σ of the earlier leaves of its
    part), Cov(that sum, x̂_c), Var(x̂_c) and Var(Σ of the leaves of its part from c on)."""
    per = [_memo(V, "moments", partial(_part_moments, V)) for V in covs]
    return tuple(np.concatenate([p[i] for p in per]) for i in range(4))  # type: ignore[return-value]


def _shell_tree(a: int, b: int, levels: int, branch: int, cuts: np.ndarray | None = None) -> list[np.ndarray]:
    """Distinct nested partitions of bins a+1..b, ℓ = 0..L: min(B^ℓ, b − a) equal parts; or,
    with ``cuts`` (the workload's query edges strictly inside the part, public) when L ≥ 1 and
    the q = |cuts| + 1 intervals between them number at most B^L, those intervals as the finest
    level and min(B^ℓ, q) runs of consecutive intervals above it."""
    w = b - a
    if cuts is not None and levels > 0 and cuts.size < branch**levels:
        q = cuts.size + 1
        leaves = np.concatenate(([a], cuts, [b])).astype(np.int64)
        runs = sorted({min(branch**ell, q) for ell in range(levels + 1)})
        return [leaves[np.array([round(i * q / m) for i in range(m + 1)])] for m in runs]
    parts = sorted({min(branch**ell, w) for ell in range(levels + 1)})
    return [np.array([a + round(i * w / m) for i in range(m + 1)], dtype=np.int64) for m in parts]


def part_tree(
    levels: int, branch: int, counts: np.ndarray | None, k: int, parts: np.ndarray
) -> list[np.ndarray]:
    """The public tree of stage-2 part ``k`` (bins parts[k]+1..parts[k+1]): :func:`_shell_tree`
    with the workload's query edges inside the part, or equal splits."""
    a, b = int(parts[k]), int(parts[k + 1])
    cuts = None if counts is None else counts[(counts > a) & (counts < b)]
    return _shell_tree(a, b, levels, branch, cuts)


@dataclass(frozen=True, eq=False)
class _Part:
    """One part's nodes, leaves, least-squares block and leaf covariance (at ε = 1)."""

    node_lo: np.ndarray
    node_hi: np.ndarray
    node_scale: np.ndarray
    leaves: np.ndarray
    block: np.ndarray  # (leaves × nodes) least squares
    cov: np.ndarray  # Cov of the leaf estimates


def _part(edges: np.ndarray, tree: list[np.ndarray], tops: np.ndarray | None = None) -> _Part:
    """A part measured by ``tree`` (λ = len(tree) nested levels): every node gets
    Lap(g·λ/((1−p)ε)), g the top value of the node, or with ``tops`` (bin-index edges the
    finest level refines) the top of the ``tops`` interval holding the node — so a leaf cut in
    pieces keeps its scale, and a record's loss is what it was before the cut."""
    leaves = tree[-1]
    n_lo = np.concatenate([t[:-1] for t in tree])
    n_hi = np.concatenate([t[1:] for t in tree])
    top = n_hi if tops is None else tops[np.searchsorted(tops, n_hi, side="left")]
    b1 = edges[top - 1] * len(tree) / (1.0 - LOCATE_SHARE)
    # Weighted least squares: node i sums the leaves first[i]..end[i]−1 (leaves nest in every
    # node), so the normal matrix AᵀWA adds w_i on that square block: built from a 2-D
    # difference array, and (AᵀWA)⁻¹AᵀW from cumulative sums of the inverse's columns —
    # no dense product (small BLAS products stall on threads under load).
    L = leaves.size - 1
    first, end = np.searchsorted(leaves, n_lo), np.searchsorted(leaves, n_hi)
    w = 1.0 / (2.0 * b1**2)
    diff = np.zeros((L + 1, L + 1))
    for r, c, sign in ((first, first, 1.0), (first, end, -1.0), (end, first, -1.0), (end, end, 1.0)):
        np.add.at(diff, (r, c), sign * w)
    inverse = np.linalg.inv(diff.cumsum(axis=0).cumsum(axis=1)[:L, :L])
    cols = np.concatenate((np.zeros((L, 1)), inverse.cumsum(axis=1)), axis=1)
    # Cov(x̂) = (AᵀΣ⁻¹A)⁻¹ with Σ = diag(2b²)
    return _Part(n_lo, n_hi, b1, leaves, (cols[:, end] - cols[:, first]) * w[None, :], inverse)


def _assemble(
    domain: Domain, levels: int, aligned_on: np.ndarray | None, shells: np.ndarray,
    parts: np.ndarray, pieces: list[_Part],
) -> ClampShellsDesign:  # fmt: skip
    """The :class:`ClampShellsDesign` of the parts ``pieces``, in order."""
    node_lo, node_hi, node_scale = (
        np.concatenate([getattr(p, f) for p in pieces]) for f in ("node_lo", "node_hi", "node_scale")
    )
    node_shell = np.concatenate([np.full(p.node_lo.size, k) for k, p in enumerate(pieces)])
    cell_arr = np.concatenate([[0], *(p.leaves[1:] for p in pieces)]).astype(np.int64)
    cell_shell = np.concatenate([np.full(p.leaves.size - 1, k) for k, p in enumerate(pieces)])
    for arr in (shells, parts, cell_arr, node_lo, node_hi, node_shell, node_scale):
        arr.setflags(write=False)
    op = _block_diagonal([p.block for p in pieces])
    e = domain.edges
    return ClampShellsDesign(
        domain, levels, aligned_on, shells, e[shells[1:] - 1], parts, node_lo, node_hi, node_shell,
        node_scale, cell_arr, cell_shell, op, tuple(p.cov for p in pieces),
    )  # fmt: skip


def _block_diagonal(blocks: list[np.ndarray]) -> sparse.csr_matrix:
    """The block-diagonal CSR matrix of dense ``blocks``, written directly (scipy's
    ``block_diag`` goes through COO and costs more than the blocks at a design per trial)."""
    from scipy import sparse  # here, not at import: `dpsum --help` starts without scipy

    data, indices, counts = [], [], []
    col = 0
    for b in blocks:
        r, c = b.shape
        data.append(b.ravel())
        indices.append(np.tile(np.arange(col, col + c, dtype=np.int64), r))
        counts.append(np.full(r, c, dtype=np.int64))
        col += c
    indptr = np.concatenate(([0], np.cumsum(np.concatenate(counts))))
    shape = (int(sum(b.shape[0] for b in blocks)), col)
    return sparse.csr_matrix((np.concatenate(data), np.concatenate(indices), indptr), shape=shape)


def _build_design(
    domain: Domain, levels: int, branch: int = 2, counts: np.ndarray | None = None
) -> ClampShellsDesign:
    """The :class:`ClampShellsDesign` of (U, n, tree depth L, branching B, the query edges
    ``counts`` the leaves align on, or None): public inputs only."""
    shells = shell_edges(domain.bins)
    n = domain.bins
    # Stage 2 measures bin n on its own: cleaning clips every value above U to U, so a point mass
    # often sits there; apart, it is neither smeared over the top shell by interpolation nor
    # does it cost any query below U noise (a record lies in one part either way).
    point = levels <= SHAPE_MAX_LEVELS and n - 1 > shells[-2]
    parts = np.insert(shells, -1, n - 1) if point else shells
    pieces = [
        _part(domain.edges, part_tree(levels, branch, counts, k, parts))
        for k in range(parts.size - 1)
    ]
    return _assemble(domain, levels, counts, shells, parts, pieces)


def design_bytes(d: ClampShellsDesign) -> int:
    """Bytes a design holds once used: its arrays, the sparse reconstruction, the leaf
    covariances and (built lazily) the four per-leaf moments."""
    op = d.reconstruct
    arrays = [d.shells, d.parts, d.node_lo, d.node_hi, d.node_scale, d.cells, *d.leaf_cov]
    return sum(a.nbytes for a in arrays) + op.data.nbytes * 2 + 32 * d.cells.size


# Process-wide: the key is public (U, n, L, B). Bounded in bytes, not only in entries.
_DESIGNS: LRU[ClampShellsDesign] = LRU(32, limits.MAX_CLAMPSHELLS_CACHE_BYTES, design_bytes)


def design(
    domain: Domain, levels: int, branch: int = 2, counts: np.ndarray | None = None
) -> ClampShellsDesign:
    """The cached :class:`ClampShellsDesign` of (U, n, tree depth L, branching B, the query
    edges its leaves align on): public inputs only, so a cache hit reveals nothing about
    anyone's data."""
    key = (domain, levels, branch, None if counts is None else counts.tobytes())
    return _DESIGNS.get(key, lambda: _build_design(domain, levels, branch, counts))


def _part_bytes(p: _Part) -> int:
    return sum(a.nbytes for a in (p.node_lo, p.node_hi, p.node_scale, p.leaves, p.block, p.cov))


# Parts of refined designs (a part's dropped level and cuts: public given stage 1's output and
# the partition's noisy sums), and refined designs, process-wide and bounded in bytes.
_PARTS: LRU[_Part] = LRU(2048, limits.MAX_CLAMPSHELLS_CACHE_BYTES // 4, _part_bytes)
_REFINED: LRU[ClampShellsDesign] = LRU(64, limits.MAX_CLAMPSHELLS_CACHE_BYTES // 4, design_bytes)


def refined_design(
    base: ClampShellsDesign, drop: tuple[int, ...], cuts: tuple[tuple[int, tuple[int, ...]], ...]
) -> ClampShellsDesign:
    """``base`` with the finest level of the parts ``drop`` left out (λ − 1 levels, every
    node's scale g·(λ−1)/((1−p)ε)) and the finest level of part k cut at the bin-index edges
    ``cuts[k]`` (each piece keeps the Laplace scale of the leaf it was cut from, λ unchanged).

    A record lies in one node per level either way, so its stage-2 loss is at most what it was
    in ``base``: a cut keeps the scales, and dropping the finest level (the nodes whose tops
    are the closest above the record, the largest terms e_j/g of the loss) leaves the mean of
    the smaller terms (:mod:`dpsum_core.mechanisms.clampshells_partition`).

    Privacy
    -------
    Public given its arguments: ``drop`` is a function of J*, ``cuts`` of the partition's noisy
    sums; the cache holds designs, never data.
    """
    if not drop and not cuts:
        return base
    counts = base.aligned_on
    key = (base.domain, base.levels, None if counts is None else counts.tobytes(), drop, cuts)
    return _REFINED.get(key, lambda: _refine(base, counts, drop, dict(cuts)))


def _refine(
    base: ClampShellsDesign, counts: np.ndarray | None, drop: tuple[int, ...],
    cuts: dict[int, tuple[int, ...]],
) -> ClampShellsDesign:  # fmt: skip
    """:func:`refined_design`, uncached (each refined part cached on its own)."""
    pieces = []
    for k in range(base.parts.size - 1):
        def build(k: int = k) -> _Part:
            tree = part_tree(base.levels, TREE_BRANCH, counts, k, base.parts)
            if k in drop:
                tree = tree[:-1]
            if k not in cuts:
                return _part(base.domain.edges, tree)
            tops = tree[-1]
            finest = np.union1d(tops, np.asarray(cuts[k], np.int64)).astype(np.int64)
            return _part(base.domain.edges, [*tree[:-1], finest], tops)

        ckey = (base.domain, base.levels, None if counts is None else counts.tobytes(), k,
                k in drop, cuts.get(k, ()))  # fmt: skip
        pieces.append(_PARTS.get(ckey, build))
    return _assemble(base.domain, base.levels, counts, base.shells, base.parts, pieces)


def aligned_counts(domain: Domain, levels: int, workload: Workload | None) -> np.ndarray | None:
    """The query edges the leaves align on: the workload's bin counts, or None (equal leaves)
    without a workload, at depth 0, or when every bin is a query edge (Q1: the same leaves)."""
    if workload is None or levels == 0 or workload.counts.size >= domain.bins:
        return None
    return np.asarray(workload.counts, np.int64)


def design_for(domain: Domain, epsilon: float, workload: Workload | None = None) -> ClampShellsDesign:
    """The design used at total budget ``epsilon`` for ``workload`` (its stage 1, shells and
    clamp points do not depend on the workload; its stage-2 leaves do, from depth 1: pass the
    workload wherever stage 2 is measured, decoded or priced)."""
    levels = levels_for(epsilon)
    return design(domain, levels, TREE_BRANCH, aligned_counts(domain, levels, workload))


# --------------------------------------------------------------------------------------------
# Exact statistics of the data: the only reads of the records
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class EdgeStatistics:
    """Σ_{t ≤ e_j} t exactly (Python ints, units of 2⁻¹⁰⁴) and #{t ≤ e_j}, for j = 0..n (e_0 = 0
    stands for "nothing": both 0). Private."""

    units: list[int]
    counts: np.ndarray
    # clamped sums already rounded, by (lo, hi, J*): the refined designs of one call share most
    # nodes, and each exact sum costs a big-integer conversion
    _sums: dict[tuple[int, int, int], float] = field(default_factory=dict, repr=False)

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
        u, memo = self.units, self._sums
        out = []
        for a, b in zip(np.asarray(lo).tolist(), np.asarray(hi).tolist(), strict=True):
            key = (a, b, j_star)
            if key not in memo:
                memo[key] = units_to_float(u[b] - u[a] + (extra if b == j_star else 0))
            out.append(memo[key])
        return np.array(out)


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
