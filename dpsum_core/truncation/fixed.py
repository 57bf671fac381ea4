"""No truncation and a fixed θ: public thresholds that look at nothing private (cost 0).

A fixed θ is differentially private only if it was chosen without looking at the data.
"""

from __future__ import annotations

import numpy as np

from dpsum_core.data.dataset import Statistics
from dpsum_core.errors import ParameterError
from dpsum_core.noise import Noise
from dpsum_core.truncation.choice import ThetaLaw, ThresholdChoice
from dpsum_core.truncation.method import Param, Truncation
from dpsum_core.truncation.method import Values as TruncationParams
from dpsum_core.validation import check_positive

FIXED_NEEDS_THETA = "truncation 'fixed' needs a threshold θ between 0 and U (--theta on the command line, the θ field in the app)"


def _shape(trials: int, tau: np.ndarray | None) -> tuple[int, ...]:
    return (trials,) if tau is None else (trials, np.asarray(tau).size)


def _one(tau: np.ndarray | None) -> np.ndarray:
    return np.ones(1) if tau is None else np.ones((1, np.asarray(tau).size))


def fixed_value(params: TruncationParams) -> float:
    """The user's fixed θ, or a clear error when none was given."""
    if params.theta is None:
        raise ParameterError(FIXED_NEEDS_THETA)
    return float(params.theta)


def none_theta(
    data: Statistics,
    *,
    epsilon: float,
    upper: float,
    params: TruncationParams,
    trials: int,
    rng: np.random.Generator | Noise,
    tau: np.ndarray | None = None,
) -> ThresholdChoice:
    """θ = ∞ in every trial (no truncation); spends nothing."""
    return ThresholdChoice("none", np.full(_shape(trials, tau), np.inf), 0.0)


def fixed_theta(
    data: Statistics,
    *,
    epsilon: float,
    upper: float,
    params: TruncationParams,
    trials: int,
    rng: np.random.Generator | Noise,
    tau: np.ndarray | None = None,
) -> ThresholdChoice:
    """The user's public θ in every trial; spends nothing."""
    return ThresholdChoice("fixed", np.full(_shape(trials, tau), fixed_value(params)), 0.0)


def none_laws(
    data: Statistics,
    *,
    epsilons: np.ndarray,
    upper: float,
    params: TruncationParams,
    tau: np.ndarray | None = None,
) -> list[ThetaLaw]:
    """One point, θ = ∞, at every ε."""
    one = _one(tau)
    return [ThetaLaw(one * np.inf, one) for _ in np.atleast_1d(epsilons)]


def fixed_laws(
    data: Statistics,
    *,
    epsilons: np.ndarray,
    upper: float,
    params: TruncationParams,
    tau: np.ndarray | None = None,
) -> list[ThetaLaw]:
    """One point, the fixed θ, at every ε."""
    one, value = _one(tau), fixed_value(params)
    return [ThetaLaw(one * value, one) for _ in np.atleast_1d(epsilons)]


def no_cut_points(params: TruncationParams, upper: float) -> np.ndarray:
    """No truncation counts at no point of its own."""
    return np.empty(0)


def fixed_cut_points(params: TruncationParams, upper: float) -> np.ndarray:
    """A fixed θ is a point a data summary must hold (counts and sums at θ)."""
    return np.empty(0) if params.theta is None else np.array([float(params.theta)])


THETA = Param(
    "theta", "--theta", "Fixed θ", help="θ for --truncation fixed (public!)",
    check=lambda v: check_positive(v, "theta"), step=10_000.0,
    explain="A public threshold; values above it count as θ.", initial=100_000.0,
    missing="truncation 'fixed' needs a threshold θ between 0 and U (--theta on the command line, the θ field in the app)",
    key="theta_fixed",
)  # fmt: skip

RECORDS = (
    Truncation("none", "no truncation", "dot", 0, False, none_theta, none_laws, no_cut_points,
               description="no truncation: every value counts in full, up to the public bound U",
               source="no θ (θ = ∞)"),
    Truncation("fixed", "fixed θ", "dashdot", 1, False, fixed_theta, fixed_laws,
               fixed_cut_points, description="a fixed, public θ: values above θ count as θ",
               source="fixed, public θ (costs nothing)", params=(THETA,),
               caution="A fixed θ is differentially private **only if it was chosen without "
                       "looking at the data** (e.g. from a public source or a previous year). "
                       "Choosing it from this histogram leaks information."),
)  # fmt: skip
