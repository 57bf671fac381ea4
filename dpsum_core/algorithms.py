"""The algorithm registry: one frozen record per algorithm, looked up by name everywhere.

The engine, the CLI, the figures and the pages read an algorithm's label, colour, θ rule, noise
and expected error from its :class:`Algorithm` record; adding an algorithm is one record here
(plus its measure and error functions). Random streams are keyed by each record's fixed
``stream_id``, never by its position, so adding an algorithm to a run leaves every other
algorithm's draws bit-identical.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from . import expected, mechanisms, rawsum
from .errors import ParameterError
from .mechanisms import Inputs, Measurement
from .noise import Noise

ThetaRule = Literal["shared", "per_query", "posthoc"]
Measure = Callable[..., Measurement]  # (inputs, theta, *, epsilon, rng) -> Measurement
ErrorComponents = Callable[[Inputs, np.ndarray, float], tuple[np.ndarray, np.ndarray]]

POSTHOC = "posthoc"  # truncation label of algorithms that choose θ after measuring


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
    privacy_depends_on_theta
        Whether the noise scale (the sensitivity) depends on θ.
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
    privacy_depends_on_theta: bool
    measure: Measure
    error: ErrorComponents
    stream_id: int
    posthoc_theta: Callable[[Inputs, np.ndarray], np.ndarray] | None = None

    def run(
        self, inputs: Inputs, theta: np.ndarray, *, epsilon: float, rng: np.random.Generator | Noise
    ) -> Measurement:
        """Measure ``inputs`` (all trials at once) with measurement budget ``epsilon``."""
        return self.measure(inputs, theta, epsilon=epsilon, rng=rng)

    def expected_mse(self, inputs: Inputs, theta: np.ndarray, epsilon: float) -> np.ndarray:
        """E(ŷ_i − y_i)² per query, averaged over the θ values the trials used."""
        return expected.average_over_theta(self.error, inputs, theta, epsilon)


_RECORDS = (
    Algorithm(
        name="sqm",
        label="SQM",
        color="#E69F00",
        dash="solid",
        symbol="circle",
        measures="each truncated prefix sum alone, on the raw values",
        theta_rule="per_query",
        privacy_depends_on_theta=True,
        measure=mechanisms.sqm,
        error=expected.sqm_error,
        stream_id=1,
    ),
    Algorithm(
        name="identity",
        label="Identity",
        color="#56B4E9",
        dash="longdash",
        symbol="square",
        measures="the histogram of counts x",
        theta_rule="shared",
        privacy_depends_on_theta=False,
        measure=mechanisms.identity,
        error=expected.identity_error,
        stream_id=2,
    ),
    Algorithm(
        name="workload",
        label="Workload",
        color="#009E73",
        dash="dashdot",
        symbol="diamond",
        measures="the truncated workload answers W·T_θ·x",
        theta_rule="shared",
        privacy_depends_on_theta=True,
        measure=mechanisms.workload_mechanism,
        error=expected.workload_error,
        stream_id=3,
    ),
    Algorithm(
        name="timm",
        label="TiMM",
        color="#D55E00",
        dash="longdashdot",
        symbol="triangle-up",
        measures="A·T_θ·x with A = GreedyH(W)",
        theta_rule="shared",
        privacy_depends_on_theta=True,
        measure=mechanisms.timm,
        error=expected.timm_error,
        stream_id=4,
    ),
    Algorithm(
        name="tamm",
        label="TaMM",
        color="#0072B2",
        dash="12px,3px,3px,3px,3px,3px",
        symbol="x",
        measures="A·x with A = GreedyH(W·T_θ)",
        theta_rule="shared",
        privacy_depends_on_theta=False,
        measure=mechanisms.tamm,
        error=expected.tamm_error,
        stream_id=5,
    ),
    Algorithm(
        name="rawsum",
        label="RawSum",
        color="#CC79A7",
        dash="3px,3px,12px,3px",
        symbol="star",
        measures="raw per-bin sums: geometric shells + GreedyH(W·diag(e)) rows",
        theta_rule="posthoc",
        privacy_depends_on_theta=False,
        measure=rawsum.rawsum,
        error=rawsum.rawsum_error,
        stream_id=7,  # 6 is SQM's per-query θ stream (experiment.SQM_THETA_STREAM)
        posthoc_theta=rawsum.expected_theta,
    ),
)

REGISTRY: dict[str, Algorithm] = {a.name: a for a in _RECORDS}
ALGORITHMS: tuple[str, ...] = tuple(REGISTRY)
PAPER_ALGORITHMS: tuple[str, ...] = ("sqm", "identity", "workload", "timm", "tamm")


def get(name: str) -> Algorithm:
    """The record of ``name``; a clear error for an unknown name."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise ParameterError(
            f"unknown algorithm {name!r}: choose from {', '.join(ALGORITHMS)}"
        ) from None


def label(name: str) -> str:
    """Display name of an algorithm (the name itself if unknown)."""
    return REGISTRY[name].label if name in REGISTRY else name
