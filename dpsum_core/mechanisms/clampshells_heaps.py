"""ClampShells' interpolation inside a leaf, weighted by the roundness of the bin edges (issue 26;
bench/ACCURACY.md, round 8): post-processing of the partition's noisy bin sums.

Income-like columns heap at round values: hourly wages at whole dollars, weekly and annual ones
at round hundreds and thousands. Bins are (e_{j−1}, e_j], so a heap at a round value lies in the
bin whose *upper* edge is that value. Interpolating linearly inside a leaf spreads such a heap
evenly over the leaf's bins: a query just below a heap gets a share of it (hourly wages, Q1,
ε = 1: τ = $2.90 in the leaf ($2.80, $3.00] got half of the $3.00 heap, about its own true sum,
the one query that kept ClampShells' mean over queries 1.14× RawSum's).

Every bin's upper edge has a public *roundness* r_j (:func:`edge_roundness`: how many bin
widths the largest 1, 2 or 5 × 10^k dividing e_j spans, on a log₂ scale). The partition
measured the bins below J* (:mod:`~dpsum_core.mechanisms.clampshells_partition`); per trial and
per roundness class r, a weighted least-squares ratio ρ_r of the bins' noisy sums Y_j to their
leaf's mean per bin x̂_c/w_c estimates how much more mass a bin of that class holds than an
average bin of its leaf (pooled over the class's bins: one bin's sum is mostly noise, tens of
them are not). Inside a leaf the cumulative sum then follows the weights ρ_{r_j} instead of the
bins' count. With no heaps every ρ is about 1: the interpolation stays linear.

Privacy
-------
Post-processing of the partition's noisy sums, the leaves (stage 2 and the estimate built from
them) and public inputs (the domain's edges and the workload): no record is read, no budget is
spent. The release intervals do not depend on it (an answer inside leaf c is bounded by the
cumulative sums at c's edges, :mod:`~dpsum_core.mechanisms.clampshells_bounds`). The analytic
error (Decide, the expected error before a release) models linear interpolation: for a column
with heaps it overstates the error of the answers inside leaves.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from dpsum_core.mechanisms.clampshells_answers import query_cells

if TYPE_CHECKING:
    from dpsum_core.data.domain import Domain
    from dpsum_core.mechanisms.clampshells_design import ClampShellsDesign

ROUNDNESS_MAX = 5  # classes 0..5: an edge spanning 1, 2–3, 4–7, 8–15, 16–31, ≥ 32 bin widths
CLASS_MIN_BINS = 3  # a class measured in fewer bins keeps ρ = 1
RHO_RANGE = (0.05, 20.0)  # ρ is clipped: a leaf's bins never weigh 0, nor one all of it
_UNITS = tuple(m * 10.0**k for k in range(-6, 16) for m in (1.0, 2.0, 5.0))


@lru_cache(maxsize=16)
def edge_roundness(domain: Domain) -> np.ndarray:
    """The roundness class of every bin's upper edge e_j (n,), read-only: ⌊log₂(u_j/w)⌋ clipped
    to [0, :data:`ROUNDNESS_MAX`], u_j the largest 1, 2 or 5 × 10^k (at least the bin width w)
    dividing e_j; 0 when none does. Public: a function of U and n only.

    >>> from dpsum_core.data.domain import Domain
    >>> edge_roundness(Domain(upper=100.0, bins=1000))[[28, 29, 49, 99]].tolist()  # $2.90 … $10
    [0, 3, 5, 5]
    """
    e, w = domain.edges, domain.width
    unit = np.zeros(e.shape)
    for u in _UNITS:
        if u < w * (1 - 1e-9):
            continue
        q = e / u
        near = np.round(q)
        divides = (near >= 1) & (np.abs(q - near) <= 1e-9 * q)
        unit = np.where(divides, u, unit)  # _UNITS ascends: the largest divisor wins
    out = np.clip(np.floor(np.log2(np.maximum(unit / w, 1.0)) + 1e-9), 0, ROUNDNESS_MAX).astype(np.int64)
    out.setflags(write=False)
    return out


def heap_fractions(
    d: ClampShellsDesign, leaves: np.ndarray, y: np.ndarray, scale: np.ndarray, j_star: int,
    counts: np.ndarray,
) -> np.ndarray:  # fmt: skip
    """The share of its leaf's sum below each query's edge (trials × m), per trial.

    Parameters
    ----------
    d
        The design measured (the leaves as cut), J* = ``j_star`` for every trial given.
    leaves
        The estimated leaves (trials × C), before the tail scan.
    y, scale
        The partition's noisy bin sums (trials × J*) and their Laplace scales (J*,; ∞ where a
        bin was not measured).
    counts
        The workload's bin counts J_i (m,).

    Returns
    -------
    numpy.ndarray
        (J_i's weight sum − a_c's) / (b_c's − a_c's) inside the leaf (a_c, b_c] of query i,
        the weights ρ_{r_j} of the bins (see the module docstring); the linear fraction
        (J_i − a_c)/(b_c − a_c) where no bin of the leaf was weighed (at or above J*).

    Privacy
    -------
    Post-processing (module docstring).
    """
    cells = d.cells
    c, linear = query_cells(d, counts)
    width = np.diff(cells).astype(float)
    bins = np.arange(j_star)  # 0-based: bin j + 1
    leaf = np.clip(np.searchsorted(cells, bins + 1, side="left") - 1, 0, cells.size - 2)
    local = leaves[:, leaf] / width[leaf]  # the leaf's mean per bin (trials × J*)
    var = 2.0 * np.asarray(scale, float) ** 2
    used = np.isfinite(var) & (width[leaf] >= 2)
    cls = edge_roundness(d.domain)[:j_star]
    rho = np.ones((y.shape[0], ROUNDNESS_MAX + 1))
    for r in np.unique(cls[used]).tolist():
        sel = used & (cls == r)
        if np.count_nonzero(sel) < CLASS_MIN_BINS:
            continue
        num = (local[:, sel] * y[:, sel] / var[sel]).sum(axis=1)
        den = (local[:, sel] ** 2 / var[sel]).sum(axis=1)
        rho[:, r] = np.divide(num, den, out=np.ones_like(num), where=den > 0)
    weight = np.clip(rho, *RHO_RANGE)[:, cls]
    cum = np.concatenate((np.zeros((weight.shape[0], 1)), np.cumsum(weight, axis=1)), axis=1)
    a, b = cells[c], cells[c + 1]
    weighed = (b <= j_star) & (b - a >= 2)
    lo, hi, at = (np.minimum(v, j_star) for v in (a, b, counts))
    share = (cum[:, at] - cum[:, lo]) / np.maximum(cum[:, hi] - cum[:, lo], 1e-300)
    return np.where(weighed[None, :], share, linear[None, :])
