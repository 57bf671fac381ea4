"""ClampShells' private partition (from tree depth 1, without a public cap): where stage 2's
leaves are cut, measured on the budget no other measurement uses (issue 26; bench/ACCURACY.md,
rounds 5 and 6).

Stage 2 interpolates inside its leaves, and a leaf holding a heap (hourly wages at whole
dollars, weekly wages at round numbers) makes that interpolation biased. Between stage 1 and
stage 2, every bin j below J* is measured, clamped, with Lap(e_j/β_j); binary segmentation of
those noisy sums chooses where the leaves below the top active part are cut (only at the
workload's query edges, only where the noisy interpolation bias is significant); stage 2
measures the refined tree; the partition's sums then join the leaves by generalised least
squares. DAWA (Li, Hay, Miklau, Wang, VLDB 2014) partitions the same way before measuring.

Privacy
-------
*The slack.* Node and shell scales are set by their *top* value, so a record lower in a node
pays less than the node's share: a record with value t ≤ e_j in bin j < J* (not clamped)
loses t·pε/g_{k(j)} to stage 1 (g_k the top of its shell) and t·ℓ_j/e_j to stage 2, ℓ_j the
exact stage-2 loss of a record at e_j (:meth:`ClampShellsDesign.loss_per_bin`). The partition
spends β_j = ε − pε·e_j/g_{k(j)} − ℓ_j (less a 10⁻¹² ε margin for rounding) on bin j, so that
record loses (t/e_j)·(pε·e_j/g_{k(j)} + β_j + ℓ_j) ≤ ε. β_j is 0 at the top of every part
(every node holding bin j ends there), in particular at J*: a record clamped to θ* = e_{J*}, or
in bin J*, loses pε to stage 1, nothing to the partition (bin J* is never measured) and
(1 − p)ε to stage 2. Bins whose β_j is below 10⁻⁶ ε are not measured at all.

*The cuts and the dropped level.* β is a function of J* (stage 1's output) and public inputs;
the cuts are a function of the partition's noisy sums (post-processing). A cut leaf's pieces
keep the leaf's Laplace scale, so each record's stage-2 loss is exactly ℓ_j whatever the cuts
(:func:`~dpsum_core.mechanisms.clampshells_design.refined_design`). Where the public tree ends
in single bins (depth ≥ 2, parts of at most :data:`DROP_WIDTH` bins below the top active one:
a function of J*), that level is left out and the cuts refine the level above; dropping the
finest level never raises a record's loss, and β is computed from the design actually measured.
Bin J* is cut from the top leaf (:func:`top_cut`, a function of J*), the same kind of cut.
By adaptive sequential composition the whole mechanism is ε-DP; the exact per-record loss of
the draws is tested (``tests/core/test_partition_loss.py``). The generalised least squares
with the partition's sums is post-processing; the cuts were chosen from the same sums, a
selection effect measured (bench/ACCURACY.md), not corrected.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from dpsum_core.mechanisms.clampshells_design import TREE_BRANCH, part_tree, refined_design
from dpsum_core.mechanisms.clampshells_locate import stage1_scale

if TYPE_CHECKING:
    from dpsum_core.mechanisms.clampshells_design import ClampShellsDesign, EdgeStatistics
    from dpsum_core.noise import Noise

PARTITION_Z = 3.0  # a cut where the noisy interpolation bias exceeds z of its noise sds…
PARTITION_KAPPA = 1.0  # …and κ noise sds of the tree's leaf (tuning split, bench/ACCURACY.md)
DROP_WIDTH = 64  # the single-bin level is left out in parts of at most this many bins
BETA_MIN = 1e-6  # a bin whose slack is below this share of ε is not measured
SLACK_MARGIN = 1e-12  # share of ε left unspent on every bin: rounding never exceeds ε

Cuts = tuple[tuple[int, tuple[int, ...]], ...]  # (part, its cuts) for the parts with cuts


def partitioned(d: ClampShellsDesign, cap: float | None) -> bool:
    """Whether ClampShells measures the partition: from tree depth 1 (ε ≳ 0.057; below it the
    leaves are whole shells), never with a public cap (not measured there)."""
    return d.levels >= 1 and cap is None


def dropped_parts(d: ClampShellsDesign, j_star: int) -> tuple[int, ...]:
    """The parts below J*'s top active one whose public tree has at least three levels and ends
    in single bins, at most :data:`DROP_WIDTH` bins wide (public given J*)."""
    if d.levels < 2:
        return ()
    out = []
    for k in range(int(d.shells_below(j_star)) - 1):
        if d.parts[k + 1] - d.parts[k] > DROP_WIDTH:
            continue
        tree = part_tree(d.levels, TREE_BRANCH, d.aligned_on, k, d.parts)
        if len(tree) >= 3 and bool(np.all(np.diff(tree[-1]) == 1)):
            out.append(k)
    return tuple(out)


def slack(d_j: ClampShellsDesign, j_star: int, epsilon: float) -> np.ndarray:
    """β_j for bins 1..J* (J*,): the budget a record at e_j leaves unspent by stage 1 and by
    stage 2 on ``d_j`` (the design measured given J*, level dropped, before any cut), 0 at
    J*, at the top of every part and where below :data:`BETA_MIN` ε.

    Privacy
    -------
    Public given J*: the design's scales and stage 1's scales only.
    """
    e = d_j.domain.edges[:j_star]
    k_of = np.searchsorted(d_j.shells, np.arange(1, j_star + 1), side="left") - 1
    used = e / stage1_scale(d_j, epsilon)[k_of] + d_j.loss_per_bin(d_j.node_scale / epsilon)[:j_star]
    beta = epsilon * (1.0 - SLACK_MARGIN) - used
    beta[j_star - 1] = 0.0
    return np.where(beta >= BETA_MIN * epsilon, beta, 0.0)


def partition_scale(d_j: ClampShellsDesign, j_star: int, epsilon: float) -> np.ndarray:
    """The partition's Laplace scale of bins 1..J*, e_j/β_j (∞: not measured). Public given J*."""
    beta = slack(d_j, j_star, epsilon)
    return np.where(beta > 0, d_j.domain.edges[:j_star] / np.where(beta > 0, beta, 1.0), np.inf)


def measure_partition(
    stats: EdgeStatistics, d_j: ClampShellsDesign, j_star: int, trials: int, *, epsilon: float,
    rng: Noise,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """The partition of ``trials`` trials at one J*: noisy clamped bin sums (trials × J*, 0
    where not measured) and the Laplace scales drawn (J*,; ∞ where not measured). One draw.

    Privacy
    -------
    Bin j gets Lap(e_j/β_j) (:func:`slack`): a record moves one bin by at most e_j.
    """
    scale = partition_scale(d_j, j_star, epsilon)
    measured = np.flatnonzero(np.isfinite(scale))
    y = np.zeros((trials, j_star))
    if measured.size:
        exact = stats.clamped_sums(measured, measured + 1, d_j.domain, j_star)
        y[:, measured] = rng.add_laplace(np.broadcast_to(exact, (trials, measured.size)), scale[measured])
    return y, scale


def segment_cuts(
    d_j: ClampShellsDesign, y: np.ndarray, scale: np.ndarray, j_star: int, counts: np.ndarray,
    epsilon: float,
) -> list[Cuts]:  # fmt: skip
    """Binary segmentation of every leaf of ``d_j`` below J*'s top active part, per trial: cut a
    leaf (a, b] at the query edge i maximising the noisy interpolation bias
    |D_i| = |Σ_{a<j≤i} Y_j − (i−a)/(b−a)·Σ_{a<j≤b} Y_j| while |D_i| > z·sd(D_i) and
    |D_i| > κ·(the leaf's noise sd in the tree), then each piece likewise. A leaf holding a bin
    not measured is not cut. Vectorised over trials and leaves, one round per depth.

    Privacy
    -------
    Post-processing of the partition's noisy sums and public inputs.
    """
    trials = y.shape[0]
    top = int(d_j.shells_below(j_star)) - 1
    below = d_j.cell_shell < top
    lo, hi = d_j.cells[:-1][below], d_j.cells[1:][below]
    cv, missing = _cumulative_var(scale)
    ok_leaf = (hi - lo >= 2) & (missing[hi] == missing[lo])
    if not ok_leaf.any() or trials == 0:
        return [() for _ in range(trials)]
    sd_leaf = np.sqrt(np.concatenate([np.diagonal(V) for V in d_j.leaf_cov])[below]) / epsilon
    allowed = np.zeros(j_star + 1, bool)
    allowed[counts[counts <= j_star]] = True
    cy = np.concatenate((np.zeros((trials, 1)), np.cumsum(y, axis=1)), axis=1)
    t_idx, l_idx = np.nonzero(np.broadcast_to(ok_leaf, (trials, ok_leaf.size)))
    seg_t, seg_a, seg_b, seg_sd = t_idx, lo[l_idx], hi[l_idx], sd_leaf[l_idx]
    found: list[list[tuple[int, int]]] = [[] for _ in range(trials)]
    while seg_t.size:
        w = seg_b - seg_a
        pos_n = w - 1  # candidate edges a+1..b−1
        seg_of = np.repeat(np.arange(seg_t.size), pos_n)
        i = seg_a[seg_of] + 1 + (np.arange(seg_of.size) - np.repeat(np.cumsum(pos_n) - pos_n, pos_n))
        t, a, b = seg_t[seg_of], seg_a[seg_of], seg_b[seg_of]
        f = (i - a) / (b - a)
        d = (cy[t, i] - cy[t, a]) - f * (cy[t, b] - cy[t, a])
        var = (1 - f) ** 2 * (cv[i] - cv[a]) + f**2 * (cv[b] - cv[i])
        score = np.abs(d)
        ok = (score > PARTITION_Z * np.sqrt(var)) & (score > PARTITION_KAPPA * seg_sd[seg_of]) & allowed[i]
        masked = np.where(ok, score, -1.0)
        starts = np.cumsum(pos_n) - pos_n
        best = np.maximum.reduceat(masked, starts)
        hit = ok & (masked == best[seg_of])
        segs, first = np.unique(seg_of[hit], return_index=True)  # the first maximum per segment
        cut = i[hit][first]
        for s, c in zip(segs.tolist(), cut.tolist(), strict=True):
            found[int(seg_t[s])].append((int(d_j.cell_shell[np.searchsorted(d_j.cells, c) - 1]), int(c)))
        seg_t = np.concatenate((seg_t[segs], seg_t[segs]))
        seg_a, seg_b = np.concatenate((seg_a[segs], cut)), np.concatenate((cut, seg_b[segs]))
        seg_sd = np.concatenate((seg_sd[segs], seg_sd[segs]))
        keep = seg_b - seg_a >= 2
        seg_t, seg_a, seg_b, seg_sd = seg_t[keep], seg_a[keep], seg_b[keep], seg_sd[keep]
    return [_by_part(x) for x in found]


def _cumulative_var(scale: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative sums (from bin 0) of the measured bins' variances 2b² and of the number of
    bins not measured (b = ∞): a stretch of bins is measured whole where the second is flat."""
    measured = np.isfinite(scale)
    var = np.where(measured, 2.0 * np.where(measured, scale, 0.0) ** 2, 0.0)
    return np.concatenate(([0.0], np.cumsum(var))), np.concatenate(([0], np.cumsum(~measured)))


def _by_part(cuts: list[tuple[int, int]]) -> Cuts:
    """(part, cut) pairs grouped per part, sorted: a hashable key of a refined design."""
    parts: dict[int, list[int]] = {}
    for k, c in cuts:
        parts.setdefault(k, []).append(c)
    return tuple((k, tuple(sorted(v))) for k, v in sorted(parts.items()))


def stage2_design(d: ClampShellsDesign, j_star: int, cuts: Cuts) -> ClampShellsDesign:
    """The design stage 2 measures given J* and the cuts (``d`` itself without the partition):
    with bin J* cut from the top leaf (:func:`top_cut`)."""
    return refined_design(d, dropped_parts(d, j_star), (*cuts, *top_cut(d, j_star)))


def top_cut(d: ClampShellsDesign, j_star: int) -> Cuts:
    """Bin J* as a leaf of its own where a query edge lies inside the top leaf: every record
    clamped to θ* = e_{J*} (and every value cleaned to U) sits in bin J*, a point mass that
    interpolation inside the top leaf would spread over the queries below it. Public given J*.

    Privacy
    -------
    A cut: the two pieces keep the leaf's Laplace scale (:func:`refined_design`), so no
    record's loss changes.
    """
    top = int(d.shells_below(j_star)) - 1
    leaves = part_tree(d.levels, TREE_BRANCH, d.aligned_on, top, d.parts)[-1]
    a = int(leaves[-2])
    inside = (j_star - a >= 2) and (
        d.aligned_on is None or bool(np.any((d.aligned_on > a) & (d.aligned_on < j_star)))
    )
    return ((top, (j_star - 1,)),) if inside else ()


def released_design(
    d: ClampShellsDesign, j_star: int, partition: np.ndarray, counts: np.ndarray, epsilon: float
) -> ClampShellsDesign:
    """The design a release's stage 2 was measured on, from its partition's noisy values as
    drawn (the measured bins', in order): the same cuts the mechanism chose.

    Privacy
    -------
    Post-processing of the released partition and public inputs.
    """
    d_j = stage2_design(d, j_star, ())
    scale = partition_scale(d_j, j_star, epsilon)
    measured = np.flatnonzero(np.isfinite(scale))
    values = np.asarray(partition, float).ravel()
    if values.size != measured.size:
        raise ValueError(f"the partition holds {values.size} values, its design {measured.size}")
    y = np.zeros((1, j_star))
    y[0, measured] = values
    return stage2_design(d, j_star, segment_cuts(d_j, y, scale, j_star, counts, epsilon)[0])


def combine_partition(
    d: ClampShellsDesign, leaves: np.ndarray, y: np.ndarray, scale: np.ndarray, j_star: int,
    epsilon: float,
) -> np.ndarray:  # fmt: skip
    """The leaves (trials × C) of the active parts combined with the partition's sums of the
    same leaves by generalised least squares: x̂ + V_{·S}(V_{SS} + D_S)⁻¹(Y_S − x̂_S), V the
    leaves' covariance in the tree, D the partition's (diagonal) variance per leaf, S the
    leaves whose bins were all measured.

    Privacy
    -------
    Post-processing of two noisy measurements and public inputs.
    """
    out = leaves.copy()
    cum_y = np.concatenate((np.zeros((y.shape[0], 1)), np.cumsum(y, axis=1)), axis=1)
    cum_v, missing = _cumulative_var(scale)
    col = 0
    for V in d.leaf_cov:
        idx = np.arange(col, col + V.shape[0])
        col += V.shape[0]
        lo, hi = d.cells[idx], d.cells[idx + 1]
        if hi[-1] > j_star:
            break
        dv = cum_v[hi] - cum_v[lo]
        s = np.flatnonzero(missing[hi] == missing[lo])
        if not s.size:
            continue
        Vs = V / epsilon**2
        resid = (cum_y[:, hi[s]] - cum_y[:, lo[s]]) - leaves[:, idx[s]]
        gain = np.linalg.solve(Vs[np.ix_(s, s)] + np.diag(dv[s]), Vs[s, :])  # (|S| × leaves)
        out[:, idx] += resid @ gain
    return out
