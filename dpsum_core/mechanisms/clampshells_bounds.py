"""ClampShells' interval hook (its record's ``interval``, attached by the registry beside its
prices): the interpolation and the records clamped to θ* bounded from the release.

Privacy
-------
Post-processing of the stage-2 draw, the partition's draw (where the leaves were cut, from tree
depth 1) and public inputs.
"""

from __future__ import annotations

import numpy as np

from dpsum_core.mechanisms import clampshells as cs
from dpsum_core.mechanisms.bounds import IntervalInputs, IntervalRule, Linear, block_sd
from dpsum_core.mechanisms.clampshells_answers import query_cells
from dpsum_core.mechanisms.clampshells_partition import partitioned, released_design


def clampshells_bounds(inputs: IntervalInputs) -> Linear:
    """ClampShells' leaves x̂_c (stage 2, before the tail scan) estimate the clamped sums C_c
    of the leaves below J* without bias, given J* (stage 1's draws are separate). With P_c the
    cumulative sum through leaf c and T the top active leaf (it holds the records above θ*,
    clamped to θ*):

    - τ_i < θ* inside leaf c: P_{c−1} ≤ y_i ≤ P_c (y is non-decreasing; = P_c on c's top edge);
    - θ* ≤ τ_i < U: P_{T−1} ≤ y_i ≤ P_{T−1} + (τ_i/θ*)·C_T (a record above θ* counted at θ* is
      worth at most τ_i/θ* times that below τ_i);
    - τ_i = U: y_i ≥ P_T (the clamped total), ≤ P_{T−1} + (U/θ*)·C_T.
    """
    domain, workload, epsilon, draw = inputs.domain, inputs.workload, inputs.epsilon, inputs.draw
    if inputs.theta is None or isinstance(inputs.theta, list):
        raise ValueError(f"ClampShells' interval needs its one released θ*, got {inputs.theta!r}")
    theta = float(inputs.theta)
    capped = inputs.epsilon_measure >= epsilon  # a public cap: no stage 1, all of ε on stage 2
    d = cs.design_for(domain, epsilon, workload)
    e = domain.edges
    j_star = int(np.argmin(np.abs(e - float(theta)))) + 1
    if partitioned(d, None if not capped else theta):  # the leaves as cut by the partition
        if len(inputs.earlier) < 2:
            raise ValueError("ClampShells' interval needs its partition's draw (from tree depth 1)")
        d = released_design(d, j_star, inputs.earlier[-1], workload.counts, epsilon)
    active = d.node_shell < d.shells_below(j_star)
    z = np.zeros(d.node_scale.size)
    z[active] = np.asarray(draw, float).ravel()
    nc = int(np.searchsorted(d.cells, j_star, side="left"))
    leaves = np.asarray(d.reconstruct @ z).ravel()[:nc]
    counts = workload.counts
    c, _ = query_cells(d, counts)
    idx = np.arange(nc)[None, :]
    top_edge = d.cells[c + 1] == counts
    below = counts < j_star
    lo = np.where(below[:, None], (idx < c[:, None]) | ((idx == c[:, None]) & top_edge[:, None]), 0)
    hi = np.where(below[:, None], idx <= c[:, None], 0).astype(float)
    theta_star = e[j_star - 1]
    above = ~below
    lo = lo.astype(float)
    lo[above] = (idx < nc - 1) | ((idx == nc - 1) & (counts[above] == domain.bins)[:, None])
    hi[above] = np.where(idx < nc - 1, 1.0, 0.0)
    hi[above, nc - 1] = e[counts[above] - 1] / theta_star
    eps2 = cs.stage2_epsilon(epsilon, 1.0 if capped else None)  # the scale's ε (public cap)
    cov = [V / eps2**2 for V in d.leaf_cov]
    return Linear(lo @ leaves, block_sd(lo, d.cell_shell[:nc], cov), hi @ leaves, block_sd(hi, d.cell_shell[:nc], cov))



CLAMPSHELLS_INTERVAL = IntervalRule(
    clampshells_bounds,
    "ClampShells' interpolation bounded by the measured sums at the edges of each "
    "shell, and the records clamped to θ* bounded by τ/θ* times the top shell's sum, "
    "plus the noise's 97.5 % margins",
)
