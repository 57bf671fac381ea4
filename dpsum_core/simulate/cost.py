"""What a click costs before it runs: estimated CPU seconds of a run, a sweep or a simulation,
from the public configuration alone, checked against one budget (``limits.MAX_CLICK_SECONDS``).

The app is a shared server: one link or one click must not keep it busy for hours. Counting
answers (``limits.MAX_ANSWERS``) bounds memory, not time: with a continuous θ (the recursive
mechanism) TaMM builds one GreedyH strategy per trial, and RawSum builds a dense design per
(U, bins, workload). Each algorithm's record states its own cost (``Algorithm.cost``), each
truncation method how many distinct θ it draws; :func:`run_cost` adds them up.

The analytic views are priced the same way, by each record's error rule
(``Algorithm.error_cost``): the Decide page's curves (:func:`decision_cost`: ε points × each
algorithm's error at the θ its law can take), Single query's θ curves (:func:`curves_cost`) and
the Release page's expected error (:func:`estimate_cost`). ClampShells' rules price its tree
(depth from ε), leaves and clamp points J* (:mod:`dpsum_core.mechanisms.shells_cost`).

>>> from dpsum_core.simulate.config import ExperimentConfig
>>> run_cost(ExperimentConfig(trials=100)).seconds < 3
True
>>> heavy = ExperimentConfig(bins=5000, trials=6000, truncations=("recursive",),
...                          algorithms=("tamm",))
>>> run_cost(heavy).seconds > 60
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dpsum_core import limits
from dpsum_core.errors import ParameterError
from dpsum_core.mechanisms.cost import Seconds, Work
from dpsum_core.mechanisms.registry import get, truncation_label
from dpsum_core.mechanisms.registry import truncation as truncation_record
from dpsum_core.mechanisms.workloads import make_workload
from dpsum_core.simulate.budget import budget_split
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import run_plan
from dpsum_core.truncation.recursive import LAW_POINTS

# What to lower when a run, a sweep or a simulation is refused.
LOWER_RUN = (
    "lower the trials or the bins, use SVT instead of the recursive mechanism for TaMM, or use "
    "fewer ε values"
)
# What to lower when an analytic view (Decide's curves, Single query's θ curves, the Release
# estimate) is refused.
LOWER_ANALYTIC = (
    "use fewer bins, or leave out the costliest algorithms and truncation methods (named above)"
)


class TooHeavy(ParameterError):
    """A click refused by its estimate (nothing ran); the message says what to lower."""


@dataclass(frozen=True)
class Cost:
    """The estimated CPU seconds of one click, and what they are made of (for the message).

    ``parts`` names the largest contributions (what, seconds), largest first; ``lower`` says
    what to change and ``then`` what to press afterwards, when the click is refused.
    """

    seconds: float
    strategies: int  # GreedyH strategies built, all runs together
    runs: int  # experiment runs (1, or the points of a sweep or a simulation)
    parts: tuple[tuple[str, float], ...] = ()
    lower: str = LOWER_RUN
    then: str = "press Run again"

    def check(self, budget: float = limits.MAX_CLICK_SECONDS) -> None:
        """Raise :class:`TooHeavy` (a :class:`~dpsum_core.errors.ParameterError`) when the
        estimate exceeds ``budget``; the message says what makes it heavy and what to lower."""
        if self.seconds <= budget:
            return
        raise TooHeavy(
            f"this would take about {duration(self.seconds)} of computation ({self.why()}), "
            f"more than the {duration(budget)} one click may use on this shared server. "
            f"Nothing was run and your settings are kept: {self.lower}, then {self.then}"
        )

    def why(self) -> str:
        """What makes it heavy, in words."""
        parts = []
        if self.strategies > 100:
            parts.append(
                f"{self.strategies:,} GreedyH strategies: TaMM builds one per distinct θ, and "
                "the recursive mechanism gives every trial its own"
            )
        if self.runs > 1:
            parts.append(f"{self.runs} runs, one per ε")
        heavy = [f"{what} ≈ {duration(sec)}" for what, sec in self.parts[:3] if sec >= 1]
        if heavy:
            parts.append("mostly " + ", ".join(heavy))
        return "; ".join(parts) or "trials × bins × algorithms"


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
    parts: list[tuple[str, float]] = []
    for name in config.algorithms:
        alg = get(name)
        methods = (alg.theta_rule,) if alg.runs_once else config.truncations
        for method in methods:
            thetas = truncation_record(method).distinct_thetas(
                config.truncation_params, config.upper, config.trials
            )
            work = Work(config.bins, queries, config.trials, thetas, config.epsilon)
            part = alg.cost(work)
            per_run += part.run
            once += part.once
            strategies += part.strategies
            parts.append((_who(name, method), part.run * runs + part.once))
    return Cost(
        seconds=per_run * runs + once,
        strategies=strategies * runs,
        runs=runs,
        parts=_largest(parts),
    )


def _who(algorithm: str, truncation: str) -> str:
    """``TaMM with SVT``, ``ClampShells`` (an algorithm with its own θ)."""
    alg = get(algorithm)
    if alg.runs_once:
        return alg.label
    return f"{alg.label} with {truncation_label(truncation)}"


def _largest(parts: list[tuple[str, float]]) -> tuple[tuple[str, float], ...]:
    """Contributions, largest first."""
    return tuple(sorted(parts, key=lambda p: -p[1]))


def check_click(config: ExperimentConfig, *, runs: int = 1) -> Cost:
    """:func:`run_cost`, refused above ``limits.MAX_CLICK_SECONDS`` (before anything runs)."""
    cost = run_cost(config, runs=runs)
    cost.check(limits.MAX_CLICK_SECONDS)
    return cost


# --------------------------------------------------------------------------------------------
# Analytic views: expected error without drawing noise, priced by each algorithm's error rule
# --------------------------------------------------------------------------------------------
def _analytic(
    parts: list[tuple[str, float]], once: dict[tuple[str, float], float], strategies: int
) -> Cost:
    """A :class:`Cost` of an analytic view: its parts plus what is built once per click
    (RawSum's dense design, GreedyH(W), ClampShells' designs), named by algorithm."""
    built: dict[str, float] = {}
    for (name, _), sec in once.items():
        built[name] = built.get(name, 0.0) + sec
    named = parts + [
        (f"the design of {get(name).label}", sec) for name, sec in built.items() if sec > 0
    ]
    return Cost(
        seconds=sum(sec for _, sec in named),
        strategies=strategies,
        runs=1,
        parts=_largest(named),
        lower=LOWER_ANALYTIC,
        then="the page computes them",
    )


def decision_cost(config: ExperimentConfig, epsilons: Sequence[float] | np.ndarray) -> Cost:
    """The estimated cost of the Decide page's analytic curves
    (:func:`~dpsum_core.simulate.decision.relative_error_curves`) at ``epsilons``: for every
    (truncation, algorithm) of the configuration, its error rule at the θ its laws can take
    over the whole grid — SVT's grid, the recursive mechanism's LAW_POINTS quantiles per ε,
    RawSum's one θ per ε, ClampShells' every J* at each ε with that ε's tree — and what each
    builds once (RawSum's design, GreedyH strategies, ClampShells' designs).

    Privacy
    -------
    Reads the public configuration only; never the data.
    """
    eps = [float(e) for e in epsilons]
    n, params, upper = config.bins, config.truncation_params, config.upper
    m = make_workload(config.workload, config.domain).size
    parts: list[tuple[str, float]] = []
    once: dict[tuple[str, float], float] = {}
    strategies = 0
    for truncation, name in run_plan(config):
        alg = get(name)
        if alg.theta_law is not None:  # θ located inside (ClampShells): a design per ε
            pieces = [alg.error_cost(Work(n, m, 1, n, e)) for e in eps]
        elif alg.runs_once:  # θ after measuring (RawSum): one θ per ε
            pieces = [alg.error_cost(Work(n, m, 1, len(eps)))]
        else:
            method = truncation_record(truncation)
            thetas = method.distinct_thetas(params, upper, LAW_POINTS * len(eps))
            pieces = [alg.error_cost(Work(n, m, 1, thetas))]
        parts.append((f"the error of {_who(name, truncation)}", sum(p.run for p in pieces)))
        for p in pieces:
            once[(name, p.once)] = p.once
        strategies += sum(p.strategies for p in pieces)
    return _analytic(parts, once, strategies)


def curves_cost(config: ExperimentConfig, thetas: int, *, private: bool) -> Cost:
    """The estimated cost of the θ curves of every algorithm of ``config`` at ``thetas`` θ
    values (Single query): each algorithm's error rule at its measurement budget.

    Privacy
    -------
    Reads the public configuration only; never the data.
    """
    m = make_workload(config.workload, config.domain).size
    parts: list[tuple[str, float]] = []
    once: dict[tuple[str, float], float] = {}
    strategies = 0
    for name in config.algorithms:
        alg = get(name)
        truncation = "fixed" if not private or alg.runs_once else "svt"
        eps_m = budget_split(config.epsilon, config.rho, truncation)[1]
        part = alg.error_cost(Work(config.bins, m, 1, thetas, eps_m))
        parts.append((f"the error of {alg.label}", part.run))
        once[(name, part.once)] = part.once
        strategies += part.strategies
    return _analytic(parts, once, strategies)


def estimate_cost(config: ExperimentConfig, algorithm: str, *, trials: int, points: int) -> Cost:
    """The estimated cost of a release plan's expected error (the Release page): an algorithm
    with its own θ runs ``trials`` simulated trials first; then the error at ``points`` θ
    quantiles (each a GreedyH strategy for TaMM).

    Privacy
    -------
    Reads the public configuration only; never the data.
    """
    alg = get(algorithm)
    m = make_workload(config.workload, config.domain).size
    truncation = alg.theta_rule if alg.runs_once else config.truncations[0]
    eps = config.epsilon if alg.runs_once else budget_split(
        config.epsilon, config.rho, truncation
    )[1]  # fmt: skip
    distinct = truncation_record(truncation).distinct_thetas(
        config.truncation_params, config.upper, trials
    )
    parts = [alg.error_cost(Work(config.bins, m, 1, min(points, distinct), eps))]
    if alg.runs_once:  # its simulated trials: a run without the run's own error column
        run = alg.cost(Work(config.bins, m, trials, distinct, eps))
        column = alg.error_cost(Work(config.bins, m, 1, distinct, eps)).run
        parts.append(Seconds(max(run.run - column, 0.0), run.once, run.strategies))
    once = {(algorithm, p.once): p.once for p in parts}
    seconds = [(f"the expected error of {alg.label}", sum(p.run for p in parts))]
    return _analytic(seconds, once, sum(p.strategies for p in parts))


# What a one-trial release adds to its run's estimate (plan, true answers, intervals, record):
# ≈ 2–3 ms measured for Identity at 200 and 1,000 bins (bench/decide_intervals.py).
RELEASE_OVERHEAD_S = 0.003


def interval_cost(
    config: ExperimentConfig, points: Sequence[tuple[str, str, float]], releases: int
) -> Cost:
    """The estimated cost of measuring published intervals (Decide,
    :mod:`dpsum_core.publish.planned`): ``releases`` one-trial releases of each (algorithm,
    truncation, ε) of ``points``, each priced as :func:`run_cost` prices its runs, plus
    :data:`RELEASE_OVERHEAD_S` a release.

    Privacy
    -------
    Reads the public configuration only; never the data.
    """
    parts: dict[str, float] = {}
    strategies = 0
    for name, truncation, epsilon in points:
        engine = truncation if truncation in config.truncations else config.truncations[0]
        one = config.with_(epsilon=float(epsilon), algorithms=(name,), truncations=(engine,),
                           trials=1)  # fmt: skip
        cost = run_cost(one, runs=releases)
        who = f"the releases of {_who(name, truncation)}"
        parts[who] = parts.get(who, 0.0) + cost.seconds + releases * RELEASE_OVERHEAD_S
        strategies += cost.strategies
    return Cost(
        seconds=sum(parts.values()), strategies=strategies, runs=1,
        parts=_largest(list(parts.items())), lower=LOWER_ANALYTIC,
        then="the page measures them",
    )  # fmt: skip
