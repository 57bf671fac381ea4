"""Running an experiment: ExperimentConfig + data → run_experiment → ExperimentResult.

One root seed per experiment; every (truncation, purpose) pair draws from its own stream
(:mod:`dpsum_core.simulate.streams`), so the same seed gives identical results.
"""


from __future__ import annotations

import math
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext

import numpy as np
import pandas as pd

from dpsum_core import limits
from dpsum_core.checkpoint import checkpoint, checkpoints
from dpsum_core.data.dataset import Statistics
from dpsum_core.data.domain import histogram
from dpsum_core.data.summary import CutPoints
from dpsum_core.errors import ParameterError
from dpsum_core.mechanisms.algorithm import PER_QUERY, SHARED, ThetaRule
from dpsum_core.mechanisms.isotonic import isotonic
from dpsum_core.mechanisms.measurement import Inputs
from dpsum_core.mechanisms.registry import get
from dpsum_core.mechanisms.workloads import Workload, make_workload
from dpsum_core.noise import Noise
from dpsum_core.simulate.budget import Budget, algorithm_split, budget_split
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.results import ExperimentResult, Run
from dpsum_core.simulate.streams import SQM_THETA_STREAM, THETA_STREAM, stream
from dpsum_core.text import number
from dpsum_core.truncation.choice import ThresholdChoice
from dpsum_core.truncation.registry import choose_theta
from dpsum_core.truncation.registry import cut_points as truncation_cut_points

__all__ = [
    "ExperimentConfig",
    "ExperimentResult",
    "Run",
    "check_run_size",
    "epsilon_sweep",
    "inputs_for",
    "run_experiment",
    "stream",
    "threshold_choice",
    "threshold_samples",
]


def check_run_size(config: ExperimentConfig, workload: Workload) -> None:
    """Refuse a run that would keep more than ``limits.MAX_ANSWERS`` noisy answers in memory."""
    runs = len(run_plan(config))
    answers = config.trials * workload.size * runs
    if answers > limits.MAX_ANSWERS:
        fits = max(1, limits.MAX_ANSWERS // (workload.size * runs))
        raise ParameterError(
            f"this run would keep {answers:,} noisy answers (trials × queries × algorithms × "
            f"truncation methods), about {answers * 16 / 1e9:.1f} GB: use at most {fits:,} "
            "trials with this workload, or fewer queries (e.g. Q2/Q3)"
        )


def run_plan(config: ExperimentConfig) -> list[tuple[str, str]]:
    """(truncation, algorithm) pairs in run order: every θ-choosing algorithm under every listed
    truncation method, then each algorithm with its own θ once, under the label of its θ rule
    (``posthoc``: chosen after measuring; ``inside``: located with its own share of ε)."""
    plan = [
        (trunc, alg)
        for trunc in config.truncations
        for alg in config.algorithms
        if not get(alg).runs_once
    ]
    return plan + [(get(a).theta_rule, a) for a in config.algorithms if get(a).runs_once]


def inputs_for(data: Statistics, config: ExperimentConfig) -> Inputs:
    """The private inputs of every mechanism: histogram, workload and true answers."""
    domain = config.domain
    workload = make_workload(config.workload, domain)
    return Inputs(
        data=data,
        x=histogram(data, domain),
        workload=workload,
        domain=domain,
        true_answers=data.sum_at_most(workload.thresholds),
        delta=config.delta,
        public_cap=config.public_cap,
    )


def threshold_choice(
    rule: ThetaRule,
    data: Statistics,
    config: ExperimentConfig,
    truncation: str,
    workload: Workload,
    noise: Noise | None = None,
) -> ThresholdChoice:
    """θ under ``truncation`` for an algorithm whose θ rule is ``rule`` (``shared``: one θ per
    trial from THETA_STREAM; ``per_query``: θ_i per query with ε_θ/m from SQM_THETA_STREAM),
    drawn from ``noise`` instead when it is given."""
    eps_theta, _ = budget_split(config.epsilon, config.rho, truncation)
    per_query = rule == PER_QUERY
    purpose = SQM_THETA_STREAM if per_query else THETA_STREAM
    rng = noise if noise is not None else stream(config.seed, truncation, purpose)
    return choose_theta(
        data,
        truncation,
        epsilon=eps_theta / workload.size if per_query else eps_theta,
        upper=config.upper,
        params=config.truncation_params,
        trials=config.trials,
        rng=rng,
        tau=workload.thresholds if per_query else None,
    )


def run_cut_points(config: ExperimentConfig) -> CutPoints:
    """The public cut points a data summary must hold for ``config``: the bin edges (every
    workload this tool builds has its thresholds on them) and each truncation method's own
    points (the SVT grid u_k, a fixed θ) for the configuration's U.

    Privacy
    -------
    Every input is public; nothing here looks at the data.
    """
    params = config.truncation_params
    return CutPoints(config.domain, truncation_cut_points(params, config.upper))


Progress = Callable[[float, str], None]


class _Steps:
    """The current step of a run (fraction done, message): announced at each step and, while a
    ``progress`` callback listens, reported to it again at every engine checkpoint inside the
    step (between θ groups, design stages, sweep points), where the callback may stop the run
    by raising. Without a callback, a step is a checkpoint of whatever hook an outer caller
    bound (:mod:`dpsum_core.checkpoint`)."""

    def __init__(self, progress: Progress | None) -> None:
        self._progress = progress
        self._now = (0.0, "starting")

    def bound(self) -> AbstractContextManager[None]:
        """Bind :meth:`report` as the checkpoint hook when a callback listens."""
        return checkpoints(self.report) if self._progress else nullcontext()

    def start(self, fraction: float, message: str) -> None:
        """Enter a step (a checkpoint)."""
        self._now = (fraction, message)
        checkpoint()

    def report(self) -> None:
        """Report the current step to the callback (the hook bound by :meth:`bound`)."""
        if self._progress:
            self._progress(*self._now)


def _scaled(progress: Progress | None, i: int, n: int, label: str) -> Progress | None:
    """Point ``i`` of ``n``'s share of an outer progress bar: a run's steps inside a sweep."""
    if progress is None:
        return None
    return lambda fraction, message: progress((i + fraction) / n, f"{label}: {message}")


def run_experiment(
    data: Statistics,
    config: ExperimentConfig,
    *,
    progress: Callable[[float, str], None] | None = None,
    noise: Noise | None = None,
) -> ExperimentResult:
    """Run every (truncation, algorithm) of ``config`` on ``data`` for ``config.trials`` trials.

    Parameters
    ----------
    data
        Cleaned values; must have been cleaned with the same U as ``config.upper``.
    progress
        Optional callback ``progress(fraction_done, message)``, called at each step and at
        every checkpoint inside one (between θ groups: TaMM with a continuous θ builds a
        strategy per trial); it may raise to stop the run, which then returns nothing.
    noise
        Where every draw comes from instead of the seeded numpy streams (``config.seed`` is
        then unused): :class:`~dpsum_core.noise.OpenDPNoise` for a release
        (:mod:`dpsum_core.publish.release`).

    Privacy
    -------
    Per algorithm: ε_θ = ρ·ε for ``svt``/``recursive`` (0 for ``none``/``fixed`` and for a
    post-hoc θ), ε_m = ε − ε_θ. The batch algorithms share one θ per trial (one θ release is
    reused, as in the paper's experiments where each algorithm is a separate release); SQM
    spends ε_θ/m and ε_m/m per query. The ledger records what each step actually spent (from
    its noise scales) and must sum to ε. True answers are computed for evaluation only: this is
    a tool for people allowed to see the data, not a publication channel.
    """
    if not math.isclose(data.upper, config.upper):
        raise ParameterError(
            f"the data was cleaned with U = {number(data.upper)} but the configuration uses "
            f"U = {number(config.upper)}: reload the data with the new upper bound"
        )
    start = time.perf_counter()
    inputs = inputs_for(data, config)
    workload = inputs.workload
    check_run_size(config, workload)
    plan = run_plan(config)
    steps = _Steps(progress)
    with steps.bound():
        runs = _run_plan(data, config, inputs, plan, steps, noise)
        steps.start(1.0, "done")
    return ExperimentResult(
        config=config,
        dataset_name=data.name,
        dataset_column=data.column,
        cleaning=data.report.as_dict(),
        workload=workload,
        true_answers=inputs.true_answers,
        binned_answers=workload.prefix(config.domain.bin_weights * inputs.x),
        runs=tuple(runs),
        seconds=time.perf_counter() - start,
    )


def _run_plan(
    data: Statistics,
    config: ExperimentConfig,
    inputs: Inputs,
    plan: list[tuple[str, str]],
    steps: _Steps,
    noise: Noise | None,
) -> list[Run]:
    """The runs of :func:`run_experiment`, one step per (truncation, algorithm)."""
    workload = inputs.workload
    shared: dict[str, ThresholdChoice] = {}
    runs: list[Run] = []
    for done, (trunc, name) in enumerate(plan):
        alg = get(name)
        t0 = time.perf_counter()
        steps.start(done / len(plan), f"{alg.label} with {trunc} truncation")
        if alg.runs_once:
            choice = ThresholdChoice(trunc, np.full(config.trials, np.inf), 0.0)
            eps_theta = 0.0
        else:
            if alg.theta_rule == SHARED:
                if trunc not in shared:
                    shared[trunc] = threshold_choice(
                        alg.theta_rule, data, config, trunc, workload, noise
                    )
                choice = shared[trunc]
            else:
                choice = threshold_choice(alg.theta_rule, data, config, trunc, workload, noise)
            per_query = alg.per_query
            eps_theta = choice.epsilon * (workload.size if per_query else 1)
        _, eps_m = budget_split(config.epsilon, config.rho, trunc)
        rng = noise if noise is not None else stream(config.seed, trunc, alg.stream_id)
        measured = alg.run(inputs, choice.theta, epsilon=eps_m, rng=rng)
        theta = measured.theta if measured.theta is not None else choice.theta
        # An algorithm that locates θ itself reports that share (ClampShells' stage 1).
        budget = Budget(name, trunc, eps_theta + measured.epsilon_theta, measured.epsilon)
        if not math.isclose(budget.total, config.epsilon, rel_tol=1e-9):
            raise RuntimeError(f"ledger of {name}/{trunc} sums to {budget.total!r}, not ε (a bug)")
        planned = algorithm_split(name, config.epsilon, config.rho, trunc,
                                  public_cap=config.public_cap)  # fmt: skip
        if not math.isclose(budget.epsilon_theta, planned[0], rel_tol=1e-9, abs_tol=1e-12):
            raise RuntimeError(f"ledger of {name}/{trunc} spent ε_θ = {budget.epsilon_theta!r}, "
                               f"not the planned {planned[0]!r} (a bug)")  # fmt: skip
        runs.append(
            Run(
                algorithm=name,
                truncation=trunc,
                answers=measured.answers,
                answers_iso=isotonic(measured.answers),
                theta=theta,
                budget=budget,
                expected_mse=alg.expected_mse(inputs, theta, eps_m),
                seconds=time.perf_counter() - t0,
                fallbacks=choice.fallbacks,
            )
        )
    return runs


def threshold_samples(data: Statistics, config: ExperimentConfig, truncation: str) -> np.ndarray:
    """The θ each trial of ``config`` draws for the batch algorithms under ``truncation``.

    Uses the same random stream as :func:`run_experiment`, so these are exactly the θ values
    of the corresponding run.
    """
    workload = make_workload(config.workload, config.domain)
    return threshold_choice(SHARED, data, config, truncation, workload).theta


def epsilon_sweep(
    data: Statistics,
    config: ExperimentConfig,
    epsilons: list[float] | np.ndarray,
    *,
    progress: Callable[[float, str], None] | None = None,
    queries: np.ndarray | None = None,
) -> pd.DataFrame:
    """Mean relative error (without and with isotonic) of every configuration at each ε.

    ``queries``: boolean mask of the queries the metrics are taken over (all by default).
    ``progress``: as in :func:`run_experiment`, over the whole sweep (each point's steps and
    checkpoints report within its share); it may raise to stop the sweep.

    Returns
    -------
    pandas.DataFrame
        Columns epsilon, algorithm, truncation, mean_rel_error, mean_rel_error_iso,
        median_rel_error, median_rel_error_iso (median over queries of the per-query mean).
    """
    rows = []
    eps_list = [float(e) for e in epsilons]
    steps = _Steps(progress)
    with steps.bound():
        for i, eps in enumerate(eps_list):
            steps.start(i / len(eps_list), f"ε = {eps:g}")
            point = _scaled(progress, i, len(eps_list), f"ε = {eps:g}")
            rows.append(_sweep_point(data, config.with_(epsilon=eps), queries, point))
        steps.start(1.0, "done")
    return pd.concat(rows, ignore_index=True)


def _sweep_point(
    data: Statistics,
    config: ExperimentConfig,
    queries: np.ndarray | None,
    progress: Progress | None,
) -> pd.DataFrame:
    """One ε of :func:`epsilon_sweep`: its configurations' metrics."""
    result = run_experiment(data, config, progress=progress)
    columns = [
        "algorithm",
        "truncation",
        "mean_rel_error",
        "mean_rel_error_iso",
        "median_rel_error",
        "median_rel_error_iso",
    ]
    return result.overview(queries)[columns].assign(epsilon=config.epsilon)
