"""Publishing: plan → inspect → release, one trial of one algorithm with OpenDP's samplers.

:func:`plan_release` fixes what will be released (algorithm, truncation, budget split) from
public inputs only; :func:`expected_error` shows the custodian, before anything is drawn,
how far the answers are expected to land from the truth; :func:`release` draws once and
returns a :class:`Release`, whose :meth:`~Release.record` and :meth:`~Release.answers_frame`
are the only things :func:`write_release` writes. The mechanisms are the engine's own
(:func:`dpsum_core.simulate.experiment.run_experiment` with an injected noise source), so a release is
exactly one trial of what the explorer simulates.

From a data summary (``--engine duckdb|spark``, or memory through a backend), a statistic the
summary lacks can be found missing only once a θ has been drawn (the recursive mechanism's θ
is continuous: the counts and sums at it need a second pass). :func:`release_plan` then runs
the pass and goes on, and every draw is made exactly once: :class:`DrawOnce` records each draw
of the hardened source, and the run after the pass receives the *recorded* noisy values for the
draws already made (it asks with the same exact inputs and scales, which is checked), so θ is
drawn once, the pass reads the data at the already-public noisy θ, and the measurement is
drawn after the pass, once. Nothing is ever drawn twice (see ``tests/core/test_release_engines.py``).

RawSum (θ* after measuring, no budget on θ) and ClampShells (θ* located with its own share)
record their own θ rule (``posthoc``, ``inside``) and refuse any other truncation rather than
ignore it; every other algorithm needs one of ``none``, ``fixed``, ``svt``, ``recursive``.
"""

from __future__ import annotations

import math
import platform
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from importlib import metadata

import numpy as np
import pandas as pd

from dpsum_core import __version__, limits
from dpsum_core.data.cleaning import unit_of_privacy
from dpsum_core.data.dataset import Statistics, make_dataset
from dpsum_core.data.summary import DataSummary, MissingStatistics
from dpsum_core.errors import ParameterError
from dpsum_core.mechanisms.algorithm import INSIDE, POSTHOC
from dpsum_core.mechanisms.recommend import resolve_for_release
from dpsum_core.mechanisms.registry import get
from dpsum_core.mechanisms.registry import truncation as theta_rule
from dpsum_core.mechanisms.workloads import make_workload
from dpsum_core.noise import Noise, OpenDPNoise
from dpsum_core.publish.above_theta import above_theta
from dpsum_core.publish.digits import PUBLISHED_DIGITS as PUBLISHED_DIGITS
from dpsum_core.publish.digits import published, published_down, published_up
from dpsum_core.publish.digits import published_frame as published_frame
from dpsum_core.publish.draws import DrawOnce, hardened
from dpsum_core.publish.intervals import Intervals, release_intervals
from dpsum_core.simulate.budget import theta_fraction
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import (
    inputs_for,
    run_cut_points,
    run_experiment,
    threshold_choice,
)
from dpsum_core.text import EPSILON_FROM_DATA
from dpsum_core.truncation.registry import TRUNCATION_METHODS

# The expected error averages the analytic error given θ over θ's distribution, estimated by
# simulating the threshold step (numpy, a fixed seed, so the estimate does not move between
# reruns) ESTIMATE_TRIALS times and evaluating it at ESTIMATE_POINTS equal-probability points.
ESTIMATE_TRIALS = 400
ESTIMATE_POINTS = 25
ESTIMATE_SEED = 0
# The noise's 95 % interval: ± HALF_WIDTH_95 · σ, exact for one Laplace draw (P[|Lap(b)| ≤
# b·ln 20] = 0.95, σ = √2·b), a little conservative for sums of draws (closer to 1.96·σ).
HALF_WIDTH_95 = math.log(20.0) / math.sqrt(2.0)
# Simulation settings of an ExperimentConfig that a release does not use and does not record.
_NOT_RECORDED = ("seed", "trials", "algorithms", "truncations")  # δ is: ClampShells' gate reads it


@dataclass(frozen=True)
class ReleasePlan:
    """What a release will do, fixed before any noise is drawn; public inputs only.

    Attributes
    ----------
    config
        The engine's configuration of the release: one algorithm, one truncation method
        (``none`` stands in for a post-hoc algorithm, whose θ rule ignores it), one trial.
    algorithm, truncation
        As recorded (``posthoc`` for RawSum).
    isotonic
        Whether the published answers are isotonic-regressed (post-processing).
    epsilon_theta, epsilon_measure
        The budget split, ε_θ + ε_m = ε.
    auto
        Why ``auto`` chose ``algorithm`` (recorded as ``chosen_by_auto``), else ``None``.
    """

    config: ExperimentConfig
    algorithm: str
    truncation: str
    isotonic: bool
    epsilon_theta: float
    epsilon_measure: float
    auto: str | None = None

    @property
    def epsilon(self) -> float:
        """The total ε of the release."""
        return self.config.epsilon

    def record(self) -> dict:
        """The public configuration as release.json and the ledger record it, only what was
        used (else ``None``): no seed or trials; ρ where the θ rule spends ρε; the bin weights
        for the count-based algorithms; δ for ClampShells (its onset gate); the θ rule's own
        parameters alone."""
        out = {k: v for k, v in self.config.to_dict().items() if k not in _NOT_RECORDED}
        method = theta_rule(self.truncation)
        resolved = self.config.truncation_params.resolved(self.config.upper)
        out["truncation_params"] = {p.name: resolved[p.name] for p in method.params}
        alg = get(self.algorithm)  # the bin weights count only where bins' counts are weighted
        out.update({"rho": out["rho"] if method.spends_rho else None,
                    "weights": out["weights"] if alg.binned and not alg.runs_once else None,
                    "delta": out["delta"] if alg.theta_rule == INSIDE else None})  # fmt: skip
        chosen = {} if self.auto is None else {"chosen_by_auto": self.auto}
        return {
            "algorithm": self.algorithm,
            **chosen,
            "truncation": self.truncation,
            "isotonic": self.isotonic,
            **out,
        }

    def ledger_entry(self, data: Statistics) -> dict:
        """What the custodian's ledger keeps of this release of ``data`` (recorded before any
        draw): the data's name, the released column and the unit of privacy (``id_column``,
        from the data's cleaning: ``None`` for one row = one person)."""
        return {
            "created": _now(),
            "epsilon": self.epsilon,
            "algorithm": self.algorithm,
            "truncation": self.truncation,
            "data": data.name,
            "column": data.column,
            "id_column": data.report.id_column,
            "config": self.record(),
        }


def plan_release(
    config: ExperimentConfig, *, algorithm: str, truncation: str | None, isotonic: bool = True,
    public_cap: float | None = None,
) -> ReleasePlan:
    """Validate one algorithm and one truncation method for a release of ``config``.

    ``truncation`` is ``None`` or ``posthoc`` for a post-hoc algorithm (RawSum) and one of
    none, fixed, svt, recursive for every other; ``auto`` is resolved first (public inputs
    only: :func:`~dpsum_core.mechanisms.recommend.resolve_for_release`). A ``public_cap``
    (else ``config``'s) is ClampShells' θ* at no ε cost: ε_θ = 0.

    Raises
    ------
    ParameterError
        An algorithm or truncation dpsum does not offer, or one that does not fit the other.
    """
    name, trunc, why = resolve_for_release(
        algorithm, truncation, epsilon=config.epsilon, upper=config.upper, bins=config.bins,
        workload=config.workload,
    )
    alg = get(name)
    if alg.runs_once:
        own = alg.theta_rule  # posthoc (RawSum) or inside (ClampShells)
        if trunc not in (None, own):
            how = ("after measuring (post-processing, no budget on θ)" if alg.posthoc
                   else f"itself, with {alg.theta_share:.0%} of ε")  # fmt: skip
            raise ParameterError(
                f"{alg.label} chooses θ {how}: "
                f"leave the truncation out or use {own!r}, not {trunc!r}"
            )
        trunc, engine_trunc = own, "none"
    else:
        if trunc is None:
            raise ParameterError(
                f"choose one truncation for {alg.label}: {', '.join(TRUNCATION_METHODS)}"
            )
        if trunc not in TRUNCATION_METHODS:
            allowed = ", ".join(TRUNCATION_METHODS)
            raise ParameterError(
                f"unknown truncation {trunc!r} for {alg.label}: choose one of {allowed}"
                + (" (posthoc is RawSum's own)" if trunc == POSTHOC else "")
                + (" (inside is ClampShells' own)" if trunc == INSIDE else "")
            )
        engine_trunc = trunc
    cap = config.public_cap if public_cap is None else public_cap
    one = config.with_(truncations=(engine_trunc,), algorithms=(alg.name,), trials=1, public_cap=cap)
    fraction = theta_fraction(alg.name, one.rho, engine_trunc, public_cap=cap)
    eps_theta, eps_m = _decimal_split(one.epsilon, fraction)
    return ReleasePlan(one, alg.name, trunc, bool(isotonic), eps_theta, eps_m, why)


def _decimal_split(epsilon: float, fraction: float) -> tuple[float, float]:
    """(ε_θ, ε_m) = (fraction · ε, ε − fraction · ε) of :func:`algorithm_split`, in decimal
    arithmetic on the numbers as the user wrote them, so the recorded split reads 0.03 + 0.27,
    never 0.030000000000000002 (the noise uses the float split, which differs from it by at
    most one unit in the last place)."""
    if fraction == 0:
        return 0.0, float(epsilon)
    exact = Decimal(repr(float(fraction))) * Decimal(repr(float(epsilon)))
    return float(exact), float(Decimal(repr(float(epsilon))) - exact)


def decimal_text(value: float) -> str:
    """A number as the decimal the user gave: ``0.3``, ``1``, never ``0.30000000000000004``
    (the shortest text that reads back as the same float)."""
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


@dataclass(frozen=True, eq=False)
class ReleaseEstimate:
    """Expected error of each query of a planned release.

    Attributes
    ----------
    thresholds
        τ_i of the queries (public).
    rmse
        √E(ŷ_i − y_i)²: bias² (truncation and binning) plus the noise variance, given θ,
        averaged over θ's distribution.
    noise_sd
        The noise part alone, √E Var(ŷ_i | θ), in the answers' units.
    relative
        ``rmse`` ÷ |true answer| (NaN where it is 0): the Release page's "Y % of the answer".

    Privacy
    -------
    Computed from the private data without noise (the bias is a function of the data): for the
    custodian's confirmation step only, never written to a release or a ledger. Not isotonic:
    isotonic regression only brings answers closer to the truth (SPEC §5).
    """

    thresholds: np.ndarray
    rmse: np.ndarray
    noise_sd: np.ndarray
    relative: np.ndarray


def expected_error(data: Statistics, plan: ReleasePlan) -> ReleaseEstimate:
    """The expected error of what ``plan`` will release, before any noise is drawn.

    Given θ the error is analytic (SPEC §6); a θ chosen by SVT or the recursive mechanism is
    random, its law simulated with numpy (fixed seed, :data:`ESTIMATE_TRIALS` times). RawSum
    and ClampShells, which choose θ inside the run, are simulated whole (as many runs): their
    answers carry what a model leaves out (ClampShells' tail scan made its model 1.4× too low
    at ε = 0.01; a public cap's clamp).

    Privacy
    -------
    Reads the private data and draws simulated (numpy) noise that is never released: for the
    custodian's eyes only (see :class:`ReleaseEstimate`). It spends no budget because nothing
    it computes is published.
    """
    alg = get(plan.algorithm)
    config = plan.config.with_(trials=ESTIMATE_TRIALS, seed=ESTIMATE_SEED)
    inputs = inputs_for(data, config)
    trunc = config.truncations[0]
    rng = np.random.default_rng(ESTIMATE_SEED)
    y = np.asarray(inputs.true_answers, float)
    if alg.runs_once:  # its whole ε (it splits it internally), its own θ: simulated
        answers = alg.run(inputs, np.zeros(ESTIMATE_TRIALS), epsilon=plan.epsilon, rng=rng).answers
        rmse = np.sqrt(np.mean((answers - y) ** 2, axis=0))
        noise_sd = np.std(answers, axis=0)
    else:
        theta = threshold_choice(alg.theta_rule, data, config, trunc, inputs.workload).theta
        if theta.ndim == 1:  # equal-probability points of θ's law (TaMM: one GreedyH each)
            probs = (np.arange(ESTIMATE_POINTS) + 0.5) / ESTIMATE_POINTS
            theta = np.quantile(theta, probs, method="inverted_cdf")
        bias2, var = alg.error(inputs, theta, plan.epsilon_measure)
        rmse = np.sqrt(np.mean(bias2 + var, axis=0))
        noise_sd = np.sqrt(np.mean(var, axis=0))
    size = np.abs(y)
    relative = np.divide(rmse, size, out=np.full_like(rmse, np.nan), where=size > 0)
    return ReleaseEstimate(inputs.workload.thresholds.copy(), rmse, noise_sd, relative)


@dataclass(frozen=True, eq=False)
class Release:
    """One published release: everything here may be made public.

    Attributes
    ----------
    thresholds
        τ_i of the queries (public: the workload over the public domain).
    private_answers
        The noisy answers (isotonic-regressed when the plan says so).
    theta
        The released θ: one number (a shared θ, a fixed θ, RawSum's θ*), one per query
        (SQM), or ``None`` when nothing was truncated (θ = ∞).
    budget
        ``{epsilon_theta, epsilon_measure, total}`` as spent (total = ε).
    config
        The public configuration (:meth:`ReleasePlan.record`).
    versions
        dpsum, Python, numpy, scipy and OpenDP versions.
    created
        UTC time of the release (ISO 8601).
    id_column
        The privacy identifier the data was read with (its column's name, a public choice),
        or ``None`` when one row is one person: the guarantee is per person of this unit.
    column
        The released column's name (public, like the identifier's): what was summed.
    noise_halfwidth
        Half-width of the 95 % interval of each answer's noise (:data:`HALF_WIDTH_95` · σ,
        :func:`noise_halfwidth`). Bias left out, so never published (as a ± it can miss the
        truth almost always; answers.csv has ``intervals``): for ``bench/coverage.py`` and the
        noise tests.
    intervals
        The 95 % interval of each query's *true* answer, noise and bias bounded
        (:mod:`dpsum_core.publish.intervals`), or open above where the bias is not bounded.
    epsilon_chosen_from_data
        Whether ε was chosen from errors measured against this data's true answers (the
        app's Decide page on the data released): said in release.json and the report.
    gated
        Per query, whether the algorithm's onset gate published the answer as 0 because it
        could not be told from 0 (ClampShells'); ``None``: not recorded (read as no gate).

    Privacy
    -------
    Never holds the true answers, N, the cleaning counts or the histogram. Answers, θ and the
    half-widths are rounded to :data:`PUBLISHED_DIGITS` significant digits (post-processing).
    """

    thresholds: np.ndarray
    private_answers: np.ndarray
    theta: float | list[float] | None
    budget: dict
    config: dict
    versions: dict
    created: str
    noise_halfwidth: np.ndarray | None = None
    id_column: str | None = None
    intervals: Intervals | None = None
    column: str | None = None
    epsilon_chosen_from_data: bool = False
    gated: np.ndarray | None = None

    @property
    def unit_of_privacy(self) -> str:
        """The unit the guarantee protects, in plain words (public: names a chosen column)."""
        return unit_of_privacy(self.id_column)

    @property
    def gated_answers(self) -> np.ndarray:
        """Per query, whether the onset gate published it as 0 (all false without a gate)."""
        none = np.zeros(self.thresholds.size, bool)
        return none if self.gated is None else np.asarray(self.gated, bool)

    @property
    def above_theta(self) -> np.ndarray:
        """Per query, whether the released θ moves its answer: τ above θ (ClampShells: at or
        above θ*), where values above θ are counted as θ or left out
        (:mod:`~dpsum_core.publish.above_theta`)."""
        c = self.config
        return above_theta(self.thresholds, self.theta, algorithm=str(c["algorithm"]),
                           upper=float(c["upper"]))  # fmt: skip

    def answers_frame(self) -> pd.DataFrame:
        """answers.csv: threshold, private_answer, lower_95 and upper_95 (the 95 % interval of
        the *true* answer, noise and bias included; ``upper_95`` empty where open),
        bias_bounded, lower_97_5 and upper_97_5 (the same at 97.5 %: a band total's 95 %
        interval, :mod:`~dpsum_core.publish.bands`), gated (``true`` where the onset gate
        published 0 for an answer it could not tell from 0) and above_theta (``true`` where the
        released θ moves the answer: :attr:`above_theta`). No ± of the noise alone: next to a
        biased answer it reads as an interval that can miss the truth almost always."""
        frame = pd.DataFrame({"threshold": self.thresholds, "private_answer": self.private_answers})
        iv = self.intervals
        if iv is not None:
            frame["lower_95"] = iv.lower
            frame["upper_95"] = iv.upper
            frame["bias_bounded"] = np.where(iv.bias_bounded, "true", "false")
            if iv.lower_975 is not None and iv.upper_975 is not None:
                frame["lower_97_5"], frame["upper_97_5"] = iv.lower_975, iv.upper_975
        frame["gated"] = np.where(self.gated_answers, "true", "false")
        frame["above_theta"] = np.where(self.above_theta, "true", "false")
        return frame

    def record(self) -> dict:
        """release.json: unit of privacy, config, budget (and, only when ε was chosen from this
        data, ``epsilon_chosen_from_data`` with a note), theta, the intervals' summary,
        ``gated_thresholds`` (the τ whose answer the onset gate published as 0: the answer 0
        there means "not distinguishable from 0"), ``above_theta_thresholds`` (the τ whose answer
        the released θ moves: :attr:`above_theta`), versions, created."""
        return {
            "column": self.column,
            "unit_of_privacy": self.unit_of_privacy,
            "id_column": self.id_column,
            "config": self.config,
            "budget": self.budget,
            **({"epsilon_chosen_from_data": True, "epsilon_note": EPSILON_FROM_DATA}
               if self.epsilon_chosen_from_data else {}),
            "theta": self.theta,
            **({} if self.intervals is None else {"intervals": self.intervals.summary()}),
            "gated_thresholds": [float(t) for t in self.thresholds[self.gated_answers]],
            "above_theta_thresholds": [float(t) for t in self.thresholds[self.above_theta]],
            "versions": self.versions,
            "created": self.created,
        }


def release(
    data: Statistics,
    config: ExperimentConfig,
    *,
    algorithm: str,
    truncation: str | None,
    isotonic: bool = True,
    noise: OpenDPNoise | None = None,
    extend: Extend | None = None,
) -> Release:
    """Release the workload of ``config`` once, with one algorithm and one truncation method.

    Parameters
    ----------
    data
        Cleaned values (cleaned with ``config.upper``).
    config
        Workload, ε, ρ, domain and method parameters; its seed, trials, δ and lists of
        algorithms and truncations are simulation settings and are ignored.
    algorithm, truncation, isotonic
        See :func:`plan_release`.
    noise
        Leave it out: a new :class:`~dpsum_core.noise.OpenDPNoise`. Any other source (a
        seeded numpy generator, a wrapper with an ``add_laplace``) is refused
        (:func:`~dpsum_core.publish.draws.hardened`): a release takes no seed.
    extend
        With a data summary: the backend's second pass (``backend.extend``).

    Privacy
    -------
    ε-DP under add/remove-one: ε_θ = ρε on θ (SVT, recursive; 0 otherwise), ε_m = ε − ε_θ on
    the measurement, exactly as :func:`~dpsum_core.simulate.experiment.run_experiment` spends them for
    one trial (and checks that the ledger sums to ε). Every draw goes through ``noise``. What
    is returned is the noisy answers, the θ the threshold step released (or RawSum's θ*, a
    post-processing), and public parameters; everything else the run computed from the data
    (true answers, histogram, expected error) is discarded.
    """
    plan = plan_release(config, algorithm=algorithm, truncation=truncation, isotonic=isotonic)
    return release_plan(data, plan, noise=noise, extend=extend)


def summary_for(backend, plan: ReleasePlan, *, content: bool = False) -> DataSummary:
    """The data summary a release of ``plan`` starts from: ``backend``'s first pass at the
    plan's public cut points (bin edges, SVT grid, a fixed θ), as ``run`` computes it. Pass
    it to :func:`release_plan` with ``extend=backend.extend``. With ``content`` its report
    holds the data's content (what a ledger binds to), from the same pass.

    Privacy
    -------
    Private data (see :mod:`dpsum_core.data.summary`); the cut points are public.
    """
    return backend.summarize(run_cut_points(plan.config), content=content)


Extend = Callable[[DataSummary, MissingStatistics], DataSummary]


def release_plan(
    data: Statistics,
    plan: ReleasePlan,
    *,
    noise: OpenDPNoise | None = None,
    extend: Extend | None = None,
) -> Release:
    """:func:`release` of an already validated plan (the app confirms a plan, then releases it).

    ``data`` is a :class:`~dpsum_core.data.dataset.Dataset` or a
    :class:`~dpsum_core.data.summary.DataSummary` with ``extend`` the backend's second pass
    (``backend.extend``; see :func:`summary_for`); ``noise``: as in :func:`release`.

    Privacy
    -------
    See :func:`release`; a second pass never redraws anything (:class:`DrawOnce`).
    """
    return _release_with(data, plan, hardened(noise), extend)


def _release_with(data: Statistics, plan: ReleasePlan, noise: Noise,
                  extend: Extend | None) -> Release:
    """:func:`release_plan` drawing from ``noise`` as it is, unchecked: private, for the tests'
    spies and fixed sources and the unpublished simulated releases of :mod:`.planned`; every
    caller of the library goes through :func:`~dpsum_core.publish.draws.hardened`."""
    source = DrawOnce(noise)
    for _ in range(limits.SUMMARY_MAX_PASSES):
        source.rewind()
        try:
            run = run_experiment(data, plan.config, noise=source).runs[0]
            break
        except MissingStatistics as missing:
            if extend is None or not isinstance(data, DataSummary):
                raise
            data = extend(data, missing)  # type: ignore[assignment]
    else:
        raise ParameterError(
            f"this release needed more than {limits.SUMMARY_MAX_PASSES} extra passes over the "
            "data: use SVT or a fixed θ, or the in-memory engine"
        )
    source.check_used()
    answers = (run.answers_iso if plan.isotonic else run.answers)[0]
    theta = _released_theta(run.theta[0])
    config = plan.config
    shown = published(answers)
    bounds = release_intervals(
        plan.algorithm, config.domain, make_workload(config.workload, config.domain),
        theta=theta, epsilon=plan.epsilon, epsilon_measure=plan.epsilon_measure,
        raw=run.answers[0], published=shown, draws=source.outputs(),
    )  # fmt: skip
    assert bounds.lower_975 is not None and bounds.upper_975 is not None  # finish() sets them
    return Release(
        thresholds=make_workload(plan.config.workload, plan.config.domain).thresholds.copy(),
        private_answers=shown,
        theta=theta,
        budget={
            "epsilon_theta": plan.epsilon_theta,
            "epsilon_measure": plan.epsilon_measure,
            "total": plan.epsilon,
        },
        config=plan.record(),
        versions=versions(),
        created=_now(),
        noise_halfwidth=noise_halfwidth(plan, theta),
        id_column=data.report.id_column,
        column=data.column,
        intervals=Intervals(
            published_down(bounds.lower), published_up(bounds.upper), bounds.bias_bounded,
            bounds.method, published_down(bounds.lower_975), published_up(bounds.upper_975),
        ),
        gated=None if (gate := get(plan.algorithm).gated) is None else gate(run.answers[0]),
    )


def noise_halfwidth(plan: ReleasePlan, theta: float | list[float] | None) -> np.ndarray:
    """Half-width of the 95 % interval of each answer's noise, given the released θ.

    σ² is the algorithm's analytic noise variance (SPEC §6) at the released θ and ε_m, and the
    half-width is :data:`HALF_WIDTH_95` · σ, rounded to :data:`PUBLISHED_DIGITS` digits. The
    truncation bias is not included; isotonic regression, when applied, only brings answers
    closer to the truth (SPEC §5).

    Privacy
    -------
    Computed from public inputs only: the variance is evaluated on a placeholder dataset (one
    record, 0) over the public domain, with the released θ, so nothing private enters it (the
    variance of every algorithm depends on θ, ε_m, the workload and the domain alone).
    """
    alg = get(plan.algorithm)
    placeholder = make_dataset(np.zeros(1), upper=plan.config.upper, name="public")
    inputs = inputs_for(placeholder, plan.config)
    if theta is None:
        released = np.array([np.inf])
    elif isinstance(theta, list):
        released = np.asarray([theta], float)
    else:
        released = np.array([float(theta)])
    # An algorithm that locates θ itself takes its whole ε (ClampShells splits it inside).
    _, var = alg.error(inputs, released, plan.epsilon if alg.runs_once else plan.epsilon_measure)
    return published(HALF_WIDTH_95 * np.sqrt(np.asarray(var, float)[0]))


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _released_theta(theta: np.ndarray) -> float | list[float] | None:
    """θ of the one trial for JSON: ``None`` for ∞ (no truncation), a list for SQM's θ_i."""
    theta = np.asarray(theta, float)
    if np.all(np.isinf(theta)):
        return None
    if theta.ndim == 0:
        return float(published(theta))
    return [float(t) for t in published(theta)]


def versions() -> dict:
    """Versions of what made the release."""
    import scipy

    return {"dpsum": __version__, "python": platform.python_version(), "numpy": np.__version__,
            "scipy": scipy.__version__, "opendp": metadata.version("opendp")}  # fmt: skip
