"""The record of one algorithm (:class:`Algorithm`): label, style, θ rule, measure and error.

Random streams are keyed by each record's fixed ``stream_id``, never by its position, so adding
an algorithm leaves every other algorithm's draws bit-identical.
"""


from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from dpsum_core.mechanisms.bounds import IntervalRule
from dpsum_core.mechanisms.cost import Seconds, Work, per_theta, vectorised
from dpsum_core.mechanisms.error import average_over_theta
from dpsum_core.mechanisms.measurement import Inputs, Measurement
from dpsum_core.noise import Noise
from dpsum_core.truncation.method import Truncation

ThetaRule = Literal["shared", "per_query", "posthoc", "inside"]
SHARED: ThetaRule = "shared"  # one θ per trial, chosen with ρε and shared by the batch algorithms
PER_QUERY: ThetaRule = "per_query"  # θ_i per query with ρε/m each (SQM)
Measure = Callable[..., Measurement]  # (inputs, theta, *, epsilon, rng) -> Measurement
ErrorComponents = Callable[[Inputs, np.ndarray, float], tuple[np.ndarray, np.ndarray]]
Cost = Callable[[Work], Seconds]  # public sizes -> estimated seconds (mechanisms.cost)

POSTHOC: ThetaRule = "posthoc"  # θ chosen after measuring; also the label of their runs
INSIDE: ThetaRule = "inside"  # θ located by the algorithm with its own share of ε; its runs' label
RUNS_ONCE: tuple[ThetaRule, ...] = (POSTHOC, INSIDE)  # θ rules that ignore truncation methods
# The records the runs of such algorithms are labelled with (label, dash, stream, words); their
# stream ids follow the truncation methods' and are never reused (shared links rely on them).
POSTHOC_THETA = Truncation(
    POSTHOC, "θ after measuring", "solid", 4, False,
    description="θ chosen after measuring, from the noisy measurement (post-processing, no ε)",
    source="after measuring, from the noisy sums (post-processing, costs nothing)",
)  # fmt: skip
INSIDE_THETA = Truncation(
    INSIDE, "θ located by the algorithm", "solid", 5, False,
    description="θ located privately by the algorithm itself, with its own share of ε",
    source="located by the algorithm from noisy shell sums, with its own share of ε",
)  # fmt: skip


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
        as post-processing (spends nothing on θ; runs once whatever truncation is listed);
        ``inside``: θ located by the mechanism itself with its own share ``theta_share`` of ε
        (ClampShells; runs once, under the label ``inside``; its measurement reports the ε it
        spent on θ in ``epsilon_theta``).
    measure
        ``measure(inputs, theta, *, epsilon, rng) -> Measurement``.
    error
        ``error(inputs, theta, epsilon) -> (bias², variance)`` of every query at each θ.
    stream_id
        Fixed key of the algorithm's random stream; never reused or renumbered (shared links
        rely on it).
    posthoc_theta
        Post-hoc algorithms only: ``posthoc_theta(inputs, epsilons)``, the θ its rule picks on
        the noise-free measurement at each ε (for analytic error without drawing noise);
        ``inside`` algorithms: the most likely θ at each ε.
    theta_share
        ``inside`` algorithms only: the share of ε spent locating θ (for plans, before any
        draw; the ledger records what the draws actually bought). 0 for every other rule.
    theta_law
        ``inside`` algorithms: ``theta_law(inputs, epsilon) -> (θ values, probabilities)``, the
        exact law of the θ it locates at total budget ε.
    error_rescales
        Whether ``error`` at ε is ``error`` at 1 with the variance divided by ε² (false when
        the design itself depends on ε, as ClampShells' does).
    cost
        ``cost(work) -> Seconds``: the estimated CPU seconds of one run from public sizes
        only (:mod:`dpsum_core.mechanisms.cost`), so that a click too heavy for a shared server
        is refused before anything runs. Default: one vectorised pass over trials × bins.
    error_cost
        ``error_cost(work) -> Seconds``: the estimated CPU seconds of ``error`` at
        ``work.thetas`` θ values (Decide, Single query, the Release estimate). Default: one
        vectorised pass over θ × (bins + queries).
    default
        Whether a configuration runs it when no algorithms are listed (a new algorithm is
        opt-in until the dashboard's views and the golden outputs are checked with it).
    own_theta
        ``posthoc`` and ``inside`` algorithms: the record their runs are labelled with (its
        name is the θ rule; its label, dash, stream and description are the algorithm's).
    binned
        Whether its answers are read from the binned histogram, so carry binning bias (false
        for SQM, which sums the exact values).
    interval
        How a release bounds its true answers (:class:`~dpsum_core.mechanisms.bounds.IntervalRule`:
        bias and noise, from the release alone); ``None``: it cannot be released.
    gated
        ``gated(answers) -> bool array``: which of one trial's answers (before isotonic
        regression) its onset gate published as 0 because they could not be told from 0
        (ClampShells'); ``None``: no gate, no answer is ever gated.
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
    theta_share: float = 0.0
    theta_law: Callable[[Inputs, float], tuple[np.ndarray, np.ndarray]] | None = None
    error_rescales: bool = True
    cost: Cost = vectorised
    error_cost: Cost = per_theta
    default: bool = True
    own_theta: Truncation | None = None
    binned: bool = True
    interval: IntervalRule | None = None
    gated: Callable[[np.ndarray], np.ndarray] | None = None

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
    def runs_once(self) -> bool:
        """Whether θ is the algorithm's own (chosen after measuring or located inside): it runs
        once, under the label of its θ rule, whatever truncation methods are listed."""
        return self.theta_rule in RUNS_ONCE

    @property
    def per_query(self) -> bool:
        """Whether θ is chosen per query (θ_i with ε_θ/m each)."""
        return self.theta_rule == PER_QUERY

    def expected_mse(self, inputs: Inputs, theta: np.ndarray, epsilon: float) -> np.ndarray:
        """E(ŷ_i − y_i)² per query, averaged over the θ values the trials used."""
        return average_over_theta(self.error, inputs, theta, epsilon)
