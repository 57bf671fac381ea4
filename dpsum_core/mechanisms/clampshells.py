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
   (depth chosen from the public ε only; depth 0 is the plain design) has λ distinct levels,
   each a partition of the part nested in the one above: equal splits, or from depth 1 runs
   of the workload's query intervals inside the part when they number at most B^L (the
   workload is public, so the tree is; :mod:`dpsum_core.mechanisms.clampshells_design`);
   the record lies in one node per level and moves it by c ≤ g_node: with
   Lap(g_node·λ/((1−p)ε)), λ the part's own level count, the loss is ≤ λ·(1−p)ε/λ = (1−p)ε.
2b. *The partition, from tree depth 1 without a public cap* (issue 26;
   :mod:`dpsum_core.mechanisms.clampshells_partition`): between the two stages, every bin j
   below J* gets its clamped sum plus Lap(e_j/β_j), β_j the budget a record at e_j leaves
   unspent by stage 1 (pε·(1 − e_j/g_k)) and by stage 2 (scales are set by node tops); 0 at
   J* and at every part's top, which are never measured. A record at t ≤ e_j then loses
   (t/e_j)·ε at most, a clamped one pε + (1−p)ε. The cuts (binary segmentation of the noisy
   bin sums at query edges, below the top active part) and the dropped single-bin level
   (a function of J*) refine stage 2's tree without changing any record's loss (a cut leaf's
   pieces keep its scale): stage 2 is still a fixed Laplace mechanism given J* and the cuts.
3. *A public cap* (a top code the user states as public knowledge, ``Inputs.public_cap``,
   never read from the data): J* is the lowest shell edge whose θ* covers the cap's bin, a
   constant, so there is no stage 1 and stage 2 is one fixed Laplace mechanism with all of ε
   (scales g_node·λ/ε: loss ≤ ε). A value above a wrong cap is clamped, never leaked.
4. Adaptive sequential composition: ε. Least squares inside each part, the GLS update of the
   parts below the top active one with stage 1's noisy sums of the same shells (no record is
   clamped there, so both measure the same raw sums; the tail scan keeps stage 2's own,
   larger, variances), from depth 1 the GLS with the partition's sums of the leaves (the
   cuts were chosen from the same sums: a selection effect, measured), the tail scan,
   cumulative sums, interpolation (quadratic inside a leaf at depth 0, with public weights;
   with the partition weighted by the roundness of the bin edges, the weights estimated from
   the partition's sums: :mod:`~dpsum_core.mechanisms.clampshells_heaps`),
   the clamped total above θ*, the onset gate (answers
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
the 5 000-row annual column, 8.2–8.4× on the top-coded one);
with the leaves on the workload's query edges (issue 26 item 3; bench/ACCURACY.md, round 2)
and the partition (rounds 5 and 6) ClampShells is within 10 % of the best of all algorithms on
the median in 90 of 90 cells on both held-out sets, and on the mean over queries in 89 of 90
(columns seed 2024) and 90 of 90 (seed 2025); the miss is the hourly column's Q1 mean at
ε = 1 on seed 2024 (1.10× RawSum's: heaps at whole dollars, every bin a query).

Sums are exact: every cell sum is the correctly rounded *exact* sum of the records in the cell
(integer limbs, :mod:`dpsum_core.data.exact`), so adding a record changes only the one sum it
belongs to, bit for bit (never a difference of rounded running totals).
"""

from __future__ import annotations

import numpy as np

from dpsum_core.checkpoint import checkpoint
from dpsum_core.data.domain import Domain
from dpsum_core.mechanisms.algorithm import INSIDE, INSIDE_THETA, Algorithm
from dpsum_core.mechanisms.clampshells_answers import (
    answer_sd,
    answers_from_cells,
    onset_gate,
    onset_next_z,
    tail_scan,
)
from dpsum_core.mechanisms.clampshells_design import (
    LOCATE_SHARE,
    ClampShellsDesign,
    EdgeStatistics,
    design_for,
    edge_statistics,
)
from dpsum_core.mechanisms.clampshells_heaps import heap_fractions
from dpsum_core.mechanisms.clampshells_locate import (
    clamp_bins_at,
    clamp_law,
    combine_stage1,
    locate_measured,
    public_clamp_bin,
    stage1_scale,
)
from dpsum_core.mechanisms.clampshells_partition import (
    Cuts,
    combine_partition,
    measure_partition,
    partitioned,
    segment_cuts,
    stage2_design,
)
from dpsum_core.mechanisms.measurement import Inputs, Measurement
from dpsum_core.mechanisms.workloads import Workload
from dpsum_core.noise import Noise, as_noise


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
    :meth:`ClampShellsDesign.loss_per_bin` computes the exact sum from the scales drawn,
    returned as the ε spent.
    """
    z, loss = _measure_clamped(stats, d, j_star, epsilon=epsilon, rng=rng)
    return z, float(loss[: int(j_star.max())].max()) if j_star.size else 0.0


def _measure_clamped(
    stats: EdgeStatistics, d: ClampShellsDesign, j_star: np.ndarray, *, epsilon: float, rng: Noise
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`measure_clamped` with the exact loss of a record at each bin's top (n,)."""
    trials, N = j_star.size, d.node_scale.size
    active = d.node_shell[None, :] < d.shells_below(j_star)[:, None]
    exact = np.zeros((trials, N))
    for j in np.unique(j_star).tolist():
        checkpoint()  # one group of trials per J*: stoppable between them
        rows = np.flatnonzero(j_star == j)
        sums = stage2_exact(stats, d, int(j))
        exact[rows[:, None], np.arange(sums.size)[None, :]] = sums
    cols = np.broadcast_to(np.arange(N), (trials, N))[active]
    scale = d.node_scale / epsilon  # the one array the draw and the ε reported both read
    z = np.zeros((trials, N))
    z[active] = rng.add_laplace(exact[active], scale[cols])
    return z, d.loss_per_bin(scale)


def _partitioned(
    inputs: Inputs, stats: EdgeStatistics, d: ClampShellsDesign, j_star: np.ndarray,
    z1: np.ndarray, *, epsilon: float, rng: Noise,
) -> tuple[np.ndarray, float]:  # fmt: skip
    """From tree depth 1 without a public cap: for each J*, the partition, its cuts, stage 2 on
    the refined tree, the estimate from the tree, the partition and stage 1, the answers
    (trials × m, before isotonic regression); and the exact loss of the worst record
    (stage 1 + partition + stage 2, from the scales drawn).

    Privacy
    -------
    :mod:`dpsum_core.mechanisms.clampshells_partition`: a record at e_j (j < J*) loses exactly
    its bin's slack to the partition, so at most ε in all; a clamped one pε + (1−p)ε.
    """
    counts = inputs.workload.counts
    answers = np.zeros((j_star.size, counts.size))
    worst = 0.0
    s1 = stage1_scale(d, epsilon)
    for j in np.unique(j_star).tolist():
        checkpoint()
        rows = np.flatnonzero(j_star == j)
        d_j = stage2_design(d, j, ())
        y, scale = measure_partition(stats, d_j, j, rows.size, epsilon=epsilon, rng=rng)
        groups: dict[Cuts, list[int]] = {}
        for r, cuts in enumerate(segment_cuts(d_j, y, scale, j, counts, epsilon)):
            groups.setdefault(cuts, []).append(r)
        e = d.domain.edges[:j]
        k_of = np.searchsorted(d.shells, np.arange(1, j + 1), side="left") - 1
        for cuts, members in groups.items():
            sub = np.array(members)
            rows_g, jj = rows[sub], j_star[rows[sub]]
            d_g = stage2_design(d, j, cuts)
            z, tree_loss = _measure_clamped(stats, d_g, jj, epsilon=epsilon, rng=rng)
            loss = e / s1[k_of] + e / scale + tree_loss[:j]  # e/∞ = 0: a bin not measured
            clamped = float((d.shell_top / s1).max() + tree_loss[j - 1])  # a record above θ*
            worst = max(worst, float(loss.max()), clamped)
            leaves = np.asarray(d_g.reconstruct @ z.T).T
            leaves = combine_partition(d_g, leaves, y[sub], scale, j, epsilon)
            leaves = combine_stage1(d_g, leaves, z1[rows_g], jj)
            kept = tail_scan(d_g, leaves, jj, epsilon)
            sd = answer_sd(d_g, counts, jj, epsilon, stage1=True)
            frac = heap_fractions(d_g, leaves, y[sub], scale, j, counts)
            a = answers_from_cells(d_g, kept, jj, counts, frac)
            answers[rows_g] = onset_gate(a, sd, inputs.delta, onset_next_z(d.levels, aligned=d.aligned))
    return answers, worst


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
    d = design_for(inputs.domain, epsilon, inputs.workload)
    stats = edge_statistics(inputs.data, inputs.domain)
    cap = inputs.public_cap
    if cap is None:
        j_star, z1, spent_locate = locate_measured(stats, d, trials, epsilon=epsilon, rng=noise)
    else:  # a public cap: θ* without stage 1 (nothing measured, nothing spent)
        j_star, z1, spent_locate = np.full(trials, public_clamp_bin(d, cap), np.int64), None, 0.0
    theta_star = inputs.domain.edges[j_star - 1]
    if z1 is not None and partitioned(d, cap):  # (no stage 1 with a public cap)
        answers, worst = _partitioned(inputs, stats, d, j_star, z1, epsilon=epsilon, rng=noise)
        return Measurement(answers, worst - spent_locate, theta_star, epsilon_theta=spent_locate)
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
    answers = onset_gate(answers, sd, inputs.delta, onset_next_z(d.levels, aligned=d.aligned))
    return Measurement(answers, spent_measure, theta_star, epsilon_theta=spent_locate)


def cap_clamp_point(domain: Domain, epsilon: float, workload: Workload, cap: float) -> float:
    """θ* of a release with public cap ``cap``: the first of ClampShells' clamp points (shell
    edges, U included) at or above the cap's bin, which may lie well above the cap (a cap of
    3,000 with U = 5,000 and 1,000 bins clamps at U).

    Privacy
    -------
    Public: the design (U, n, ε, the workload) and the cap only.
    """
    d = design_for(domain, epsilon, workload)
    return float(domain.edges[public_clamp_bin(d, cap) - 1])


# --------------------------------------------------------------------------------------------
# Expected error, analytic
# --------------------------------------------------------------------------------------------
def _mean_at(
    stats: EdgeStatistics, d: ClampShellsDesign, j_star: int, counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray, int]:
    """The expected answer of every query given J* (least squares is unbiased: a fixed linear
    map of the exact clamped leaf sums), that map (m × active leaves) and the number of
    active leaves."""
    nc = int(np.searchsorted(d.cells, j_star, side="left"))
    sums = stats.clamped_sums(d.cells[:nc], d.cells[1 : nc + 1], d.domain, j_star)
    # Each query's coefficients on the active leaves: the same map as answers_from_cells.
    basis = np.eye(nc, d.cells.size - 1)
    coef = answers_from_cells(d, basis, np.full(nc, j_star), counts).T  # (m × nc)
    return coef @ sums, coef, nc


def _uncut(d: ClampShellsDesign, j_star: int, inputs: Inputs) -> ClampShellsDesign:
    """The design stage 2 measures at J* before any cut of the partition (its dropped levels
    are public given J*); the analytic error leaves the cuts and the heap-weighted
    interpolation out (both depend on the noise): it interpolates linearly."""
    return stage2_design(d, j_star, ()) if partitioned(d, inputs.public_cap) else d


def _components_at(
    stats: EdgeStatistics, d: ClampShellsDesign, j_star: int, inputs: Inputs, epsilon: float
) -> tuple[np.ndarray, np.ndarray]:
    """bias² and variance of every query given J*, without the tail scan (least squares is
    unbiased, E[x̂] = the exact clamped leaf sums, and every answer is a fixed linear function
    of x̂: its variance is aᵀ Cov(x̂) a, block by block over the independent shells)."""
    counts = inputs.workload.counts
    mean, coef, nc = _mean_at(stats, d, j_star, counts)
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

    θ is mapped to the J* stage 1 could output that a public cap at θ gives: the lowest shell
    edge (≥ jmin, or n) at or above θ's bin (∞ → n) — ClampShells clamps nowhere else, so a θ
    between two shell edges is read as the upper one (a θ inside a leaf would drop, not
    clamp, the records between θ and the leaf's top). The tail scan is
    left out (documented approximation): it only drops cells whose tail mass is within one
    noise sd of zero, so it changes the error where the top cells are nearly empty; the
    Monte Carlo test bounds the effect. From tree depth 1 the partition's cuts and its
    generalised least squares are left out too (they depend on the noise): the bias is the
    uncut leaves' (a cut is made where the noisy sums show that bias, and removes most of it)
    and the variance the tree's alone. Unlike the paper's algorithms the bias depends on ε (the
    sub-cells do), so callers must not rescale a variance computed at another ε.

    Privacy
    -------
    Read from the exact data: for the data holder's analysis only, never a release.
    """
    d = design_for(inputs.domain, epsilon, inputs.workload)
    stats = edge_statistics(inputs.data, inputs.domain)
    th = np.asarray(theta, float)
    j = clamp_bins_at(d, th)
    out_b, out_v = [], []
    cache: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for jj in j.tolist():
        if jj not in cache:
            checkpoint()
            cache[jj] = _components_at(stats, _uncut(d, int(jj), inputs), int(jj), inputs, epsilon)
        out_b.append(cache[jj][0])
        out_v.append(cache[jj][1])
    m = inputs.workload.size
    shape = (th.size, m)
    return (np.array(out_b).reshape(shape), np.array(out_v).reshape(shape))


def clampshells_bias_parts(
    inputs: Inputs, theta: np.ndarray, epsilon: float
) -> tuple[np.ndarray, np.ndarray]:
    """ClampShells' bias if θ* were each of ``theta`` (the mapping of
    :func:`clampshells_error`), split in two, signed (k × m each); their sum squared is
    :func:`clampshells_error`'s bias².

    - **clamping (truncation) bias**: for a query at or above θ*, answered by the total of the
      clamped leaf sums (records above θ* count as θ*), that answer minus the true one; 0 for
      a query below θ* (its values are not clamped).
    - **shell bias**: the rest, from interpolating a query edge inside its leaf (0 when the
      edge is a leaf edge, and for a query at or above θ*). It does not vanish when θ ≥ τ.

    Privacy
    -------
    Read from the exact data: for the data holder's analysis only, never a release.
    """
    d = design_for(inputs.domain, epsilon, inputs.workload)
    stats = edge_statistics(inputs.data, inputs.domain)
    counts = inputs.workload.counts
    truth = inputs.true_answers
    clamp, shell = [], []
    for jj in clamp_bins_at(d, np.asarray(theta, float)).tolist():
        checkpoint()
        mean, _, _ = _mean_at(stats, _uncut(d, int(jj), inputs), int(jj), counts)
        exact = np.where(counts >= jj, mean, truth)  # no interpolation at or above θ*
        clamp.append(exact - truth)
        shell.append(mean - exact)
    return np.array(clamp), np.array(shell)


def theta_law(inputs: Inputs, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """The exact law of θ* at total budget ``epsilon``: (θ values, probabilities).

    Privacy
    -------
    Read from the exact data: for the data holder's analysis only.
    """
    d = design_for(inputs.domain, epsilon, inputs.workload)
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
