"""What a click costs before it runs: estimated CPU seconds of a run, a sweep or a simulation,
from the public configuration alone, checked against one budget (``limits.MAX_CLICK_SECONDS``).

The app is a shared server: one link or one click must not keep it busy for hours. Counting
answers (``limits.MAX_ANSWERS``) bounds memory, not time: with a continuous θ (the recursive
mechanism) TaMM builds one GreedyH strategy per trial, and RawSum builds a dense design per
(U, bins, workload). Each algorithm's record states its own cost (``Algorithm.cost``), each
truncation method how many distinct θ it draws; :func:`run_cost` adds them up.

>>> from dpsum_core.simulate.config import ExperimentConfig
>>> run_cost(ExperimentConfig(trials=100)).seconds < 3
True
>>> heavy = ExperimentConfig(bins=5000, trials=6000, truncations=("recursive",),
...                          algorithms=("tamm",))
>>> run_cost(heavy).seconds > 60
True
"""

from __future__ import annotations

from dataclasses import dataclass

from dpsum_core import limits
from dpsum_core.errors import ParameterError
from dpsum_core.mechanisms.cost import Work
from dpsum_core.mechanisms.registry import get, truncation
from dpsum_core.mechanisms.workloads import make_workload
from dpsum_core.simulate.config import ExperimentConfig


@dataclass(frozen=True)
class Cost:
    """The estimated CPU seconds of one click, and what they are made of (for the message)."""

    seconds: float
    strategies: int  # GreedyH strategies built, all runs together
    runs: int  # experiment runs (1, or the points of a sweep or a simulation)

    def check(self, budget: float = limits.MAX_CLICK_SECONDS) -> None:
        """Raise :class:`~dpsum_core.errors.ParameterError` when the estimate exceeds ``budget``;
        the message says what makes it heavy and what to lower."""
        if self.seconds <= budget:
            return
        parts = []
        if self.strategies > 100:
            parts.append(
                f"{self.strategies:,} GreedyH strategies: TaMM builds one per distinct θ, and "
                "the recursive mechanism gives every trial its own"
            )
        if self.runs > 1:
            parts.append(f"{self.runs} runs, one per ε")
        why = "; ".join(parts) or "trials × bins × algorithms"
        raise ParameterError(
            f"this would take about {duration(self.seconds)} of computation ({why}), more than "
            f"the {duration(budget)} one click may use on this shared server. Nothing was run "
            "and your settings are kept: lower the trials or the bins, use SVT instead of the "
            "recursive mechanism for TaMM, or use fewer ε values, then press Run again"
        )


def duration(seconds: float) -> str:
    """Seconds in words a person reads at a glance (``45 s``, ``26 minutes``, ``3.2 hours``)."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} minutes"
    return f"{seconds / 3600:.1f} hours"


def run_cost(config: ExperimentConfig, *, runs: int = 1) -> Cost:
    """The estimated cost of ``runs`` experiments with ``config`` (an ε sweep or a simulation:
    one run per ε). What each algorithm builds once (RawSum's design, GreedyH(W)) is counted once.

    Privacy
    -------
    Reads the public configuration only (trials, bins, workload, algorithms, truncation
    parameters, U); never the data.
    """
    if runs < 1:
        raise ParameterError(f"runs must be ≥ 1, got {runs}")
    queries = make_workload(config.workload, config.domain).size
    per_run = once = 0.0
    strategies = 0
    for name in config.algorithms:
        alg = get(name)
        methods = (alg.theta_rule,) if alg.runs_once else config.truncations
        for method in methods:
            thetas = truncation(method).distinct_thetas(
                config.truncation_params, config.upper, config.trials
            )
            work = Work(config.bins, queries, config.trials, thetas)
            part = alg.cost(work)
            per_run += part.run
            once += part.once
            strategies += part.strategies
    return Cost(seconds=per_run * runs + once, strategies=strategies * runs, runs=runs)


def check_click(config: ExperimentConfig, *, runs: int = 1) -> Cost:
    """:func:`run_cost`, refused above ``limits.MAX_CLICK_SECONDS`` (before anything runs)."""
    cost = run_cost(config, runs=runs)
    cost.check(limits.MAX_CLICK_SECONDS)
    return cost
