"""ClampShells' answers from its reconstructed leaves: the tail scan, cumulative sums,
interpolation inside a leaf and the clamped total (post-processing of the noisy measurement,
no budget; the mechanism is :mod:`dpsum_core.mechanisms.clampshells`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from dpsum_core.mechanisms.clampshells_design import SHAPE_MAX_LEVELS

if TYPE_CHECKING:
    from dpsum_core.mechanisms.clampshells_design import ClampShellsDesign

TAIL_Z = 1.0  # z: keep cells up to the last whose tail mass exceeds z noise sds
ONSET_FLOOR = 0.1  # the onset gate's z at noise sd σ: √(2 ln(1 + σ/(ONSET_FLOOR·δ))) (onset_gate)
# An answer also counts as the onset when the next one exceeds ONSET_NEXT_Z of its own noise sds
# (onset_gate). Tuning split (bench/accuracy.py --suite --split tuning, 50 trials): 10 ends the
# bimodal column's Q2 loss at ε = 1 (mean over queries 2.04× → 1.0× the best) with no cell more
# than 5 % worse; 5 costs bimodal Q2 at ε = 0.1 1.6×, 3 costs 16 cells; 30 and 100 keep the loss.
ONSET_NEXT_Z = 10.0
# …and 5 where the tree has 64 leaves per shell or more (depth ≥ 2, ε ≳ 0.45): tuning columns
# seeds 7 and 8 at ε = 1, the rounded column's Q2 mean 1.49× → ≤ 1.10× the best, no cell more
# than 6 % worse (at depth ≤ 1, 5 cost the bimodal column's Q2 1.6× at ε = 0.1).
# Not where the leaves are the workload's query intervals (clampshells_design, issue 26 item 3):
# their answers' sds are smaller, so a pure-noise first answer (a true sum of 0) passed the
# next-answer rule whenever it was positive (tuning columns seeds 7 and 8, ε = 1: the 5 000-row
# annual column's Q2 mean over queries 7–15× what it was); 10 there: every Q2 cell at ε = 1
# 0.72–0.94× its old mean but the rounded column on seed 8 (1.11×, still the best).
ONSET_NEXT_Z_DEEP = 5.0


def onset_next_z(levels: int, *, aligned: bool = False) -> float:
    """The onset gate's next-answer factor for a tree of depth ``levels`` (public: ε only),
    with leaves on the workload's query edges or not (public: the workload)."""
    return ONSET_NEXT_Z_DEEP if levels >= 2 and not aligned else ONSET_NEXT_Z


def tail_scan(d: ClampShellsDesign, x: np.ndarray, j_star: np.ndarray, epsilon: float) -> np.ndarray:
    """Keep leaves up to the last whose tail mass Σ_{c′ ≥ c} x̂_c′ exceeds TAIL_Z times its
    standard deviation; zero the rest (post-processing of the reconstructed leaves x̂). The
    point mass at U (bin n on its own, :attr:`ClampShellsDesign.point_top`) is neither scanned
    nor dropped: its noise would mask the tail below it, and it enters only the total."""
    _, _, _, suffix = d.leaf_moments
    k2 = d.shells_below(j_star)
    if d.point_top:
        scanned = _scan(d, x[:, :-1], np.minimum(k2, d.parts.size - 2), suffix[:-1], epsilon)
        return np.concatenate((scanned, x[:, -1:]), axis=1)
    return _scan(d, x, k2, suffix, epsilon)


def _scan(
    d: ClampShellsDesign, x: np.ndarray, k2: np.ndarray, suffix: np.ndarray, epsilon: float
) -> np.ndarray:
    """The tail scan over the first ``x.shape[1]`` leaves, ``k2`` active parts per trial."""
    C = x.shape[1]
    shell_of = d.cell_shell[:C]
    S = np.concatenate(([0.0], np.cumsum(d.shell_var)))
    # Var of the tail from leaf c: the rest of its shell + the later active shells (independent)
    tail_var = (suffix[None, :] + S[k2][:, None] - S[shell_of + 1][None, :]) / epsilon**2
    active = shell_of[None, :] < k2[:, None]
    tail = np.cumsum(x[:, ::-1], axis=1)[:, ::-1]
    keep = active & (tail > TAIL_Z * np.sqrt(np.maximum(tail_var, 0.0)))
    last = np.where(keep.any(axis=1), C - 1 - np.argmax(keep[:, ::-1], axis=1), -1)
    # Bin J* as a leaf of its own (the clamped records: clampshells_partition.top_cut) goes with
    # the leaf below it: the mass clamped to θ* is the tail's end, never cut off alone.
    top = np.searchsorted(d.cells, d.parts[k2], side="left") - 1
    alone = (top < C) & (d.cells[np.minimum(top, C - 1)] == d.parts[k2] - 1)
    last = np.where(alone & (last == top - 1), top, last)
    return np.where(np.arange(C)[None, :] <= last[:, None], x, 0.0)


def query_cells(d: ClampShellsDesign, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each query's bin count J_i: the leaf c holding bin J_i and the interpolation
    fraction (J_i − a_c)/(b_c − a_c) of that leaf below τ_i (public)."""
    c = np.clip(np.searchsorted(d.cells, counts, side="left") - 1, 0, d.cells.size - 2)
    a, b = d.cells[c], d.cells[c + 1]
    return c, np.clip((counts - a) / (b - a), 0.0, 1.0)


def curvature(d: ClampShellsDesign, x: np.ndarray, active: np.ndarray) -> np.ndarray:
    """β_c of every leaf (trials × C): the cumulative sum inside leaf c is modelled as
    x_c·f + β_c·f(1 − f) at fraction f, the quadratic whose slope falls from the density at
    the leaf's lower edge to the one at its upper edge; an edge's density is the mean of the two
    adjacent leaves' densities per bin (the leaf's own at the first leaf and at the last active
    one, ``active`` leaves per trial), so β_c = w_c·(ρ_lo − ρ_hi)/2. Linear in x (public
    weights): post-processing whose error stays analytic. Ratio-2 shells hold mass that falls
    steeply with the value, where linear interpolation inside a shell is biased by several %."""
    w = np.diff(d.cells).astype(float)
    if d.levels > SHAPE_MAX_LEVELS:
        return np.zeros_like(x)
    dens = x / w
    C = dens.shape[-1]
    below = np.concatenate((dens[..., :1], dens[..., :-1]), axis=-1)
    above = np.concatenate((dens[..., 1:], dens[..., -1:]), axis=-1)
    last = np.arange(C)[None, :] >= np.asarray(active).reshape(-1, 1) - 1
    if d.point_top:  # the point mass at U is no density: the leaf below it is a last leaf
        last[:, C - 2] = True
    above = np.where(last, dens, above)
    rho_lo, rho_hi = (below + dens) / 2, (dens + above) / 2
    return w * (rho_lo - rho_hi) / 2


def answers_from_cells(
    d: ClampShellsDesign, x: np.ndarray, j_star: np.ndarray, counts: np.ndarray,
    frac: np.ndarray | None = None,
) -> np.ndarray:
    """Cumulative sums at leaf edges, quadratic interpolation inside a leaf (:func:`curvature`),
    the clamped total for queries at or above θ* (trials × m). ``frac`` (trials × m) replaces
    the linear share of each query's leaf below its edge (:func:`query_cells`): the heap-weighted
    one with the partition (:mod:`~dpsum_core.mechanisms.clampshells_heaps`)."""
    c, lin = query_cells(d, counts)
    frac = np.broadcast_to(lin, (x.shape[0], lin.size)) if frac is None else frac
    active = np.searchsorted(d.cells, j_star, side="left")
    beta = curvature(d, x, active)
    before = np.cumsum(x, axis=1) - x
    inside = before[:, c] + x[:, c] * frac + beta[:, c] * (frac * (1 - frac))
    total = x.sum(axis=1)
    return np.where(counts[None, :] >= j_star[:, None], total[:, None], inside)


def answer_sd(
    d: ClampShellsDesign, counts: np.ndarray, j_star: np.ndarray, epsilon: float, *, stage1: bool = True
) -> np.ndarray:
    """The noise sd of every answer (trials × m), from the public design: the variance of the
    cumulative sum at the upper edge of the query's leaf (an upper bound for an edge inside
    it), and of the clamped total for a query at or above θ*; the parts below the top active
    one with their covariance after the GLS update with stage 1 (without ``stage1``, as
    measured: a public cap, no stage 1). Public given J*."""
    plain = d.leaf_moments
    combined = d.combined_moments if stage1 else (*plain[:3], d.shell_var)
    top = d.shells_below(j_star) - 1  # (trials,)
    part_var = np.where(np.arange(d.shell_var.size)[None, :] < top[:, None], combined[3], d.shell_var)
    S = np.concatenate((np.zeros((top.size, 1)), np.cumsum(part_var, axis=1)), axis=1)
    c, _ = query_cells(d, counts)
    shell = d.cell_shell[c]
    inside = [(m[0] + 2.0 * m[1] + m[2])[c] for m in (plain, combined)]
    own = np.where(shell[None, :] < top[:, None], inside[1][None, :], inside[0][None, :])
    at_end = np.take_along_axis(S, np.broadcast_to(shell, own.shape), axis=1) + own
    total = S[np.arange(top.size), top + 1]
    v = np.where(counts[None, :] >= j_star[:, None], total[:, None], at_end)
    return np.sqrt(np.maximum(v, 0.0)) / epsilon


def onset_gate(
    answers: np.ndarray, sd: np.ndarray, delta: float, next_z: float = ONSET_NEXT_Z
) -> np.ndarray:
    """Zero every answer before the *onset*: the first answer that exceeds z·σ, its noise sd σ
    times z = √(2 ln(1 + σ/(ONSET_FLOOR·δ))), or that is positive and whose next answer exceeds
    ``next_z`` times its own σ (per trial; all of them when there is no onset).

    The smallest queries often have true sums far below their noise (zeros, a few records); an
    answer 0 costs them a relative error ≤ 1, a noisy one about σ/max(y, δ). z grows with σ/δ
    as the Gaussian tail bound that keeps the expected cost of a pure-noise answer let through,
    ≈ (σ/δ)·e^{−z²/2}, below one: no gate where the noise is below δ. But an answer one query
    before a sum ten noise sds above zero sits on a density already rising, not on an empty
    stretch: zeroing it (a true sum of two noise sds, the first Q2 query of a bimodal column at
    ε = 1) cost a relative error of 1 where the noisy answer costs ≈ 0.4. Post-processing of
    the noisy answers with public sds and the public δ of the error metric."""
    z = np.sqrt(2.0 * np.log1p(sd / (ONSET_FLOOR * delta)))
    significant = answers > z * sd
    significant[:, :-1] |= (answers[:, :-1] > 0) & (answers[:, 1:] > next_z * sd[:, 1:])
    m = answers.shape[1]
    first = np.where(significant.any(axis=1), np.argmax(significant, axis=1), m)
    return np.where(np.arange(m)[None, :] < first[:, None], 0.0, answers)


def onset_gated(answers: np.ndarray) -> np.ndarray:
    """Which of one trial's answers (before isotonic regression) :func:`onset_gate` set to 0:
    the leading run of exact zeros. The gate zeroes every answer before the onset and keeps the
    onset's, which is > 0 (above z·σ ≥ 0, or positive), so the leading zeros are exactly the
    gated answers (all of them where there is no onset); a 0 after the onset is not gated.
    Post-processing of the noisy answers.

    >>> onset_gated(np.array([0.0, 0.0, 3.5, 0.0, 7.0])).tolist()
    [True, True, False, False, False]
    """
    answers = np.asarray(answers, float)
    nonzero = answers != 0
    first = int(np.argmax(nonzero)) if nonzero.any() else answers.size
    return np.arange(answers.size) < first
