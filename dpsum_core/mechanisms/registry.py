"""The algorithm registry: every family module's RECORDS, looked up by name everywhere.

The engine, the CLI, the figures and the pages read an algorithm's label, colour, θ rule, noise,
expected error and release interval (its ``interval`` hook) from its record; adding an
algorithm is one module (exporting ``RECORDS``) and one entry in :data:`FAMILIES`.
"""

from __future__ import annotations

from dataclasses import replace

from dpsum_core.errors import ParameterError
from dpsum_core.mechanisms import (
    baselines,
    clampshells,
    clampshells_answers,
    clampshells_bounds,
    matrix,
    rawsum,
    shells_cost,
    sqm,
)
from dpsum_core.mechanisms.algorithm import Algorithm
from dpsum_core.truncation import registry as truncation_registry
from dpsum_core.truncation.method import Truncation

# Registry order is the order of figures, tables and runs (streams are keyed by stream_id).
FAMILIES = (sqm, baselines, matrix, rawsum, clampshells)

REGISTRY: dict[str, Algorithm] = {a.name: a for family in FAMILIES for a in family.RECORDS}
# ClampShells' prices (by tree depth, leaves and J*), its interval and which answers its onset
# gate zeroed live beside its record, in shells_cost, clampshells_bounds and
# clampshells_answers (its module is full).
REGISTRY["clampshells"] = replace(
    REGISTRY["clampshells"],
    cost=shells_cost.run_cost,
    error_cost=shells_cost.error_cost,
    interval=clampshells_bounds.CLAMPSHELLS_INTERVAL,
    gated=clampshells_answers.onset_gated,
)
ALGORITHMS: tuple[str, ...] = tuple(REGISTRY)
# What a configuration runs when no algorithms are listed (a new algorithm is opt-in first).
DEFAULT_ALGORITHMS: tuple[str, ...] = tuple(a.name for a in REGISTRY.values() if a.default)
PAPER_ALGORITHMS: tuple[str, ...] = ("sqm", "identity", "workload", "timm", "tamm")
# The θ rules of the algorithms that choose θ themselves, by the label their runs carry.
OWN_THETA: dict[str, Truncation] = {
    a.own_theta.name: a.own_theta for a in REGISTRY.values() if a.own_theta is not None
}


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


def truncation(name: str) -> Truncation:
    """The record of a run's truncation: a method one chooses, or the θ rule of the algorithms
    that choose θ themselves (``posthoc``, ``inside``: from their own records)."""
    return OWN_THETA[name] if name in OWN_THETA else truncation_registry.get(name)


def truncation_label(name: str) -> str:
    """Display name of a run's truncation (the name itself if unknown)."""
    return OWN_THETA[name].label if name in OWN_THETA else truncation_registry.label(name)
