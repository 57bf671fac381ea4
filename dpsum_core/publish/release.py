"""Publishing: plan → inspect → release, one trial of one algorithm with OpenDP's samplers.

:func:`plan_release` fixes what will be released (algorithm, truncation, budget split) from
public inputs only; :func:`expected_error` shows the custodian, before anything is drawn,
how far the answers are expected to land from the truth; :func:`release` draws once and
returns a :class:`Release`, whose :meth:`~Release.record` and :meth:`~Release.answers_frame`
are the only things :func:`write_release` writes. The mechanisms are the engine's own
(:func:`dpsum_core.simulate.experiment.run_experiment` with an injected noise source), so a release is
exactly one trial of what the explorer simulates.

Truncation of post-hoc algorithms (RawSum): θ* is chosen after measuring, as
post-processing, and spends nothing on θ, so there is no truncation method to choose: the
release records the truncation ``posthoc`` and refuses any other (``none``, ``svt``, …),
rather than silently ignoring it. Every other algorithm needs one of ``none``, ``fixed``,
``svt``, ``recursive``.
"""


from __future__ import annotations

import json
import platform
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd

from dpsum_core import __version__
from dpsum_core.data.dataset import Statistics
from dpsum_core.errors import ParameterError
from dpsum_core.mechanisms.algorithm import INSIDE, POSTHOC
from dpsum_core.mechanisms.registry import get
from dpsum_core.mechanisms.workloads import make_workload
from dpsum_core.noise import Noise, OpenDPNoise, SimulatedNoise
from dpsum_core.simulate.budget import budget_split
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import inputs_for, run_experiment, threshold_choice
from dpsum_core.truncation.registry import TRUNCATION_METHODS

# The expected error averages the analytic error given θ over θ's distribution, estimated by
# simulating the threshold step (numpy, a fixed seed, so the estimate does not move between
# reruns) ESTIMATE_TRIALS times and evaluating it at ESTIMATE_POINTS equal-probability points.
ESTIMATE_TRIALS = 400
ESTIMATE_POINTS = 25
ESTIMATE_SEED = 0
RELEASE_FILES = ("answers.csv", "release.json")
# Simulation settings of an ExperimentConfig that a release does not use and does not record.
_NOT_RECORDED = ("seed", "trials", "delta", "algorithms", "truncations")


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
    """

    config: ExperimentConfig
    algorithm: str
    truncation: str
    isotonic: bool
    epsilon_theta: float
    epsilon_measure: float

    @property
    def epsilon(self) -> float:
        """The total ε of the release."""
        return self.config.epsilon

    def record(self) -> dict:
        """The configuration as release.json and the ledger record it (public parameters only:
        the seed, the trial count and the simulation's δ are not part of a release)."""
        out = {k: v for k, v in self.config.to_dict().items() if k not in _NOT_RECORDED}
        out["truncation_params"] = self.config.truncation_params.resolved(self.config.upper)
        return {
            "algorithm": self.algorithm,
            "truncation": self.truncation,
            "isotonic": self.isotonic,
            **out,
        }

    def ledger_entry(self, data_name: str) -> dict:
        """What the custodian's ledger keeps of this release (recorded before any draw)."""
        return {
            "created": _now(),
            "epsilon": self.epsilon,
            "algorithm": self.algorithm,
            "truncation": self.truncation,
            "data": data_name,
            "config": self.record(),
        }


def plan_release(
    config: ExperimentConfig, *, algorithm: str, truncation: str | None, isotonic: bool = True
) -> ReleasePlan:
    """Validate one algorithm and one truncation method for a release of ``config``.

    ``truncation`` is ``None`` or ``posthoc`` for a post-hoc algorithm (RawSum) and one of
    none, fixed, svt, recursive for every other.

    Raises
    ------
    ParameterError
        An algorithm or truncation dpsum does not offer, or one that does not fit the other.
    """
    alg = get(str(algorithm).strip().lower())
    trunc = None if truncation is None else str(truncation).strip().lower()
    if alg.runs_once:
        own = alg.theta_rule  # posthoc (RawSum) or inside (ClampShells)
        if trunc not in (None, own):
            how = (
                "after measuring (post-processing, no budget on θ)"
                if alg.posthoc
                else f"itself, with {alg.theta_share:.0%} of ε"
            )
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
    one = config.with_(truncations=(engine_trunc,), algorithms=(alg.name,), trials=1)
    eps_theta, eps_m = budget_split(one.epsilon, one.rho, trunc)
    if alg.theta_share:  # θ located inside the mechanism with its own share (ClampShells)
        eps_theta, eps_m = alg.theta_share * one.epsilon, (1 - alg.theta_share) * one.epsilon
    return ReleasePlan(one, alg.name, trunc, bool(isotonic), eps_theta, eps_m)


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

    Privacy
    -------
    Computed from the private data without noise (the bias is a function of the data): for the
    custodian's confirmation step only, never written to a release or a ledger. Not isotonic:
    isotonic regression only brings answers closer to the truth (SPEC §5).
    """

    thresholds: np.ndarray
    rmse: np.ndarray
    noise_sd: np.ndarray

    def frame(self) -> pd.DataFrame:
        """Columns threshold, expected_rmse, noise_sd."""
        return pd.DataFrame(
            {"threshold": self.thresholds, "expected_rmse": self.rmse, "noise_sd": self.noise_sd}
        )


def expected_error(data: Statistics, plan: ReleasePlan) -> ReleaseEstimate:
    """The analytic expected error of what ``plan`` will release, before any noise is drawn.

    The error given θ is analytic (SPEC §6). A fixed θ or no truncation is one θ; a θ chosen
    by SVT, the recursive mechanism or RawSum's scan is random, and its distribution is
    estimated by simulating that step with numpy (fixed seed, :data:`ESTIMATE_TRIALS` times).

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
    theta: np.ndarray
    # An algorithm that chooses θ itself gets its whole ε (it splits it internally).
    eps_m = plan.epsilon if alg.runs_once else plan.epsilon_measure
    if alg.runs_once:
        trials = np.zeros(ESTIMATE_TRIALS)
        measured = alg.run(inputs, trials, epsilon=eps_m, rng=rng)
        theta = np.asarray(measured.theta, float)
    else:
        theta = threshold_choice(alg.theta_rule, data, config, trunc, inputs.workload).theta
    if theta.ndim == 1:  # equal-probability points of θ's distribution (TaMM: one GreedyH each)
        probs = (np.arange(ESTIMATE_POINTS) + 0.5) / ESTIMATE_POINTS
        theta = np.quantile(theta, probs, method="inverted_cdf")
    bias2, var = alg.error(inputs, theta, eps_m)
    return ReleaseEstimate(
        inputs.workload.thresholds.copy(),
        np.sqrt(np.mean(bias2 + var, axis=0)),
        np.sqrt(np.mean(var, axis=0)),
    )


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

    Privacy
    -------
    Never holds the true answers, N, the cleaning counts or the histogram.
    """

    thresholds: np.ndarray
    private_answers: np.ndarray
    theta: float | list[float] | None
    budget: dict
    config: dict
    versions: dict
    created: str

    def answers_frame(self) -> pd.DataFrame:
        """answers.csv: columns threshold, private_answer (one row per query)."""
        return pd.DataFrame({"threshold": self.thresholds, "private_answer": self.private_answers})

    def record(self) -> dict:
        """release.json: config, budget, theta, versions, created."""
        return {
            "config": self.config,
            "budget": self.budget,
            "theta": self.theta,
            "versions": self.versions,
            "created": self.created,
        }


def hardened(noise: Noise | None = None) -> Noise:
    """The noise source of a release: OpenDP's by default, never numpy's.

    Raises
    ------
    ParameterError
        For a numpy Generator or :class:`~dpsum_core.noise.SimulatedNoise`: a release takes no
        seed and does not use numpy's (unhardened, reproducible) sampler.
    """
    if noise is None:
        return OpenDPNoise()
    if isinstance(noise, (np.random.Generator, SimulatedNoise)) or not isinstance(noise, Noise):
        raise ParameterError(
            "a release takes no seed and no numpy generator: its noise comes from OpenDP's "
            "samplers and the operating system's entropy (seeded simulations are for run)"
        )
    return noise


def release(
    data: Statistics,
    config: ExperimentConfig,
    *,
    algorithm: str,
    truncation: str | None,
    isotonic: bool = True,
    noise: Noise | None = None,
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
        The noise source, :class:`~dpsum_core.noise.OpenDPNoise` by default (tests pass a
        wrapper around it); seeded numpy noise is refused (:func:`hardened`).

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
    return release_plan(data, plan, noise=noise)


def release_plan(data: Statistics, plan: ReleasePlan, *, noise: Noise | None = None) -> Release:
    """:func:`release` of an already validated plan (the app confirms a plan, then releases it).

    Privacy
    -------
    See :func:`release`.
    """
    source = hardened(noise)
    run = run_experiment(data, plan.config, noise=source).runs[0]
    answers = (run.answers_iso if plan.isotonic else run.answers)[0]
    budget = run.budget.as_dict()
    return Release(
        thresholds=make_workload(plan.config.workload, plan.config.domain).thresholds.copy(),
        private_answers=np.asarray(answers, float).copy(),
        theta=_released_theta(run.theta[0]),
        budget={k: budget[k] for k in ("epsilon_theta", "epsilon_measure", "total")},
        config=plan.record(),
        versions=versions(),
        created=_now(),
    )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _released_theta(theta: np.ndarray) -> float | list[float] | None:
    """θ of the one trial for JSON: ``None`` for ∞ (no truncation), a list for SQM's θ_i."""
    theta = np.asarray(theta, float)
    if np.all(np.isinf(theta)):
        return None
    if theta.ndim == 0:
        return float(theta)
    return [float(t) for t in theta]


def versions() -> dict:
    """Versions of what made the release."""
    import scipy

    return {
        "dpsum": __version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "opendp": metadata.version("opendp"),
    }


def release_paths(out: str | Path) -> list[Path]:
    """``out/answers.csv`` and ``out/release.json``; ParameterError if either exists (an
    earlier release is never overwritten: check this before drawing anything)."""
    out = Path(out)
    paths = [out / name for name in RELEASE_FILES]
    taken = [p.name for p in paths if p.exists()]
    if taken:
        raise ParameterError(
            f"{out} already holds a release ({', '.join(taken)}): choose another folder"
        )
    return paths


def write_release(rel: Release, out: str | Path) -> list[Path]:
    """Write ``answers.csv`` and ``release.json`` into the folder ``out`` and nothing else.

    Privacy
    -------
    Writes only :meth:`Release.answers_frame` and :meth:`Release.record`.
    """
    answers, record = release_paths(out)
    answers.write_text(rel.answers_frame().to_csv(index=False))
    record.write_text(json.dumps(rel.record(), indent=2, allow_nan=False) + "\n")
    return [answers, record]
