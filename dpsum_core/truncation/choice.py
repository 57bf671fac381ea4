"""What a truncation method returns: the θ of each trial and its cost (:class:`ThresholdChoice`),
or the law of θ for analytic error without drawing noise (:class:`ThetaLaw`).
"""


from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class ThresholdChoice:
    """θ chosen in each trial, and what that cost.

    Attributes
    ----------
    method
        ``none``, ``fixed``, ``svt`` or ``recursive``.
    theta
        θ per trial (``inf`` for no truncation); shape (trials,) or (trials, m) for SQM.
    epsilon
        Budget the choice's noise bought, computed from its noise scales (per query for SQM's
        per-query choices; 0 for none/fixed).
    fallbacks
        Trials in which SVT never fired and θ fell back to the public U.
    """

    method: str
    theta: np.ndarray
    epsilon: float
    fallbacks: int = 0


# --------------------------------------------------------------------------------------------
# The distribution of θ (for analytic error without drawing any noise)
# --------------------------------------------------------------------------------------------
# Quadrature points: SVT's threshold noise η is integrated out at LAW_POINTS quantile midpoints
# of its Laplace law; the recursive mechanism's continuous θ is represented by LAW_POINTS
# equally likely quantile midpoints. With 16 points SVT's index probabilities on the sample
# data (Q1, per query as SQM uses them, ε from 10⁻⁴ to 10) are within 0.005 of a 1 024-point
# rule, at a sixth of the cost of 64 points (the decision view evaluates 25 ε values at once).
LAW_POINTS = 16


@dataclass(frozen=True, eq=False)
class ThetaLaw:
    """The law of θ: ``support`` values with probabilities ``weights``.

    ``support`` has shape (k,) (one θ shared by the batch algorithms) or (k, m) (SQM: θ_i per
    query); ``weights`` has shape (k,) or (k, m), summing to 1 over k.
    """

    support: np.ndarray
    weights: np.ndarray


def _laplace_quantile_midpoints(points: int) -> np.ndarray:
    """Quantiles of Lap(0, 1) at probabilities (j + ½)/points."""
    q = (np.arange(points) + 0.5) / points
    return np.where(q < 0.5, np.log(2 * q), -np.log(2 * (1 - q)))


def _laplace_cdf(x: np.ndarray) -> np.ndarray:
    """P(Lap(0, 1) < x)."""
    half_tail = 0.5 * np.exp(-np.abs(x))
    return np.where(x < 0, half_tail, 1 - half_tail)
