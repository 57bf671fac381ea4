"""GreedyH (DAWA's greedy hierarchy, as in ektelo) with its exact (AᵀA)⁻¹, per SPEC §4.

The recursion of ektelo's ``_GreedyHierByLv`` is evaluated level by level, bottom-up: every
node's choice needs only scalars of its children (err, k = 1ᵀu, ‖G_c u_c‖²) plus one product
G·u_node, and the products for all nodes of one depth are a single sparse-times-dense product.
This gives the same strategy as the recursive form at a fraction of the Python overhead.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from functools import cache
from threading import Lock

import numpy as np
from scipy import sparse


@dataclass(frozen=True, eq=False)
class Strategy:
    """A strategy A of weighted interval rows, with the exact (pseudo-)inverse of AᵀA.

    Attributes
    ----------
    starts, ends
        Row r covers cells ``starts[r] ≤ j < ends[r]`` (0-based, end exclusive).
    weights
        Row weights (all > 0).
    inverse
        (AᵀA)⁻¹ (n × n); on a collapsed block it is the pseudo-inverse 11ᵀ/s².
    """

    n: int
    starts: np.ndarray
    ends: np.ndarray
    weights: np.ndarray
    inverse: np.ndarray

    @property
    def rows(self) -> int:
        """Number of measured queries."""
        return int(self.weights.size)

    def sparse(self) -> sparse.csr_matrix:
        """A as a CSR matrix (rows × n)."""
        lengths = self.ends - self.starts
        row_idx = np.repeat(np.arange(self.rows), lengths)
        offsets = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        cols = np.repeat(self.starts, lengths) + offsets
        vals = np.repeat(self.weights, lengths)
        return sparse.csr_matrix((vals, (row_idx, cols)), shape=(self.rows, self.n))

    def dense(self) -> np.ndarray:
        """A as a dense array, for tests and small n."""
        return self.sparse().toarray()

    @property
    def l1_norm(self) -> float:
        """‖A‖₁, the largest column L1 norm (1 for GreedyH up to rounding)."""
        return float(np.abs(self.sparse()).sum(axis=0).max())

    def column_l1(self) -> np.ndarray:
        """L1 norm of every column of A."""
        return np.asarray(np.abs(self.sparse()).sum(axis=0)).ravel()


@cache
def _tree(n: int, branch: int) -> tuple[np.ndarray, ...]:
    """The GreedyH tree over n cells in BFS order: start, end, depth, parent, first child, #kids."""
    start, end, depth, parent = [0], [n], [0], [-1]
    first_child, n_children = [], []
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
        first_child.append(len(start))
        n_children.append(len(sizes))
        offset = start[i]
        for s in sizes:
            start.append(offset)
            end.append(offset + s)
            depth.append(depth[i] + 1)
            parent.append(i)
            offset += s
        i += 1
    arrays = tuple(
        np.asarray(a, dtype=np.int64)
        for a in (start, end, depth, parent, first_child, n_children)
    )
    for a in arrays:
        a.setflags(write=False)
    return arrays


def greedy_h(gram: np.ndarray, *, branch: int = 2, granularity: int = 100) -> Strategy:
    """GreedyH strategy for a workload with Gram matrix ``gram`` = MᵀM (SPEC §4).

    Parameters
    ----------
    gram
        G = MᵀM (n × n), e.g. WᵀW for TiMM or T_θWᵀWT_θ for TaMM. Like ektelo, the greedy
        recursion runs on G in place of M.
    branch
        Branching factor b.
    granularity
        Number g of candidate weights p ∈ {1, 1 − 1/g, …, 1/g} tried per node.

    Returns
    -------
    Strategy
        Weighted interval rows (every column has L1 norm 1) and the exact (AᵀA)⁻¹.

    Notes
    -----
    The strategy depends only on the public workload (and on θ for TaMM); it never touches
    the data, so it costs no privacy budget.
    """
    G = np.asarray(gram, dtype=float)
    n = G.shape[0]
    start, end, depth, parent, first_child, n_children = _tree(n, branch)
    size = end - start
    n_nodes = start.size

    # A node collapses when all its columns of G are identical (exact comparison, as ektelo).
    differs = np.concatenate(([0], np.cumsum(np.any(G[:, 1:] != G[:, :-1], axis=0))))
    collapsed = (size > 1) & (differs[end - 1] - differs[start] == 0)
    leaf_like = (size == 1) | collapsed
    col_sq = np.einsum("ij,ij->j", G, G)

    err = np.zeros(n_nodes)
    k_final = np.zeros(n_nodes)  # 1ᵀ inv 1 of the node's final inverse
    mf_final = np.zeros(n_nodes)  # ‖G_node · inv·1‖²
    p_node = np.ones(n_nodes)
    gamma = np.zeros(n_nodes)
    u = np.zeros(n)  # the current node's inv·1, stitched over the whole domain
    u_raw_by_depth: dict[int, np.ndarray] = {}

    g = granularity
    i = np.arange(g, dtype=float)
    err1 = (g - i) ** 2  # p² · g²
    p_grid = 1.0 - i / g

    # Sum of children's values for each node, via the contiguous BFS child ranges.
    kid_of = np.repeat(np.arange(n_nodes), n_children)
    kid_rows = np.concatenate([np.arange(f, f + c) for f, c in zip(first_child, n_children, strict=True) if c]) if n_nodes > 1 else np.zeros(0, np.int64)

    for d in range(int(depth.max()), -1, -1):
        at_d = depth == d
        lk = np.flatnonzero(at_d & leaf_like)
        if lk.size:
            err[lk] = col_sq[start[lk]]
            mf_final[lk] = col_sq[start[lk]]
            k_final[lk] = 1.0
            for v in lk:  # set u = 1/s on leaf-like ranges (few, or size 1)
                u[start[v]:end[v]] = 1.0 / size[v]
        internal = np.flatnonzero(at_d & ~leaf_like)
        u_raw_by_depth[d] = u.copy()
        if not internal.size:
            continue
        sel = np.isin(kid_of, internal)
        parents = kid_of[sel]
        kids = kid_rows[sel]
        E = np.bincount(parents, weights=err[kids], minlength=n_nodes)[internal]
        k = np.bincount(parents, weights=k_final[kids], minlength=n_nodes)[internal]
        m_in = np.bincount(parents, weights=mf_final[kids], minlength=n_nodes)[internal]
        # m_full = ‖G[:, node] u_node‖² for all nodes of this depth: one sparse product.
        lengths = size[internal]
        cols = np.concatenate([np.arange(start[v], end[v]) for v in internal])
        rows = np.repeat(np.arange(internal.size), lengths)
        S = sparse.csr_matrix((u[cols], (rows, cols)), shape=(internal.size, n))
        GS = S @ G  # (nodes × n) = (G S)ᵀ since G is symmetric
        m_full = np.einsum("ij,ij->i", GS, GS)

        decay = 1.0 / branch ** (d / 2.0)
        err2 = i**2 * decay  # (1−p)² · g² · δ
        mix = (m_full - m_in) * decay + m_in
        tot = (E[:, None] - mix[:, None] * err2[None, :] / (err1[None, :] + err2[None, :] * k[:, None])) / err1[None, :]
        best = np.argmin(tot, axis=1)
        p = p_grid[best]
        err[internal] = tot[np.arange(internal.size), best] * g**2
        denom = p**2 + k * (1 - p) ** 2
        p_node[internal] = p
        gamma[internal] = (1 - p) ** 2 / denom
        # inv·1 = u / (p² + k(1−p)²): rescale this depth's ranges in place.
        scale = np.repeat(1.0 / denom, lengths)
        u[cols] *= scale
        k_final[internal] = k / denom
        mf_final[internal] = m_full / denom**2

    return _assemble(n, start, end, depth, parent, leaf_like, collapsed, p_node, gamma, u_raw_by_depth)


def _assemble(n, start, end, depth, parent, leaf_like, collapsed, p_node, gamma, u_raw_by_depth) -> Strategy:
    """Rows and the dense inverse, top-down over the nodes that are not inside a collapsed one."""
    n_nodes = start.size
    active = np.zeros(n_nodes, bool)
    mult = np.zeros(n_nodes)  # row-weight multiplier: product of ancestors' p
    scale = np.zeros(n_nodes)  # inverse multiplier: product of ancestors' 1/p²
    active[0], mult[0], scale[0] = True, 1.0, 1.0
    for v in range(1, n_nodes):
        a = parent[v]
        if active[a] and not leaf_like[a]:
            active[v] = True
            mult[v] = mult[a] * p_node[a]
            scale[v] = scale[a] / p_node[a] ** 2
    inv = np.zeros((n, n))
    r_start, r_end, r_w = [], [], []
    for v in np.flatnonzero(active):
        a, b = int(start[v]), int(end[v])
        if leaf_like[v]:
            r_start.append(a), r_end.append(b), r_w.append(mult[v])
            s = b - a
            inv[a:b, a:b] += scale[v] / s**2 if collapsed[v] else scale[v]
        else:
            w = mult[v] * (1 - p_node[v])
            if w > 0:
                r_start.append(a), r_end.append(b), r_w.append(w)
            if gamma[v] > 0:
                uv = u_raw_by_depth[int(depth[v])][a:b]
                inv[a:b, a:b] -= (scale[v] / p_node[v] ** 2 * gamma[v]) * np.outer(uv, uv)
    inv.setflags(write=False)
    order = np.lexsort((np.asarray(r_end), np.asarray(r_start)))
    return Strategy(
        n=n,
        starts=np.asarray(r_start, np.int64)[order],
        ends=np.asarray(r_end, np.int64)[order],
        weights=np.asarray(r_w, float)[order],
        inverse=inv,
    )


# --------------------------------------------------------------------------------------------
# Gram matrices of prefix workloads, and a small thread-safe cache of strategies
# --------------------------------------------------------------------------------------------
def prefix_gram(counts: np.ndarray, n: int, scale: np.ndarray | None = None) -> np.ndarray:
    """G = T WᵀW T for the prefix workload with edge counts k_i (T = diag(scale) or I).

    (WᵀW)_jl = #{i : k_i ≥ max(j, l)}: a gather, O(n²), no m×n product.
    """
    cover = n - np.searchsorted(np.sort(counts), np.arange(1, n + 1), side="left")
    idx = np.arange(n)
    G = cover[np.maximum.outer(idx, idx)].astype(float)
    if scale is not None:
        G *= np.outer(scale, scale)
    return G


_CACHE: OrderedDict[tuple, Strategy] = OrderedDict()
_CACHE_LOCK = Lock()
_CACHE_SIZE = 512


def cached_greedy_h(counts: np.ndarray, n: int, scale: np.ndarray | None = None) -> Strategy:
    """GreedyH for a prefix workload (optionally weighted by T = diag(scale)), memoised.

    The key is the public workload and weights, never the data.
    """
    key = (n, counts.tobytes(), None if scale is None else np.asarray(scale, float).tobytes())
    with _CACHE_LOCK:
        hit = _CACHE.get(key)
        if hit is not None:
            _CACHE.move_to_end(key)
            return hit
    strategy = greedy_h(prefix_gram(counts, n, scale))
    with _CACHE_LOCK:
        _CACHE[key] = strategy
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return strategy
