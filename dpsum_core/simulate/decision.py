"""The decision view: analytic error against ε for every configuration, the smallest ε that
meets a target, and the sentences that say it; no noise drawn (simulated overlays excepted).
"""


from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpsum_core import limits
from dpsum_core.checkpoint import checkpoint
from dpsum_core.data.dataset import Statistics
from dpsum_core.errors import ParameterError
from dpsum_core.mechanisms.algorithm import Algorithm
from dpsum_core.mechanisms.error import Components, expected_abs_error
from dpsum_core.mechanisms.measurement import Inputs
from dpsum_core.mechanisms.registry import get
from dpsum_core.mechanisms.workloads import make_workload
from dpsum_core.simulate.budget import budget_split
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import epsilon_sweep, inputs_for, run_plan
from dpsum_core.simulate.results import configuration_name, headline, headline_name, percent
from dpsum_core.text import counted
from dpsum_core.truncation.choice import ThetaLaw
from dpsum_core.truncation.registry import theta_laws

# --------------------------------------------------------------------------------------------
# Error against ε: the decision view
# --------------------------------------------------------------------------------------------
Curves = dict[tuple[str, str], np.ndarray]  # (algorithm, truncation) → (ε values, m)
NEGLIGIBLE = 1e-12  # θ values less likely than this are left out of the expected error


def epsilon_grid() -> np.ndarray:
    """The decision view's ε values: log-spaced over the app's ε range (``limits``)."""
    return np.geomspace(
        limits.DECIDE_EPSILON_LOW, limits.DECIDE_EPSILON_HIGH, limits.DECIDE_EPSILON_POINTS
    )


def query_subset(thresholds: np.ndarray, above: float) -> np.ndarray:
    """Boolean mask of the queries whose τ is at or above the ``above``-th percentile of the
    workload's thresholds (``above`` in [0, 100); 0 keeps every query).

    Small queries have tiny true answers, so their relative error is large whatever ε: a
    target is usually stated for the queries above a small percentile.
    """
    p = float(above)
    if not 0 <= p < 100:
        raise ParameterError(f"the query percentile must be in [0, 100), got {above!r}")
    tau = np.asarray(thresholds, float)
    return tau >= np.percentile(tau, p, method="lower")


def _laws(
    alg: Algorithm, inputs: Inputs, config: ExperimentConfig, truncation: str, eps: np.ndarray
) -> list[ThetaLaw]:
    """The law of ``alg``'s θ under ``truncation`` at each total budget in ``eps``."""
    if alg.theta_law is not None:  # θ located inside the mechanism: its exact law
        laws = []
        for e in eps:
            checkpoint()  # each law reads the data's exact edge sums: stoppable between them
            laws.append(ThetaLaw(*alg.theta_law(inputs, float(e))))
        return laws
    if alg.runs_once:
        if alg.posthoc_theta is None:
            raise RuntimeError(f"{alg.name} has no posthoc_theta (a bug in the registry)")
        return [ThetaLaw(t[None], np.ones(1)) for t in alg.posthoc_theta(inputs, eps)]
    per_query = alg.per_query
    m = inputs.workload.size
    eps_theta = np.array([budget_split(float(e), config.rho, truncation)[0] for e in eps])
    return theta_laws(
        inputs.data,
        truncation,
        epsilons=eps_theta / m if per_query else eps_theta,
        upper=config.upper,
        params=config.truncation_params,
        tau=inputs.workload.thresholds if per_query else None,
    )


def relative_error_curves(
    data: Statistics, config: ExperimentConfig, epsilons: Sequence[float] | np.ndarray
) -> Curves:
    """Expected relative error E|ŷ_i − y_i| / max(y_i, δ) of every query at each ε, for every
    (algorithm, truncation) that :func:`~dpsum_core.simulate.experiment.run_experiment` would run.

    For each ε: θ follows its law at that ε (:func:`~dpsum_core.truncation.registry.theta_law`, with
    ε_θ = ρε, or ρε/m per query for SQM; a post-hoc θ is the one its rule picks on the
    noise-free measurement); the measurement gets ε_m = ε − ε_θ; E|ŷ − y| comes from bias² and
    variance at each θ by :func:`~dpsum_core.mechanisms.error.expected_abs_error` (noise taken as
    normal) and is averaged over θ's law. Isotonic regression is not modelled.
    Every algorithm's variance is proportional to 1/ε_m² (its Laplace scales are), so the error
    components are computed once per θ at ε_m = 1 and rescaled.

    Returns
    -------
    dict
        ``{(algorithm, truncation): array (len(epsilons), m)}``.

    Privacy
    -------
    Computed from the private data with no noise (true answers, θ's law): for people allowed
    to see the data. Choosing ε or an algorithm from it makes the choice depend on the data.
    """
    inputs = inputs_for(data, config)
    floor = np.maximum(inputs.true_answers, config.delta)
    eps = np.asarray(epsilons, float)
    out: Curves = {}
    laws: dict[tuple[str, str], list[ThetaLaw]] = {}  # one shared θ law for the batch algorithms
    for truncation, name in run_plan(config):
        alg = get(name)
        key = (name if alg.runs_once else alg.theta_rule, truncation)
        if key not in laws:
            laws[key] = _laws(alg, inputs, config, truncation, eps)
        eps_m = np.array([budget_split(float(e), config.rho, truncation)[1] for e in eps])
        out[(name, truncation)] = _expected_abs(alg, inputs, laws[key], eps_m) / floor
    return out


def _expected_abs(
    alg: Algorithm, inputs: Inputs, laws: list[ThetaLaw], eps_m: np.ndarray
) -> np.ndarray:
    """E|ŷ_i − y_i| at each measurement budget (rows), averaged over θ's law at that budget.

    Support points of negligible probability (≤ NEGLIGIBLE) are skipped. A shared θ's error
    components are computed once for every θ any law uses (SVT uses one grid at every ε);
    per-query laws (SQM) once per distinct support.
    """
    shared = all(law.support.ndim == 1 for law in laws)
    if shared:
        union = np.unique(np.concatenate([law.support for law in laws]))
        bias2_all, var_all = alg.error(inputs, union, 1.0)
    rows = []
    cached: tuple[bytes, Components] | None = None
    for law, e in zip(laws, eps_m, strict=True):
        checkpoint()  # one ε at a time: stoppable between them
        weights = law.weights if law.weights.ndim == 2 else law.weights[:, None]
        used = np.flatnonzero(weights.max(axis=1) > NEGLIGIBLE)
        if not alg.error_rescales:  # the design itself depends on ε (ClampShells)
            bias2, var = alg.error(inputs, law.support[used], float(e))
            rows.append(np.sum(weights[used] * expected_abs_error(bias2, var), axis=0))
            continue
        if shared:
            at = np.searchsorted(union, law.support[used])
            bias2, var_at_1 = bias2_all[at], var_all[at]
        else:
            if cached is None or cached[0] != law.support.tobytes():  # SQM's SVT: one grid
                cached = (law.support.tobytes(), alg.error(inputs, law.support, 1.0))
            bias2, var_at_1 = cached[1][0][used], cached[1][1][used]
        rows.append(np.sum(weights[used] * expected_abs_error(bias2, var_at_1 / e**2), axis=0))
    return np.array(rows)


def headline_vs_epsilon(
    curves: Curves, epsilons: Sequence[float] | np.ndarray, queries: np.ndarray
) -> pd.DataFrame:
    """The headline metric (:func:`~dpsum_core.simulate.results.headline`) of each curve at each ε, over
    the queries selected by the boolean mask ``queries``.

    Returns
    -------
    pandas.DataFrame
        Columns epsilon, algorithm, truncation, metric (one row per configuration and ε).
    """
    eps = np.asarray(epsilons, float)
    keep = np.asarray(queries, bool)
    if not keep.any():
        raise ParameterError("no query is selected: lower the query percentile")
    frames = [
        pd.DataFrame(
            {
                "epsilon": eps,
                "algorithm": name,
                "truncation": truncation,
                "metric": [headline(row[None, keep]) for row in rel],
            }
        )
        for (name, truncation), rel in curves.items()
    ]
    return pd.concat(frames, ignore_index=True)


def error_vs_epsilon(
    data: Statistics,
    config: ExperimentConfig,
    epsilons: Sequence[float] | np.ndarray | None = None,
    *,
    above: float = 10.0,
) -> pd.DataFrame:
    """Analytic headline metric against ε for every algorithm and truncation of ``config``, on
    the queries from the ``above``-th percentile of τ up.

    See :func:`relative_error_curves` (the model) and :func:`headline_vs_epsilon` (the frame).
    ``epsilons`` defaults to :func:`epsilon_grid`.

    Privacy
    -------
    As :func:`relative_error_curves`: a tool for people allowed to see the data.
    """
    eps = epsilon_grid() if epsilons is None else np.asarray(epsilons, float)
    mask = query_subset(make_workload(config.workload, config.domain).thresholds, above)
    return headline_vs_epsilon(relative_error_curves(data, config, eps), eps, mask)


def simulated_error_vs_epsilon(
    data: Statistics,
    config: ExperimentConfig,
    epsilons: Sequence[float] | np.ndarray,
    *,
    above: float = 10.0,
    progress: Callable[[float, str], None] | None = None,
) -> pd.DataFrame:
    """The simulated headline metric (one full run per ε, ``config``'s trials and seed) in the
    frame of :func:`error_vs_epsilon`: ``metric`` without isotonic regression, as the analytic
    one, and ``metric_iso`` with it.

    Privacy
    -------
    Runs the mechanisms and compares with the true answers: a check for the data holder.
    """
    mask = query_subset(make_workload(config.workload, config.domain).thresholds, above)
    sweep = epsilon_sweep(data, config, list(epsilons), progress=progress, queries=mask)
    return sweep.rename(
        columns={"median_rel_error": "metric", "median_rel_error_iso": "metric_iso"}
    )[["epsilon", "algorithm", "truncation", "metric", "metric_iso"]]


@dataclass(frozen=True)
class Reach:
    """Where one configuration meets an error target.

    Attributes
    ----------
    epsilon
        The smallest ε meeting the target (interpolated on log–log axes between the two grid
        points around the first crossing), or ``None`` when it is not met in the range.
    best
        The lowest error in the range.
    from_start
        Met already at the smallest ε of the range (``epsilon`` is then that ε).
    """

    algorithm: str
    truncation: str
    epsilon: float | None
    best: float
    from_start: bool = False


def smallest_epsilon(frame: pd.DataFrame, target: float) -> tuple[Reach, ...]:
    """Per (algorithm, truncation) of an :func:`error_vs_epsilon` frame, the smallest ε at which
    ``metric`` ≤ ``target``; sorted by that ε (unmet last)."""
    if not np.isfinite(target) or target <= 0:
        raise ParameterError(f"the error target must be a number > 0, got {target!r}")
    reaches = []
    for (name, truncation), part in frame.groupby(["algorithm", "truncation"], sort=False):
        part = part.sort_values("epsilon")
        eps = part["epsilon"].to_numpy(float)
        err = part["metric"].to_numpy(float)
        met = np.flatnonzero(err <= target)
        best = float(np.nanmin(err))
        if met.size == 0:
            reaches.append(Reach(str(name), str(truncation), None, best))
            continue
        i = int(met[0])
        if i == 0:
            reaches.append(Reach(str(name), str(truncation), float(eps[0]), best, True))
            continue
        # the first crossing lies between grid points i−1 (above target) and i (at or below)
        x0, x1 = np.log(eps[i - 1]), np.log(eps[i])
        y0, y1 = np.log(err[i - 1]), np.log(max(err[i], 1e-300))
        at = x1 if y0 == y1 else x0 + (np.log(target) - y0) * (x1 - x0) / (y1 - y0)
        reaches.append(Reach(str(name), str(truncation), float(np.exp(at)), best))
    return tuple(sorted(reaches, key=lambda r: (r.epsilon is None, r.epsilon or 0.0)))


def target_sentence(target: float, above: float, selected: int, total: int) -> str:
    """What the target means, in one sentence."""
    which = "all queries" if above == 0 else (
        f"the queries from the {above:g}th percentile of τ up"
    )  # fmt: skip
    return (
        f"Target: {headline_name()} ≤ {percent(target)} on {which} ({selected:,} of "
        f"{counted(total, 'query', 'queries')})."
    )


def decision_summary(reaches: Sequence[Reach], target: float, epsilons: np.ndarray) -> list[str]:
    """Plain-language sentences: which configuration meets ``target`` first, at which ε, what
    the others need, and which do not reach it in the range of ``epsilons``.

    >>> decision_summary([Reach("tamm", "svt", 0.4, 0.01), Reach("identity", "svt", 0.9, 0.02)],
    ...                  0.05, np.array([0.001, 10.0]))
    ['TaMM with SVT reaches a median relative error of 5 % at ε ≈ 0.4.', 'Identity with SVT needs ε ≈ 0.9.']
    """
    low, high = float(np.min(epsilons)), float(np.max(epsilons))
    lines = []
    first = True
    for r in reaches:
        who = configuration_name(r.algorithm, r.truncation)
        if r.epsilon is None:
            lines.append(
                f"{who} does not reach {percent(target)} for ε up to {high:g} (its lowest "
                f"{headline_name()} is {percent(r.best)})."
            )
        elif r.from_start:
            lines.append(
                f"{who} meets a {headline_name()} of {percent(target)} already at ε = {low:g}, "
                "the smallest ε shown."
            )
        elif first:
            lines.append(
                f"{who} reaches a {headline_name()} of {percent(target)} at ε ≈ {r.epsilon:.2g}."
            )
        else:
            lines.append(f"{who} needs ε ≈ {r.epsilon:.2g}.")
        first = first and r.epsilon is None
    return lines
