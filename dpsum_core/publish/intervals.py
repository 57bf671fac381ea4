"""95 % intervals for the TRUE answers of a release: noise and the algorithm's bias, bounded.

Every released answer ŷ_i comes with [lower_i, upper_i] such that, over the mechanism's
randomness, P(y_i ∈ [lower_i, upper_i]) ≥ 95 % for every dataset, y_i the true prefix sum of
the cleaned values. The interval is post-processing of the release's noisy measurement and
public inputs (U, the bins, the workload, ε, the released θ): it costs no budget.

How (one scheme for every algorithm): each algorithm's noise-free target m (what it would answer
without noise: truncated at θ, binned, clamped, interpolated) bounds the truth by two *linear*
functionals of m, ``lo(m) ≤ y ≤ hi(m)``, that hold for every dataset (the bias is bounded
deterministically; see the functions below). The same functionals applied to the noisy
estimate give ``lo(m) + lo(η)`` and ``hi(m) + hi(η)``, where η is the noise, whose law is public
(independent Laplace draws with known scales, through public linear maps). The interval
``[lo(m̂) − κ·sd(lo(η)), hi(m̂) + κ·sd(hi(η))]`` then misses the truth with probability at most
2.5 % on each side, with κ = ln 20 / √2 ≈ 2.118, the exact one-sided 97.5 % point of one
Laplace draw in standard deviations (a sum of several draws is closer to normal, 1.96). Where
no released quantity bounds the bias from above (SQM truncated below τ: nothing it measured
says how much lies above θ), the interval is open above: ``upper`` is NaN, ``bias_bounded``
false. The truth is ≥ 0, so lower bounds are clipped at 0, and each interval is widened to hold
the published answer (isotonic regression and RawSum's drop move answers, never the interval's
guarantee: a wider interval covers at least as often) and to reach at least the upper noise
margin above its lower end (never [0, 0] after a large negative draw; see :func:`finish`).

Conditioning on θ is valid where θ comes from separate draws (SVT, recursive, ClampShells'
stage 1: the measurement's noise is independent of them). RawSum chooses θ* from the same
noise: its interval is built from the full-prefix estimate, which does not depend on θ* at all.

Each algorithm family's functionals are its registry record's ``interval`` hook
(:mod:`dpsum_core.mechanisms.bounds`: the count-based families, SQM, RawSum, ClampShells); this
module adds the margins, the clip at 0 and the hull of the published answer.

Privacy
-------
Functions of the noisy measurement (its noisy values, as drawn) and public inputs only: the
same post-processing guarantee as the answers. Nothing reads the data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpsum_core.data.domain import Domain
from dpsum_core.mechanisms.bounds import IntervalInputs, Linear
from dpsum_core.mechanisms.registry import get
from dpsum_core.mechanisms.workloads import Workload

# One-sided 97.5 % point of a Laplace draw in standard deviations (ln 20 / √2): each side of the
# interval fails with probability ≤ 2.5 %, so the two together ≤ 5 %.
KAPPA = math.log(20.0) / math.sqrt(2.0)
LEVEL = 0.95
# The same at 97.5 % (each side ≤ 1.25 %: ln 40 / √2): two such intervals hold together with
# probability ≥ 95 % (a union bound), what a difference of two answers needs (publish/bands.py).
BAND_LEVEL = 0.975
KAPPA_BAND = math.log(40.0) / math.sqrt(2.0)


@dataclass(frozen=True, eq=False)
class Intervals:
    """The 95 % interval of every query's true answer (public: post-processing).

    Attributes
    ----------
    lower, upper
        Bounds per query; ``upper`` is NaN where the interval is open above.
    bias_bounded
        Whether the algorithm's bias of that query is bounded from the release (two-sided).
    method
        In words, how the interval was made (for the report).
    lower_975, upper_975
        The same interval at :data:`BAND_LEVEL` (97.5 %; NaN upper: open), each holding the
        95 % one: two of them hold together with probability ≥ 95 %, so a band total (the
        difference of two answers) gets a 95 % interval from them
        (:func:`dpsum_core.publish.bands.band_total`); ``None`` where not computed.
    """

    lower: np.ndarray
    upper: np.ndarray
    bias_bounded: np.ndarray
    method: str
    lower_975: np.ndarray | None = None
    upper_975: np.ndarray | None = None

    def summary(self) -> dict:
        """What release.json records: the level, how many queries are bounded, the method."""
        bounded = int(self.bias_bounded.sum())
        return {
            "level": LEVEL,
            "queries": int(self.bias_bounded.size),
            "bias_bounded": bounded,
            "open_above": int(self.bias_bounded.size - bounded),
            "method": self.method,
        }


def finish(bounds: Linear, published: np.ndarray, method: str) -> Intervals:
    """The interval from the linear bounds: noise margins (κ·sd), clip at 0, hull the answer,
    and an upper end at least its own noise margin κ·sd(hi(η)) above the lower end.

    The last step widens only (coverage can only rise; no ε: public inputs and the bounds'
    noise laws). Without it, a large negative draw that puts hi(m̂) + κ·sd below 0, a miss
    anyone can see (the truth is ≥ 0), was published as [0, 0] around an answer clipped to 0:
    the most certain statement possible, at the moment the release knows it failed. Without a
    clip or a hull the width is hi − lo + κ·(sd_lo + sd_hi), below κ·sd_hi only when the noise
    put hi(m̂) below lo(m̂) − κ·sd_lo; with the clip at 0, only when hi(m̂) < 0 (the hull
    only widens). So the floor changes nothing else, and an interval has zero width only where
    its upper bound has no noise (sd_hi = 0): the truth is then at most the upper end for
    certain, not by a lucky draw. The same at 97.5 % (:data:`KAPPA_BAND`), widened to hold
    the 95 % interval, gives ``lower_975`` and ``upper_975``.
    """
    lower, upper = _ends(bounds, published, KAPPA)
    bounded = np.isfinite(upper)
    lower_975, upper_975 = _ends(bounds, published, KAPPA_BAND)  # holds the 95 % one:
    lower_975, upper_975 = np.minimum(lower_975, lower), np.maximum(upper_975, upper)  # nested
    return Intervals(lower, np.where(bounded, upper, np.nan), bounded, method,
                     lower_975, np.where(bounded, upper_975, np.nan))  # fmt: skip


def _ends(bounds: Linear, published: np.ndarray, kappa: float) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper ends with margins ``kappa``·sd (each side misses with probability at most
    that of one Laplace draw beyond ``kappa`` sds), clipped at 0, hulling the published answer,
    the upper end at least ``kappa``·sd(hi(η)) above the lower one (:func:`finish`)."""
    lower = np.minimum(np.maximum(bounds.lo - kappa * bounds.lo_sd, 0.0), published)
    upper = bounds.hi + kappa * bounds.hi_sd
    return lower, np.maximum(np.maximum(upper, published), lower + kappa * bounds.hi_sd)


def release_intervals(
    algorithm: str,
    domain: Domain,
    workload: Workload,
    *,
    theta: float | list[float] | None,
    epsilon: float,
    epsilon_measure: float,
    raw: np.ndarray,
    published: np.ndarray,
    draws: tuple[np.ndarray, ...],
) -> Intervals:
    """The interval of every query of one release.

    Parameters
    ----------
    algorithm
        The algorithm's name: its record's ``interval`` hook
        (:class:`~dpsum_core.mechanisms.bounds.IntervalRule`) bounds its bias and noise.
    domain, workload
        Public.
    theta
        The released θ (``None``: no truncation; a list: SQM's θ_i; ClampShells' θ*).
    epsilon, epsilon_measure
        The release's total ε and its measurement share.
    raw
        The noisy answers before isotonic regression (unrounded).
    published
        The published answers (the interval is widened to hold them).
    draws
        The noisy values of every draw of the release, in order; the last is the
        measurement's (RawSum's rows, ClampShells' stage 2).

    Privacy
    -------
    Post-processing of the noisy measurement and public inputs (see the module docstring).
    """
    rule = get(algorithm).interval  # the algorithm family's hook (its registry record)
    if rule is None:
        raise ValueError(f"no interval rule for {algorithm!r}")
    inputs = IntervalInputs(
        domain, workload, theta, epsilon, epsilon_measure, np.asarray(raw, float), draws[-1],
        tuple(draws[:-1]),
    )
    return finish(rule.bounds(inputs), np.asarray(published, float), rule.method)
