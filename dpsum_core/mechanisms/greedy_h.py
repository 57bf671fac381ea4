"""GreedyH (DAWA's greedy hierarchy, as in ektelo) for prefix workloads, per SPEC §4.

ektelo's recursion runs on the Gram matrix G = T WᵀW T (T = I for TiMM, T_θ for TaMM). For a
prefix workload every quantity the recursion needs has a closed form in cumulative sums, so the
recursion is evaluated level by level, bottom-up, in O(n) numpy work per level (O(n log n) in
all) without ever forming G. The inverse (AᵀA)⁻¹ comes out as a sum of block rank-one terms
(Sherman–Morrison at every node), which is applied to vectors and reduced to diag(W M Wᵀ) in
O(n log n) too; ``StructuredInverse.dense()`` builds the n × n matrix only for tests.
A straightforward dense port of the recursion lives in the tests and must agree with this one.
"""


from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache, cached_property
from typing import TYPE_CHECKING

import numpy as np

from dpsum_core import limits
from dpsum_core.mechanisms.lru import LRU

if TYPE_CHECKING:
    from scipy import sparse


# --------------------------------------------------------------------------------------------
# Segments: disjoint contiguous blocks, the unit of all vectorised work below
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Segments:
    """Disjoint blocks [starts[s], ends[s]) in increasing order, with their positions listed."""

    starts: np.ndarray
    ends: np.ndarray

    @cached_property
    def sizes(self) -> np.ndarray:
        return self.ends - self.starts

    @cached_property
    def positions(self) -> np.ndarray:
        """All cells of all blocks, in order."""
        sizes = self.sizes
        offsets = np.repeat(np.cumsum(sizes) - sizes, sizes)
        return np.repeat(self.starts, sizes) + np.arange(sizes.sum()) - offsets

    @cached_property
    def first(self) -> np.ndarray:
        """Index into ``positions`` of each block's first cell."""
        return np.cumsum(self.sizes) - self.sizes

    @cached_property
    def seg_of(self) -> np.ndarray:
        """Block number of each listed position."""
        return np.repeat(np.arange(self.starts.size), self.sizes)

    def inclusive_cumsum(self, values: np.ndarray) -> np.ndarray:
        """Cumulative sum restarting at each block (last axis = listed positions)."""
        c = np.cumsum(values, axis=-1)
        base = c[..., self.first] - values[..., self.first]
        return c - np.repeat(base, self.sizes, axis=-1)

    def sums(self, values: np.ndarray) -> np.ndarray:
        """Sum over each block (last axis)."""
        return np.add.reduceat(values, self.first, axis=-1)


# --------------------------------------------------------------------------------------------
# The exact inverse as a sum of block rank-one terms
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class InverseLevel:
    """Σ_s coef[s]·u_s u_sᵀ over disjoint blocks; u is listed per position."""

    segments: Segments
    coef: np.ndarray
    u: np.ndarray


@dataclass(frozen=True, eq=False)
class StructuredInverse:
    """(AᵀA)⁻¹ = Σ over levels of disjoint block rank-one terms (pseudo-inverse on collapses)."""

    n: int
    levels: tuple[InverseLevel, ...]

    def apply(self, z: np.ndarray) -> np.ndarray:
        """(AᵀA)⁻¹·z for every row of ``z`` (shape (..., n)); the matrix is symmetric."""
        z = np.asarray(z, float)
        out = np.zeros_like(z)
        for lv in self.levels:
            seg, pos = lv.segments, lv.segments.positions
            proj = seg.sums(z[..., pos] * lv.u) * lv.coef
            out[..., pos] += np.repeat(proj, seg.sizes, axis=-1) * lv.u
        return out

    def prefix_quadratic(self, t: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """diag(W T M T Wᵀ) for prefix counts k_i: Σ_{j,l<k} t_j M_jl t_l, in O(n log n).

        Each term contributes coef·(Σ_{j∈block, j<k} t_j u_j)²: the full block sum once k has
        passed the block, the partial sum while k is inside it.
        """
        total = np.zeros(self.n + 1)
        for lv in self.levels:
            seg, pos = lv.segments, lv.segments.positions
            partial = seg.inclusive_cumsum(t[pos] * lv.u)
            full = partial[seg.first + seg.sizes - 1]
            done = np.zeros(self.n + 1)
            np.add.at(done, seg.ends, lv.coef * full**2)
            total += np.cumsum(done)
            # Prefix through cell p (index p + 1 of ``total``) strictly inside its block; the
            # block's last cell is already counted by ``done``.
            inner = np.ones(pos.size, bool)
            inner[seg.first + seg.sizes - 1] = False
            inside = np.zeros(self.n + 1)
            inside[pos[inner] + 1] = (lv.coef[seg.seg_of] * partial**2)[inner]
            total += inside
        return total[np.asarray(counts)]

    def dense(self) -> np.ndarray:
        """The n × n matrix (tests and small n only)."""
        M = np.zeros((self.n, self.n))
        for lv in self.levels:
            seg = lv.segments
            for s in range(seg.starts.size):
                a, b = seg.starts[s], seg.ends[s]
                u = lv.u[seg.first[s] : seg.first[s] + b - a]
                M[a:b, a:b] += lv.coef[s] * np.outer(u, u)
        return M


@dataclass(frozen=True, eq=False)
class Strategy:
    """A strategy A of weighted interval rows with its exact (pseudo-)inverse of AᵀA.

    Attributes
    ----------
    starts, ends
        Row r covers cells ``starts[r] ≤ j < ends[r]`` (0-based, end exclusive).
    weights
        Row weights (all > 0). Every column of A has L1 norm 1.
    inverse
        (AᵀA)⁻¹ in structured form; on a collapsed block the pseudo-inverse 11ᵀ/s².
    """

    n: int
    starts: np.ndarray
    ends: np.ndarray
    weights: np.ndarray
    inverse: StructuredInverse

    @property
    def nbytes(self) -> int:
        """Bytes held by its arrays (rows, weights, the structured inverse; the sparse matrix
        and column norms once built are counted ahead as 3 arrays of the rows' size + n)."""
        levels = sum(
            lv.coef.nbytes + lv.u.nbytes + lv.segments.starts.nbytes + lv.segments.ends.nbytes
            + 3 * lv.segments.starts.nbytes + lv.u.nbytes  # sizes, first, positions, seg_of
            for lv in self.inverse.levels
        )
        rows = self.starts.nbytes + self.ends.nbytes + self.weights.nbytes
        return int(2 * rows + levels + 8 * self.n)

    @property
    def rows(self) -> int:
        """Number of measured queries."""
        return int(self.weights.size)

    @cached_property
    def matrix(self) -> sparse.csr_matrix:
        """A as a CSR matrix (rows × n)."""
        from scipy import sparse  # here, not at import: see dpsum_core.mechanisms.isotonic.isotonic

        seg = Segments(self.starts, self.ends)  # rows may overlap: only the listing is used
        row_idx = np.repeat(np.arange(self.rows), seg.sizes)
        vals = np.repeat(self.weights, seg.sizes)
        matrix = sparse.csr_matrix((vals, (row_idx, seg.positions)), shape=(self.rows, self.n))
        matrix.sort_indices()  # canonical order: products must not change once scipy sorts them
        return matrix

    def dense(self) -> np.ndarray:
        """A as a dense array, for tests and small n."""
        return self.matrix.toarray()

    @cached_property
    def column_l1(self) -> np.ndarray:
        """L1 norm of every column of A."""
        return np.asarray(abs(self.matrix).sum(axis=0)).ravel()

    @property
    def l1_norm(self) -> float:
        """‖A‖₁, the largest column L1 norm (1 for GreedyH up to rounding)."""
        return float(self.column_l1.max())

    def least_squares(self, z: np.ndarray) -> np.ndarray:
        """x̂ = (AᵀA)⁻¹Aᵀz for every row of ``z`` (trials × rows → trials × n)."""
        return self.inverse.apply((self.matrix.T @ np.atleast_2d(z).T).T)


# --------------------------------------------------------------------------------------------
# The tree
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class _Tree:
    start: np.ndarray
    end: np.ndarray
    depth: np.ndarray
    parent: np.ndarray
    by_depth: tuple[np.ndarray, ...]  # node ids at each depth, left to right


@cache
def _tree(n: int, branch: int) -> _Tree:
    """GreedyH's tree over n cells in BFS order (SPEC §4 split rule)."""
    start, end, depth, parent = [0], [n], [0], [-1]
    i = 0
    while i < len(start):
        size = end[i] - start[i]
        if size == 1:
            sizes = []
        elif size <= branch:
            sizes = [1] * size
        else:
            r = size % branch
            q = (size - r) // branch
            sizes = [q] * (branch - r) + [q + 1] * r
        offset = start[i]
        for s in sizes:
            start.append(offset)
            end.append(offset + s)
            depth.append(depth[i] + 1)
            parent.append(i)
            offset += s
        i += 1
    depth_arr = np.asarray(depth)
    by_depth = tuple(np.flatnonzero(depth_arr == d) for d in range(depth_arr.max() + 1))
    return _Tree(np.asarray(start), np.asarray(end), depth_arr, np.asarray(parent), by_depth)


# --------------------------------------------------------------------------------------------
# GreedyH for a (weighted) prefix workload
# --------------------------------------------------------------------------------------------
def greedy_h(
    counts: np.ndarray,
    n: int,
    scale: np.ndarray | None = None,
    *,
    branch: int = 2,
    granularity: int = 100,
) -> Strategy:
    """GreedyH strategy for M = W·T, W the prefix workload with edge counts k_i (SPEC §4).

    Parameters
    ----------
    counts
        k_i: query i covers cells 0..k_i−1.
    n
        Number of cells.
    scale
        Diagonal of T (θ-truncated bin weights for TaMM); ``None`` for T = I (TiMM).
    branch, granularity
        Branching factor b and number g of candidate weights p ∈ {1, 1 − 1/g, …, 1/g}.

    Returns
    -------
    Strategy
        Weighted interval rows and the exact (AᵀA)⁻¹, identical to ektelo's recursion on
        G = MᵀM.

    Notes
    -----
    The strategy depends only on the public workload (and on θ for TaMM), never on the data,
    so it costs no privacy budget.
    """
    t = np.ones(n) if scale is None else np.asarray(scale, float)
    counts = np.asarray(counts)
    cover = np.zeros(n + 1)  # cover[j] = #{i : k_i > j}, cover[n] = 0
    cover[:n] = counts.size - np.searchsorted(np.sort(counts), np.arange(1, n + 1))
    qcount = np.bincount(counts - 1, minlength=n).astype(float)  # queries whose last cell is p
    t2 = t**2
    t2_before = np.concatenate(([0.0], np.cumsum(t2)))  # Σ_{j<a} t_j²
    tc2 = t2 * cover[:n] ** 2
    tc2_from = np.concatenate((np.cumsum(tc2[::-1])[::-1], [0.0]))  # Σ_{j≥b} t_j² cover_j²
    # ‖G[:, j]‖² = t_j² (cover_j² Σ_{l≤j} t_l² + Σ_{l>j} t_l² cover_l²)
    col_sq = t2 * (cover[:n] ** 2 * t2_before[1:] + tc2_from[1:])
    # Columns j, j+1 of G are identical iff both are zero or (t, cover) agree.
    zero = (t == 0) | (cover[:n] == 0)
    same = (zero[:-1] & zero[1:]) | ((t[:-1] == t[1:]) & (cover[: n - 1] == cover[1:n]))
    differs = np.concatenate(([0], np.cumsum(~same)))

    tree = _tree(n, branch)
    start, end = tree.start, tree.end
    size = end - start
    n_nodes = start.size
    collapsed = (size > 1) & (differs[end - 1] - differs[start] == 0)
    leaf_like = (size == 1) | collapsed

    err = np.zeros(n_nodes)
    k_fin = np.zeros(n_nodes)  # 1ᵀ inv 1 of the node's final inverse
    mf_fin = np.zeros(n_nodes)  # ‖G_node · inv·1‖²
    p_node = np.ones(n_nodes)
    gamma = np.zeros(n_nodes)
    u = np.zeros(n)  # each finished node's inv·1, stitched over the domain
    raw_u: dict[int, np.ndarray] = {}
    is_internal = np.zeros(n_nodes, bool)
    segs: dict[int, Segments] = {}

    g = granularity
    i = np.arange(g, dtype=float)
    err1 = (g - i) ** 2  # p²·g², ektelo's integer form (same rounding, same argmin)
    p_grid = 1.0 - i / g

    for d in range(len(tree.by_depth) - 1, -1, -1):
        nodes = tree.by_depth[d]
        lk = nodes[leaf_like[nodes]]
        if lk.size:
            err[lk] = col_sq[start[lk]]
            mf_fin[lk] = col_sq[start[lk]]
            k_fin[lk] = 1.0
            lseg = Segments(start[lk], end[lk])
            u[lseg.positions] = np.repeat(1.0 / size[lk], size[lk])
        internal = nodes[~leaf_like[nodes]]
        if not internal.size:
            continue
        # Children of the nodes at depth d are the nodes at depth d+1 whose parent is internal.
        kids = tree.by_depth[d + 1]
        is_internal[internal] = True
        kids = kids[is_internal[tree.parent[kids]]]
        slot = np.searchsorted(internal, tree.parent[kids])
        E = np.bincount(slot, weights=err[kids], minlength=internal.size)
        k = np.bincount(slot, weights=k_fin[kids], minlength=internal.size)
        m_in = np.bincount(slot, weights=mf_fin[kids], minlength=internal.size)

        seg = Segments(start[internal], end[internal])
        pos = seg.positions
        uu = u[pos]
        raw_u[d], segs[d] = uu.copy(), seg
        m_full = _gram_norms(seg, t, uu, qcount, cover, t2_before, tc2_from)

        decay = 1.0 / branch ** (d / 2.0)
        err2 = i**2 * decay  # (1−p)²·g²·δ
        mix = (m_full - m_in) * decay + m_in
        tot = (E[:, None] - mix[:, None] * err2 / (err1 + err2 * k[:, None])) / err1
        best = np.argmin(tot, axis=1)
        p = p_grid[best]
        err[internal] = tot[np.arange(internal.size), best] * g**2
        denom = p**2 + k * (1 - p) ** 2
        p_node[internal] = p
        gamma[internal] = (1 - p) ** 2 / denom
        # inv·1 = u / (p² + k(1−p)²) (Sherman–Morrison): rescale this depth's blocks.
        u[pos] = uu * np.repeat(1.0 / denom, seg.sizes)
        k_fin[internal] = k / denom
        mf_fin[internal] = m_full / denom**2

    return _assemble(n, tree, leaf_like, collapsed, p_node, gamma, raw_u, segs)


def _gram_norms(seg, t, uu, qcount, cover, t2_before, tc2_from) -> np.ndarray:
    """‖G u_v‖² for every block v of ``seg`` (u_v listed per position), G = T WᵀW T.

    With w = t∘u and q = W w (q_i = partial sum of w below k_i), (Gu)_j = t_j R_j where
    R_j = Σ_{i : k_i > j} q_i is constant left of the block, S·cover_j right of it, and a
    within-block reverse cumulative sum inside it.
    """
    pos = seg.positions
    w = t[pos] * uu
    partial = seg.inclusive_cumsum(w)
    last = seg.first + seg.sizes - 1
    S = partial[last]
    qpos = qcount[pos] * partial
    q_incl = seg.inclusive_cumsum(qpos)
    q_tot = q_incl[last]
    # Σ_{p ≥ j in block} qpos[p] + S·cover[b]
    R = np.repeat(q_tot, seg.sizes) - q_incl + qpos + np.repeat(S * cover[seg.ends], seg.sizes)
    R_left = R[seg.first]
    inside = seg.sums(t[pos] ** 2 * R**2)
    return R_left**2 * t2_before[seg.starts] + inside + S**2 * tc2_from[seg.ends]


def _assemble(n, tree, leaf_like, collapsed, p_node, gamma, raw_u, segs) -> Strategy:
    """Rows and the structured inverse, top-down over nodes not inside a collapsed node."""
    n_nodes = tree.start.size
    active = np.zeros(n_nodes, bool)
    mult = np.zeros(n_nodes)  # row-weight multiplier: product of ancestors' p
    inv_scale = np.zeros(n_nodes)  # product of ancestors' 1/p²
    active[0], mult[0], inv_scale[0] = True, 1.0, 1.0
    for nodes in tree.by_depth[1:]:
        par = tree.parent[nodes]
        active[nodes] = active[par] & ~leaf_like[par]
        mult[nodes] = mult[par] * p_node[par]
        inv_scale[nodes] = inv_scale[par] / p_node[par] ** 2

    start, end = tree.start, tree.end
    leaves = np.flatnonzero(active & leaf_like)  # they partition the domain
    inner = np.flatnonzero(active & ~leaf_like)
    inner = inner[mult[inner] * (1 - p_node[inner]) > 0]
    r_start = np.concatenate((start[leaves], start[inner]))
    r_end = np.concatenate((end[leaves], end[inner]))
    r_w = np.concatenate((mult[leaves], mult[inner] * (1 - p_node[inner])))
    order = np.lexsort((r_end, r_start))

    lsize = (end - start)[leaves]
    levels = [
        InverseLevel(
            Segments(start[leaves], end[leaves]),
            np.where(collapsed[leaves], inv_scale[leaves] / lsize**2, inv_scale[leaves]),
            np.ones(n),
        )
    ]
    for d, seg in segs.items():
        nodes = tree.by_depth[d]
        nodes = nodes[~leaf_like[nodes]]  # same order as seg's blocks
        keep = active[nodes] & (gamma[nodes] > 0)
        if not keep.any():
            continue
        coef = -inv_scale[nodes] / p_node[nodes] ** 2 * gamma[nodes]
        sub = Segments(seg.starts[keep], seg.ends[keep])
        u_keep = raw_u[d][np.repeat(keep, seg.sizes)]
        levels.append(InverseLevel(sub, coef[keep], u_keep))
    return Strategy(
        n=n,
        starts=r_start[order],
        ends=r_end[order],
        weights=r_w[order],
        inverse=StructuredInverse(n, tuple(levels)),
    )


# --------------------------------------------------------------------------------------------
# Caches of strategies: shared when the key is public, per session when it depends on θ
# --------------------------------------------------------------------------------------------
def _strategy_bytes(strategy: Strategy) -> int:
    return strategy.nbytes


class StrategyCache(LRU["Strategy"]):
    """A bounded (entries and bytes), thread-safe LRU of GreedyH strategies, counting its hits
    and misses."""

    def __init__(self, size: int, max_bytes: int = limits.MAX_SESSION_STRATEGY_BYTES) -> None:
        super().__init__(size, max_bytes, _strategy_bytes)


SESSION_CACHE_SIZE = 128  # ≤ 13 MB at n = 1000 (≈ 100 kB a strategy); one run of 100 θ fits
SHARED = StrategyCache(64, limits.MAX_SHARED_STRATEGY_BYTES)
# θ-dependent strategies at the points of a public θ grid (see :func:`public_grid`).
PUBLIC_GRID = StrategyCache(256, limits.MAX_SHARED_STRATEGY_BYTES)
_PROCESS = StrategyCache(1024, limits.MAX_PROCESS_STRATEGY_BYTES)


class _GridRouted:
    """The keys of a declared public θ grid go to ``PUBLIC_GRID``, every other key (any θ not
    on that grid: a private one) to the session's own cache ``own``."""

    def __init__(self, public: frozenset[tuple], own: StrategyCache | _GridRouted) -> None:
        self.public = public
        self.own = own

    def get(self, key: tuple, build: Callable[[], Strategy]) -> Strategy:
        return (PUBLIC_GRID if key in self.public else self.own).get(key, build)

    def clear(self) -> None:
        self.own.clear()


_SESSION: ContextVar[StrategyCache | _GridRouted] = ContextVar(
    "dpsum_strategy_session", default=_PROCESS
)


@contextmanager
def session_cache(cache: StrategyCache) -> Iterator[StrategyCache]:
    """Within this block (this thread or task), θ-dependent strategies go to ``cache``.

    The app binds one cache per browser session around every engine call; a process with a
    single user (the CLI, a script) needs no binding and uses :func:`process_cache`.
    """
    token = _SESSION.set(cache)
    try:
        yield cache
    finally:
        _SESSION.reset(token)


@contextmanager
def public_grid(counts: np.ndarray, n: int, scales: Iterable[np.ndarray]) -> Iterator[None]:
    """Within this block, the θ-dependent strategies whose ``scale`` is one of ``scales`` are
    cached process-wide (``PUBLIC_GRID``); any other scale still goes to the session's cache.

    Privacy
    -------
    The caller must derive ``scales`` from public inputs only (U, n, the bin weights, a grid
    that is a function of them), never from the data (no quantile, maximum or data-driven
    range): then which keys ``PUBLIC_GRID`` holds depends on the public configurations used,
    as for ``SHARED``, and a timing probe learns nothing about anyone's θ. A private θ that
    happens to equal a grid point hits a key every session using that grid has anyway; a
    private θ off the grid never enters ``PUBLIC_GRID`` (the routing is by exact key).
    """
    keys = frozenset(_key(counts, n, scale) for scale in scales)
    token = _SESSION.set(_GridRouted(keys, _SESSION.get()))
    try:
        yield
    finally:
        _SESSION.reset(token)


def process_cache() -> StrategyCache:
    """The cache of θ-dependent strategies used when no session is bound."""
    return _PROCESS


def clear_caches() -> None:
    """Forget every cached strategy and tree (a cold start, for benchmarks and tests)."""
    SHARED.clear()
    PUBLIC_GRID.clear()
    _PROCESS.clear()
    _SESSION.get().clear()
    _tree.cache_clear()


def cached_greedy_h(counts: np.ndarray, n: int, scale: np.ndarray | None = None) -> Strategy:
    """:func:`greedy_h`, memoised; never on data, and θ-dependent strategies only per session.

    Privacy
    -------
    The strategy is a function of public inputs, but a cache adds a side channel: a hit is
    about 100× faster than a miss (≈ 0.03 ms against 3–6 ms at n = 1000), so whoever shares a
    cache can tell by timing which keys someone else has used. The keys are therefore split:

    * ``scale is None`` (TiMM's GreedyH(W)): the key is the public workload and n, the same
      for everyone who chooses that configuration. It goes to the process-wide ``SHARED``
      cache, so every session's first run is fast.
    * ``scale`` given (TaMM's GreedyH(W·T_θ)): the key carries θ, and θ is private whenever SVT
      or the recursive mechanism chose it from the data. A process-wide cache keyed by it would
      let one dashboard session learn another's θ (set a fixed θ, time the run). These go to the
      cache of the current session (:func:`session_cache`), so a session only ever observes its
      own θ, which it has already been shown.

    Why not keep TaMM shared and key it by public quantities only? SVT's θ is always one of the
    public grid points u_k or U, so precomputing TaMM's strategy for every grid point would make
    the shared cache's contents a function of the configuration alone — but it costs K builds
    (up to ``limits.MAX_SVT_GRID``) on the first SVT run, and the recursive mechanism's θ is
    continuous, so it has no public grid to precompute. Per-session caching is correct for both
    and cheap: a new session pays one build per distinct θ it draws (1–3 for SVT, ≈ 4 ms each),
    as every run does for the recursive θ in any case, and a run still builds each distinct θ
    only once (the measurement and the expected-error pass share the session's cache).
    """
    key = _key(counts, n, scale)
    cache = SHARED if scale is None else _SESSION.get()
    return cache.get(key, lambda: greedy_h(counts, n, scale))


def _key(counts: np.ndarray, n: int, scale: np.ndarray | None) -> tuple:
    """A strategy's cache key: n, the workload's counts and the θ-dependent scale (bytes)."""
    return (
        n,
        np.asarray(counts).tobytes(),
        None if scale is None else np.asarray(scale, float).tobytes(),
    )
