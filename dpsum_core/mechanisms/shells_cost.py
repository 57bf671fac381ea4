"""What ClampShells costs, from public sizes only: its run and its expected error, priced by
tree depth (from ε), leaves per shell and the clamp points J* its error is evaluated at.

Its record (:mod:`dpsum_core.mechanisms.clampshells`) is given these rules by the registry.
The expected error given J* (``clampshells._components_at``) maps every query onto the active
leaves (an (active leaves × all leaves) pass plus (active leaves × queries)) and takes, shell by
shell, the quadratic form of each query's coefficients with the shell's leaf covariance
(queries × leaves² per shell). With a 3-level tree at 5 000 bins (512 leaves in each of the
four widest shells, 5 000 queries) that is ≈ 6·10⁹ multiply-adds per J*: seconds per J*, tens of
seconds per ε — what the old single vectorised pass priced at 0.15 s.

>>> from dpsum_core.mechanisms.cost import Work
>>> deep = error_cost(Work(bins=5000, queries=5000, trials=1, thetas=100, epsilon=10.0))
>>> deep.run > 10  # every J* of a 3-level tree at 5 000 bins
True
>>> error_cost(Work(bins=1000, queries=1000, trials=1, thetas=100, epsilon=0.01)).run < 0.1
True
"""

from __future__ import annotations

import numpy as np

from dpsum_core.mechanisms.clampshells_design import (
    MIN_CLAMP_BIN,
    SHAPE_MAX_LEVELS,
    TREE_BRANCH,
    levels_for,
)
from dpsum_core.mechanisms.cost import PRODUCT_SECONDS, Seconds, Work, vectorised
from dpsum_core.mechanisms.rawsum import shell_edges

# bench/pricing.py, on the reference machine (2 cores, shared): the per-shell quadratic forms
# ran at ≈ 1.2 ns per (query, leaf²) at 5 000 bins, the map onto the leaves at ≈ 3·10⁻⁸ s per
# (active leaf, leaf + query), the per-shell least-squares inverses (design, cached) at
# ≈ 1·10⁻⁹ s per leaf³ (the first two kept at what was measured, the inverses rounded up);
# estimate / CPU seconds 1.2–2.9 for the error at depths 1–3, n = 1 000 and 2 000.
QUADRATIC_SECONDS = 1.2e-9
LEAF_MAP_SECONDS = 3e-8
DESIGN_CUBE_SECONDS = 1.5e-9
CLAMP_CALL_SECONDS = 5e-4  # the fixed part of one J* (Python-int sums, small arrays)


def _parts(bins: int, levels: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stage 2's part edges (as ``clampshells.design``) and each part's leaves and nodes."""
    shells = shell_edges(bins)
    point = levels <= SHAPE_MAX_LEVELS and bins - 1 > shells[-2]
    parts = np.insert(shells, -1, bins - 1) if point else shells
    width = np.diff(parts)
    per_level = np.minimum(TREE_BRANCH ** np.arange(levels + 1)[:, None], width[None, :])
    leaves = per_level[-1]
    # distinct partitions per part: equal counts at several levels are one partition
    nodes = np.array([sum(set(col.tolist())) for col in per_level.T], dtype=np.int64)
    return parts, leaves, nodes


def per_clamp_seconds(bins: int, queries: int, levels: int) -> np.ndarray:
    """The error's seconds given each J* stage 1 can output (ascending J*), at tree depth
    ``levels``."""
    parts, leaves, _ = _parts(bins, levels)
    shells = shell_edges(bins)
    clamp = shells[1:][shells[1:] >= min(MIN_CLAMP_BIN, bins)]
    active = np.searchsorted(parts, clamp, side="left")  # parts covering bins 1..J*
    squares = np.concatenate(([0], np.cumsum(leaves.astype(float) ** 2)))[active]
    below = np.concatenate(([0], np.cumsum(leaves)))[active].astype(float)
    total = float(leaves.sum())
    return (
        CLAMP_CALL_SECONDS
        + QUADRATIC_SECONDS * queries * squares
        + LEAF_MAP_SECONDS * below * (total + queries)
    )


def design_cost(bins: int, levels: int) -> float:
    """Seconds of the public design (one least-squares inverse per part; cached per process)."""
    _, leaves, _ = _parts(bins, levels)
    return DESIGN_CUBE_SECONDS * float(np.sum(leaves.astype(float) ** 3))


def _worst(bins: int, queries: int, levels: int, points: int) -> float:
    """The error at the ``points`` costliest J* (at most every J*)."""
    each = np.sort(per_clamp_seconds(bins, queries, levels))
    return float(each[max(0, each.size - points) :].sum())


def error_cost(work: Work) -> Seconds:
    """The expected error at ``work.thetas`` θ (at most one evaluation per distinct J*, the
    costliest counted: the law's support is unknown before reading the data) at budget
    ``work.epsilon``, and the design once."""
    levels = levels_for(work.epsilon)
    return Seconds(
        _worst(work.bins, work.queries, levels, work.thetas),
        once=design_cost(work.bins, levels),
    )


def run_cost(work: Work) -> Seconds:
    """One run: a vectorised pass over trials × (bins + queries), the least-squares
    reconstruction (trials × Σ leaves × nodes), the error column at the θ* the trials drew (at
    most one per distinct J*), and the design once."""
    levels = levels_for(work.epsilon)
    _, leaves, nodes = _parts(work.bins, levels)
    rebuild = PRODUCT_SECONDS * work.trials * float(np.sum(leaves * nodes))
    error = _worst(work.bins, work.queries, levels, work.trials)
    return Seconds(
        vectorised(work).run + rebuild + error, once=design_cost(work.bins, levels)
    )
