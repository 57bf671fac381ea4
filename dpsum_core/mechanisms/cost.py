"""What one algorithm's part of a run costs, from public sizes only: :class:`Work` in, seconds
out. Each algorithm's record carries its own rule (``Algorithm.cost``); simulate.cost adds them.

The constants are per-step times on the reference machine (2 cores; bench/SCALING.md): a guard
that errs high, not a profiler.

>>> round(vectorised(Work(bins=1000, queries=1000, trials=100, thetas=1)).run, 2)
0.3

An algorithm's expected error (the Decide grid, Single query's θ curves, the Release estimate,
the error column of a run) is priced by its record's ``error_cost`` on the same :class:`Work`,
``thetas`` being the θ values it is evaluated at (``trials`` unused). The constants of the
error rules were measured by ``python -m bench.pricing`` (its JSON lists measured against
estimated seconds).
"""

from __future__ import annotations

from dataclasses import dataclass

# Vectorised work per (trial, bin or query), expected error included: the default explorer run
# (6 algorithms × 100 trials on n = m = 1000, SVT) took 2.4 s on a loaded 2-core machine, of
# which ≈ 0.5 s RawSum's design: ≈ 1.5·10⁻⁶ s per (algorithm, trial, bin + query).
CELL_SECONDS = 1.5e-6
# SQM's θ per (trial, query): 0.087 s for 100 trials × 1000 queries with SVT, rounded up.
QUERY_THETA_SECONDS = 1e-6
# One GreedyH strategy: 6–9 ms at n = 1000 (TaMM, recursive: 5.9 s for 1000 trials in
# bench/SCALING.md, 2.7 s for 300 on a loaded machine), ∝ n^0.75.
STRATEGY_SECONDS = 9e-3
STRATEGY_EXPONENT = 0.75
# RawSum's dense design (a Cholesky solve of an n × n system): ≈ 40 s at n = 5000 on the
# reference machine, 11.9 s at n = 3000 on a loaded one (→ 55 s at 5000), cubic; its
# reconstruction is one (trials × n) · (n × n) product per run.
DESIGN_SECONDS = 55.0
DESIGN_BINS = 5000
PRODUCT_SECONDS = 1e-9
# Expected error per (θ, bin + query): bias and variance of every query at one θ, vectorised
# (bench/pricing.py: Identity, Workload and SQM over 61 θ at n = m = 1000 … 5000).
ERROR_CELL_SECONDS = 2e-7


@dataclass(frozen=True)
class Work:
    """The public size of one algorithm's run under one truncation method."""

    bins: int
    queries: int
    trials: int
    thetas: int  # distinct θ the trials can draw (1 for a fixed θ; at most ``trials``)
    epsilon: float = 1.0  # the algorithm's budget (ClampShells' design depends on it)


@dataclass(frozen=True)
class Seconds:
    """Estimated CPU seconds: ``run`` per run, ``once`` per click (a cached design, shared by
    every point of a sweep); ``strategies`` GreedyH strategies built per run."""

    run: float
    once: float = 0.0
    strategies: int = 0


def strategy_seconds(bins: int) -> float:
    """One GreedyH strategy on ``bins`` cells."""
    return STRATEGY_SECONDS * (bins / 1000) ** STRATEGY_EXPONENT


def design_seconds(bins: int) -> float:
    """RawSum's dense design on ``bins`` cells."""
    return DESIGN_SECONDS * (bins / DESIGN_BINS) ** 3


def vectorised(work: Work) -> Seconds:
    """The default: one vectorised pass over (trials × (bins + queries)) arrays."""
    return Seconds(CELL_SECONDS * work.trials * (work.bins + work.queries))


def per_theta(work: Work) -> Seconds:
    """The default error rule: bias and variance of every query at each of ``work.thetas`` θ,
    one vectorised pass over (θ × (bins + queries))."""
    return Seconds(ERROR_CELL_SECONDS * work.thetas * (work.bins + work.queries))
