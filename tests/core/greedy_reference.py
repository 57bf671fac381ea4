"""A straightforward dense port of ektelo's GreedyH recursion (SPEC §4), the reference that the
structured implementation in dpsum_core.mechanisms.greedy_h must agree with; bench/naive.py times it as the naive port."""

from __future__ import annotations

import numpy as np
from scipy.linalg import block_diag


def greedy_h_dense(gram: np.ndarray, branch: int = 2, granularity: int = 100):
    """Return (rows [(start, end_exclusive, weight)], inverse) following SPEC §4 literally."""
    n = gram.shape[0]
    _err, inv, rows = _node(gram, 0, n, 0, branch, granularity)
    return [r for r in rows if r[2] > 0], inv


def _node(G, a, b, depth, branch, g):
    s = b - a
    if s == 1:
        return float(np.sum(G[:, a] ** 2)), np.ones((1, 1)), [(a, b, 1.0)]
    block = G[:, a:b]
    if np.all(block.min(axis=1) == block.max(axis=1)):
        return float(np.sum(G[:, a] ** 2)), np.full((s, s), 1.0 / s**2), [(a, b, 1.0)]
    if s <= branch:
        sizes = [1] * s
    else:
        r = s % branch
        q = (s - r) // branch
        sizes = [q] * (branch - r) + [q + 1] * r
    bounds, off = [], a
    for size in sizes:
        bounds.append((off, off + size))
        off += size
    kids = [_node(G, lo, hi, depth + 1, branch, g) for lo, hi in bounds]
    B_inv = block_diag(*[k[1] for k in kids])
    us = [k[1].sum(axis=1) for k in kids]
    u = np.concatenate(us)
    k = u.sum()
    E = sum(kd[0] for kd in kids)
    m_full = float(np.sum((G[:, a:b] @ u) ** 2))
    m_in = sum(float(np.sum((G[:, lo:hi] @ uc) ** 2)) for (lo, hi), uc in zip(bounds, us, strict=True))
    decay = 1.0 / branch ** (depth / 2.0)
    i = np.arange(g, dtype=float)
    err1 = (g - i) ** 2
    err2 = i**2 * decay
    tot = (E - ((m_full - m_in) * decay + m_in) * err2 / (err1 + err2 * k)) / err1
    best = int(np.argmin(tot))
    p = 1.0 - best / g
    inv = (B_inv - (1 - p) ** 2 / (p**2 + k * (1 - p) ** 2) * np.outer(u, u)) / p**2
    rows = [(a, b, 1 - p)] + [(lo, hi, p * w) for kd in kids for lo, hi, w in kd[2]]
    return float(tot[best] * g**2), inv, rows
