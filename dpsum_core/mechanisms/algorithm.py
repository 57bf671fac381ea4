"""The record of one algorithm (:class:`Algorithm`): label, style, θ rule, measure and error.

Random streams are keyed by each record's fixed ``stream_id``, never by its position, so adding
an algorithm leaves every other algorithm's draws bit-identical.
"""


from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from dpsum_core.mechanisms.error import average_over_theta
from dpsum_core.mechanisms.measurement import Inputs, Measurement
from dpsum_core.noise import Noise

ThetaRule = Literal["shared", "per_query", "posthoc"]
SHARED: ThetaRule = "shared"  # one θ per trial, chosen with ρε and shared by the batch algorithms
PER_QUERY: ThetaRule = "per_query"  # θ_i per query with ρε/m each (SQM)
Measure = Callable[..., Measurement]  # (inputs, theta, *, epsilon, rng) -> Measurement
ErrorComponents = Callable[[Inputs, np.ndarray, float], tuple[np.ndarray, np.ndarray]]

POSTHOC: ThetaRule = "posthoc"  # θ chosen after measuring; also the label of their runs


@dataclass(frozen=True)
class Algorithm:
    """What dpsum knows about one algorithm.

    Attributes
    ----------
    name
        Identifier used in configs, the CLI and files (``tamm``).
    label
        Display name (``TaMM``).
    color, dash, symbol
        Plot style (Okabe–Ito colour plus a line dash and marker, so colour is never the
        only carrier of meaning).
    measures
        What the measurement step adds noise to, in words.
    theta_rule
        ``shared``: one θ per trial chosen with ε_θ = ρε and shared by the batch algorithms;
        ``per_query``: θ_i per query with ρε/m each (SQM); ``posthoc``: θ chosen after measuring,
        as post-processing (spends nothing on θ; runs once whatever truncation is listed).
    measure
        ``measure(inputs, theta, *, epsilon, rng) -> Measurement``.
    error
        ``error(inputs, theta, epsilon) -> (bias², variance)`` of every query at each θ.
    stream_id
        Fixed key of the algorithm's random stream; never reused or renumbered (shared links
        rely on it).
    posthoc_theta
        Post-hoc algorithms only: ``posthoc_theta(inputs, epsilons)``, the θ its rule picks on
        the noise-free measurement at each ε (for analytic error without drawing noise).
    """

    name: str
    label: str
    color: str
    dash: str
    symbol: str
    measures: str
    theta_rule: ThetaRule
    measure: Measure
    error: ErrorComponents
    stream_id: int
    posthoc_theta: Callable[[Inputs, np.ndarray], np.ndarray] | None = None

    def run(
        self, inputs: Inputs, theta: np.ndarray, *, epsilon: float, rng: np.random.Generator | Noise
    ) -> Measurement:
        """Measure ``inputs`` (all trials at once) with measurement budget ``epsilon``."""
        return self.measure(inputs, theta, epsilon=epsilon, rng=rng)

    @property
    def posthoc(self) -> bool:
        """Whether θ is chosen after measuring (spends nothing on θ; runs once)."""
        return self.theta_rule == POSTHOC

    @property
    def per_query(self) -> bool:
        """Whether θ is chosen per query (θ_i with ε_θ/m each)."""
        return self.theta_rule == PER_QUERY

    def expected_mse(self, inputs: Inputs, theta: np.ndarray, epsilon: float) -> np.ndarray:
        """E(ŷ_i − y_i)² per query, averaged over the θ values the trials used."""
        return average_over_theta(self.error, inputs, theta, epsilon)
