"""A small privacy-audit harness: Clopper–Pearson bounds on event probabilities of a mechanism
run on neighbouring datasets, flagging events whose probability ratio provably exceeds e^ε."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.stats import beta


def clopper_pearson(k: int, n: int, alpha: float) -> tuple[float, float]:
    """Two-sided exact (1 − alpha) interval for a binomial proportion."""
    lo = 0.0 if k == 0 else float(beta.ppf(alpha / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(beta.ppf(1 - alpha / 2, k + 1, n - k))
    return lo, hi


@dataclass(frozen=True)
class Audit:
    """Largest certified ratio lower bound over all events and both directions."""

    epsilon: float
    ratio_lower_bound: float
    event: str

    @property
    def violated(self) -> bool:
        """True when some event's probability ratio is provably above e^ε."""
        return self.ratio_lower_bound > math.exp(self.epsilon)


def audit(
    out_d: np.ndarray,
    out_d2: np.ndarray,
    events: dict[str, Callable[[np.ndarray], np.ndarray]],
    *,
    epsilon: float,
    alpha: float = 1e-6,
) -> Audit:
    """Compare P[M(D) ∈ E] and P[M(D′) ∈ E] for every event E, in both directions.

    ``alpha`` is split over all comparisons (Bonferroni), so a correct mechanism is flagged
    with probability < alpha.
    """
    a = alpha / (2 * len(events))
    best = (0.0, "")
    for name, event in events.items():
        k1, k2 = int(event(out_d).sum()), int(event(out_d2).sum())
        lo1, hi1 = clopper_pearson(k1, out_d.shape[0], a)
        lo2, hi2 = clopper_pearson(k2, out_d2.shape[0], a)
        for ratio, label in ((lo1 / hi2 if hi2 > 0 else 0.0, f"{name} (D/D′)"),
                             (lo2 / hi1 if hi1 > 0 else 0.0, f"{name} (D′/D)")):
            if ratio > best[0]:
                best = (ratio, label)
    return Audit(epsilon, best[0], best[1])
