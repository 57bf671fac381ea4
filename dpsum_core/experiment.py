"""ExperimentConfig → run_experiment → ExperimentResult, with summaries and tidy frames.

One root seed per experiment. Each (truncation, algorithm) pair draws from its own stream
``SeedSequence(seed, spawn_key=(truncation, stream))``, so results of one configuration do not
change when other algorithms are added or removed, and the same seed gives identical results.
"""

from __future__ import annotations

import json
import math
import platform
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields, replace

import numpy as np
import pandas as pd

from . import __version__, limits
from .data import Dataset, Domain, histogram
from .errors import ParameterError
from .expected import error_components, expected_squared_error
from .mechanisms import ALGORITHMS, BATCH, BATCH_ALGORITHMS, sqm
from .postprocess import isotonic
from .thresholds import TRUNCATION_METHODS, ThresholdChoice, TruncationParams, choose_theta
from .validation import check_epsilon, check_int, check_positive, check_rho
from .workloads import Workload, make_workload

_THETA_STREAM = 0
_SQM_THETA_STREAM = len(ALGORITHMS) + 1


@dataclass(frozen=True)
class ExperimentConfig:
    """Everything that determines a run, except the data. Round-trips through JSON.

    Defaults are the paper's: U = 800 000, n = 1000, ε = 0.01, ρ = 0.1, 100 trials, δ = 100.
    """

    workload: str = "Q1"
    epsilon: float = 0.01
    rho: float = 0.1
    truncations: tuple[str, ...] = ("svt",)
    algorithms: tuple[str, ...] = ALGORITHMS
    trials: int = 100
    delta: float = 100.0
    seed: int = 0
    upper: float = 800_000.0
    bins: int = 1000
    weights: str = "upper"
    truncation_params: TruncationParams = field(default_factory=TruncationParams)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "epsilon", check_epsilon(self.epsilon))
        set_(self, "rho", check_rho(self.rho))
        set_(self, "trials", check_int(self.trials, "trials", low=1, high=limits.MAX_TRIALS))
        set_(self, "delta", check_positive(self.delta, "delta"))
        set_(self, "seed", check_int(self.seed, "seed", low=0, high=2**63 - 1))
        set_(self, "truncations", _subset(self.truncations, TRUNCATION_METHODS, "truncation"))
        set_(self, "algorithms", _subset(self.algorithms, ALGORITHMS, "algorithm"))
        if isinstance(self.truncation_params, dict):
            set_(self, "truncation_params", TruncationParams(**self.truncation_params))
        if "fixed" in self.truncations and self.truncation_params.theta is None:
            raise ParameterError(
                "truncation 'fixed' needs a threshold θ: set theta (e.g. --theta 100000)"
            )
        self.domain  # validates U, n and the weight rule  # noqa: B018
        if "svt" in self.truncations:
            self.truncation_params.check_svt_grid(self.upper)

    @property
    def domain(self) -> Domain:
        """The public domain."""
        return Domain(self.upper, self.bins, self.weights)

    def to_dict(self) -> dict:
        """Plain dict (lists for tuples) for JSON."""
        out = asdict(self)
        out["truncations"] = list(self.truncations)
        out["algorithms"] = list(self.algorithms)
        return out

    def to_json(self) -> str:
        """JSON text; :meth:`from_json` restores an equal config."""
        return json.dumps(self.to_dict(), indent=2, sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict) -> ExperimentConfig:
        """Build from a dict, rejecting unknown keys with a clear message."""
        if not isinstance(data, dict):
            raise ParameterError("a configuration must be a JSON object")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ParameterError(f"unknown configuration key(s): {', '.join(unknown)}")
        data = dict(data)
        tp = data.get("truncation_params")
        if tp is not None:
            if not isinstance(tp, dict):
                raise ParameterError("truncation_params must be an object")
            tknown = {f.name for f in fields(TruncationParams)}
            bad = sorted(set(tp) - tknown)
            if bad:
                raise ParameterError(f"unknown truncation parameter(s): {', '.join(bad)}")
            data["truncation_params"] = TruncationParams(**tp)
        for key in ("truncations", "algorithms"):
            if key in data:
                value = data[key]
                data[key] = tuple(value.split(",")) if isinstance(value, str) else tuple(value)
        try:
            return cls(**data)
        except TypeError as exc:
            raise ParameterError(f"invalid configuration: {exc}") from None

    @classmethod
    def from_json(cls, text: str | bytes) -> ExperimentConfig:
        """Parse JSON text produced by :meth:`to_json`."""
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ParameterError(
                f"the configuration is not valid JSON ({exc.msg if hasattr(exc, 'msg') else exc})"
            ) from None
        return cls.from_dict(data)

    def with_(self, **changes) -> ExperimentConfig:
        """A copy with some fields changed (validated again)."""
        return replace(self, **changes)


def _subset(values, allowed: tuple[str, ...], name: str) -> tuple[str, ...]:
    if isinstance(values, str):
        values = values.split(",")
    items = tuple(str(v).strip().lower() for v in values if str(v).strip())
    if not items:
        raise ParameterError(f"choose at least one {name} ({', '.join(allowed)})")
    bad = [v for v in items if v not in allowed]
    if bad:
        raise ParameterError(f"unknown {name} {bad[0]!r}: choose from {', '.join(allowed)}")
    # Canonical order, no duplicates: results do not depend on how the list was typed.
    return tuple(v for v in allowed if v in items)


@dataclass(frozen=True)
class Budget:
    """Privacy ledger of one (algorithm, truncation): ε_θ + ε_m = ε."""

    algorithm: str
    truncation: str
    epsilon_theta: float
    epsilon_measure: float

    @property
    def total(self) -> float:
        """ε_θ + ε_m."""
        return self.epsilon_theta + self.epsilon_measure

    def as_dict(self) -> dict:
        """Plain dict with the total."""
        return {**asdict(self), "total": self.total}


@dataclass(frozen=True, eq=False)
class Run:
    """Answers of one algorithm under one truncation method, for all trials."""

    algorithm: str
    truncation: str
    answers: np.ndarray  # (trials, m)
    answers_iso: np.ndarray  # (trials, m)
    theta: np.ndarray  # (trials,) or (trials, m) for SQM
    budget: Budget
    expected_mse: np.ndarray  # (m,)
    seconds: float
    fallbacks: int = 0


@dataclass(frozen=True, eq=False)
class ExperimentResult:
    """Everything a run produced; summaries and frames are derived on demand."""

    config: ExperimentConfig
    dataset_name: str
    dataset_column: str
    cleaning: dict
    workload: Workload
    true_answers: np.ndarray
    binned_answers: np.ndarray
    runs: tuple[Run, ...]
    seconds: float

    def run(self, algorithm: str, truncation: str) -> Run:
        """The run of one configuration."""
        for r in self.runs:
            if r.algorithm == algorithm and r.truncation == truncation:
                return r
        raise KeyError((algorithm, truncation))

    def relative_errors(self, run: Run, *, iso: bool = False) -> np.ndarray:
        """|ŷ − y| / max(y, δ) per trial and query."""
        answers = run.answers_iso if iso else run.answers
        y = self.true_answers
        return np.abs(answers - y[None, :]) / np.maximum(y, self.config.delta)[None, :]

    def summary(self) -> pd.DataFrame:
        """Per algorithm, truncation and query: means and 5th/95th percentiles (summary.csv)."""
        frames = []
        m = self.workload.size
        for r in self.runs:
            rel = self.relative_errors(r)
            rel_iso = self.relative_errors(r, iso=True)
            a5, a95 = np.percentile(r.answers, [5, 95], axis=0)
            i5, i95 = np.percentile(r.answers_iso, [5, 95], axis=0)
            e5, e95 = np.percentile(rel, [5, 95], axis=0)
            f5, f95 = np.percentile(rel_iso, [5, 95], axis=0)
            frames.append(
                pd.DataFrame(
                    {
                        "algorithm": r.algorithm,
                        "truncation": r.truncation,
                        "query": np.arange(m),
                        "threshold": self.workload.thresholds,
                        "true_answer": self.true_answers,
                        "binned_answer": self.binned_answers,
                        "mean_answer": r.answers.mean(axis=0),
                        "p5_answer": a5,
                        "p95_answer": a95,
                        "mean_rel_error": rel.mean(axis=0),
                        "p5_rel_error": e5,
                        "p95_rel_error": e95,
                        "mean_rel_error_iso": rel_iso.mean(axis=0),
                        "p5_rel_error_iso": f5,
                        "p95_rel_error_iso": f95,
                        "expected_rmse": np.sqrt(r.expected_mse),
                        "mean_answer_iso": r.answers_iso.mean(axis=0),
                        "p5_answer_iso": i5,
                        "p95_answer_iso": i95,
                    }
                )
            )
        return pd.concat(frames, ignore_index=True)

    def answers_frame(self) -> pd.DataFrame:
        """Every trial's answers, long format (answers.csv)."""
        frames = []
        T, m = self.config.trials, self.workload.size
        for r in self.runs:
            theta = r.theta if r.theta.ndim == 2 else np.broadcast_to(r.theta[:, None], (T, m))
            frames.append(
                pd.DataFrame(
                    {
                        "algorithm": r.algorithm,
                        "truncation": r.truncation,
                        "trial": np.repeat(np.arange(T), m),
                        "query": np.tile(np.arange(m), T),
                        "threshold": np.tile(self.workload.thresholds, T),
                        "true_answer": np.tile(self.true_answers, T),
                        "noisy_answer": r.answers.ravel(),
                        "noisy_answer_iso": r.answers_iso.ravel(),
                        "theta": theta.ravel(),
                    }
                )
            )
        return pd.concat(frames, ignore_index=True)

    def overview(self) -> pd.DataFrame:
        """One row per (algorithm, truncation): mean relative error with/without isotonic."""
        rows = []
        for r in self.runs:
            rows.append(
                {
                    "algorithm": r.algorithm,
                    "truncation": r.truncation,
                    "mean_rel_error": float(self.relative_errors(r).mean()),
                    "mean_rel_error_iso": float(self.relative_errors(r, iso=True).mean()),
                    # Robust headline: a few tiny queries (y < δ, or zeros weighted by the
                    # upper bin edge) can dominate the mean over queries; the median cannot.
                    "median_rel_error": float(np.median(self.relative_errors(r).mean(axis=0))),
                    "median_rel_error_iso": float(
                        np.median(self.relative_errors(r, iso=True).mean(axis=0))
                    ),
                    "median_theta": float(np.median(r.theta)),
                    "epsilon_theta": r.budget.epsilon_theta,
                    "epsilon_measure": r.budget.epsilon_measure,
                    "epsilon_total": r.budget.total,
                    "seconds": r.seconds,
                }
            )
        return pd.DataFrame(rows)

    def run_info(self) -> dict:
        """The run.json record: config, seed, data, domain, budget, thresholds, timings."""
        import scipy

        return {
            "config": self.config.to_dict(),
            "seed": self.config.seed,
            "dataset": {
                "name": self.dataset_name,
                "column": self.dataset_column,
                "cleaning": self.cleaning,
            },
            "domain": self.config.domain.as_dict(),
            "workload": {
                "spec": self.workload.spec,
                "queries": self.workload.size,
                "snapped": [list(p) for p in self.workload.snapped],
            },
            "budget": [r.budget.as_dict() for r in self.runs],
            "thresholds": {
                f"{r.algorithm}/{r.truncation}": (
                    r.theta.tolist()
                    if r.theta.ndim == 1
                    else {"median_per_trial": np.median(r.theta, axis=1).tolist()}
                )
                for r in self.runs
            },
            "svt_fallbacks": {f"{r.algorithm}/{r.truncation}": r.fallbacks for r in self.runs},
            "timings": {
                "total_seconds": self.seconds,
                **{f"{r.algorithm}/{r.truncation}": r.seconds for r in self.runs},
            },
            "versions": {
                "dpsum": __version__,
                "python": platform.python_version(),
                "numpy": np.__version__,
                "scipy": scipy.__version__,
                "pandas": pd.__version__,
            },
        }


def budget_split(epsilon: float, rho: float, truncation: str) -> tuple[float, float]:
    """(ε_θ, ε_m): ε_θ = ρ·ε when θ is chosen from the data (``svt``, ``recursive``), else 0;
    ε_m = ε − ε_θ. The ledger of every algorithm is ε_θ + ε_m = ε."""
    eps_theta = rho * epsilon if truncation in ("svt", "recursive") else 0.0
    return eps_theta, epsilon - eps_theta


def check_run_size(config: ExperimentConfig, workload: Workload) -> None:
    """Refuse a run that would keep more than ``limits.MAX_ANSWERS`` noisy answers in memory."""
    runs = len(config.algorithms) * len(config.truncations)
    answers = config.trials * workload.size * runs
    if answers > limits.MAX_ANSWERS:
        fits = max(1, limits.MAX_ANSWERS // (workload.size * runs))
        raise ParameterError(
            f"this run would keep {answers:,} noisy answers (trials × queries × algorithms × "
            f"truncation methods), about {answers * 16 / 1e9:.1f} GB: use at most {fits:,} "
            "trials with this workload, or fewer queries (e.g. Q2/Q3)"
        )


def stream(seed: int, truncation: str, index: int) -> np.random.Generator:
    """The random stream of one (truncation, purpose) pair under a root seed."""
    key = (TRUNCATION_METHODS.index(truncation), index)
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=key))


def run_experiment(
    data: Dataset,
    config: ExperimentConfig,
    *,
    progress: Callable[[float, str], None] | None = None,
) -> ExperimentResult:
    """Run every (truncation, algorithm) of ``config`` on ``data`` for ``config.trials`` trials.

    Parameters
    ----------
    data
        Cleaned values; must have been cleaned with the same U as ``config.upper``.
    progress
        Optional callback ``progress(fraction_done, message)``.

    Privacy
    -------
    Per algorithm: ε_θ = ρ·ε for ``svt``/``recursive`` (0 for ``none``/``fixed``), ε_m = ε − ε_θ.
    The four batch algorithms share one θ per trial (one θ release is reused, as in the paper's
    experiments where each algorithm is a separate release); SQM spends ε_θ/m and ε_m/m per
    query. True answers are computed for evaluation only: this is a tool for people allowed to
    see the data, not a publication channel.
    """
    if not math.isclose(data.upper, config.upper):
        raise ParameterError(
            f"the data was cleaned with U = {data.upper:g} but the configuration uses "
            f"U = {config.upper:g}: reload the data with the new upper bound"
        )
    start = time.perf_counter()
    domain = config.domain
    workload = make_workload(config.workload, domain)
    check_run_size(config, workload)
    x = histogram(data, domain)
    y = data.sum_at_most(workload.thresholds)
    y_bin = workload.prefix(domain.bin_weights * x)
    runs: list[Run] = []
    steps = len(config.truncations) * len(config.algorithms)
    done = 0
    for trunc in config.truncations:
        eps_theta, eps_m = budget_split(config.epsilon, config.rho, trunc)
        shared: ThresholdChoice | None = None
        for alg in config.algorithms:
            t0 = time.perf_counter()
            if progress:
                progress(done / steps, f"{alg} with {trunc} truncation")
            rng = stream(config.seed, trunc, ALGORITHMS.index(alg) + 1)
            if alg in BATCH_ALGORITHMS:
                if shared is None:
                    shared = choose_theta(
                        data,
                        trunc,
                        epsilon=eps_theta,
                        upper=domain.upper,
                        params=config.truncation_params,
                        trials=config.trials,
                        rng=stream(config.seed, trunc, _THETA_STREAM),
                    )
                choice = shared
                answers = BATCH[alg](x, workload, domain, choice.theta, epsilon=eps_m, rng=rng)
            else:
                m = workload.size
                choice = choose_theta(
                    data,
                    trunc,
                    epsilon=eps_theta / m,
                    upper=domain.upper,
                    params=config.truncation_params,
                    trials=config.trials,
                    rng=stream(config.seed, trunc, _SQM_THETA_STREAM),
                    tau=workload.thresholds,
                )
                answers = sqm(data, workload, choice.theta, epsilon_measure=eps_m, rng=rng)
            mse = expected_squared_error(
                alg,
                data=data,
                x=x,
                workload=workload,
                domain=domain,
                theta=choice.theta,
                epsilon_measure=eps_m,
                true_answers=y,
            )
            runs.append(
                Run(
                    algorithm=alg,
                    truncation=trunc,
                    answers=answers,
                    answers_iso=isotonic(answers),
                    theta=choice.theta,
                    budget=Budget(alg, trunc, eps_theta, eps_m),
                    expected_mse=mse,
                    seconds=time.perf_counter() - t0,
                    fallbacks=choice.fallbacks,
                )
            )
            done += 1
    if progress:
        progress(1.0, "done")
    return ExperimentResult(
        config=config,
        dataset_name=data.name,
        dataset_column=data.column,
        cleaning=data.report.as_dict(),
        workload=workload,
        true_answers=y,
        binned_answers=y_bin,
        runs=tuple(runs),
        seconds=time.perf_counter() - start,
    )


def threshold_samples(data: Dataset, config: ExperimentConfig, truncation: str) -> np.ndarray:
    """The θ each trial of ``config`` draws for the batch algorithms under ``truncation``.

    Uses the same random stream as :func:`run_experiment`, so these are exactly the θ values
    of the corresponding run.
    """
    choice = choose_theta(
        data,
        truncation,
        epsilon=budget_split(config.epsilon, config.rho, truncation)[0],
        upper=config.upper,
        params=config.truncation_params,
        trials=config.trials,
        rng=stream(config.seed, truncation, _THETA_STREAM),
    )
    return choice.theta


def theta_error_components(
    data: Dataset,
    config: ExperimentConfig,
    *,
    thetas: np.ndarray,
    private_theta: bool = True,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Squared bias and variance of every query of the workload at each θ, per algorithm.

    Parameters
    ----------
    thetas
        θ grid to evaluate (k values).
    private_theta
        If true the measurement budget is ε_m = (1−ρ)ε, as when θ is chosen privately;
        otherwise ε_m = ε (a fixed, public θ).

    Returns
    -------
    dict
        ``{algorithm: (bias2, variance)}``, each array of shape (k, m). Deterministic: no noise
        is drawn.
    """
    domain = config.domain
    workload = make_workload(config.workload, domain)
    x = histogram(data, domain)
    y = data.sum_at_most(workload.thresholds)
    _, eps_m = budget_split(config.epsilon, config.rho, "svt" if private_theta else "fixed")
    thetas = np.asarray(thetas, float)
    return {
        alg: error_components(
            alg,
            data=data,
            x=x,
            workload=workload,
            domain=domain,
            theta=thetas,
            epsilon_measure=eps_m,
            true_answers=y,
        )
        for alg in config.algorithms
    }


def theta_curves(
    data: Dataset,
    config: ExperimentConfig,
    *,
    query: int,
    thetas: np.ndarray,
    private_theta: bool = True,
) -> pd.DataFrame:
    """Squared bias, variance and expected squared error of one query as θ varies.

    See :func:`theta_error_components`; ``query`` indexes the configured workload.

    Returns
    -------
    pandas.DataFrame
        Columns algorithm, theta, bias2, variance, total (one row per algorithm and θ).
    """
    m = make_workload(config.workload, config.domain).size
    if not 0 <= query < m:
        raise ParameterError(f"query must be between 0 and {m - 1}, got {query}")
    parts = theta_error_components(data, config, thetas=thetas, private_theta=private_theta)
    return components_frame(parts, thetas, query)


def components_frame(
    parts: dict[str, tuple[np.ndarray, np.ndarray]], thetas: np.ndarray, query: int
) -> pd.DataFrame:
    """One query's slice of :func:`theta_error_components`: algorithm, theta, bias2, variance,
    total (one row per algorithm and θ)."""
    thetas = np.asarray(thetas, float)
    return pd.concat(
        [
            pd.DataFrame(
                {
                    "algorithm": alg,
                    "theta": thetas,
                    "bias2": b2[:, query],
                    "variance": var[:, query],
                    "total": b2[:, query] + var[:, query],
                }
            )
            for alg, (b2, var) in parts.items()
        ],
        ignore_index=True,
    )


def epsilon_sweep(
    data: Dataset,
    config: ExperimentConfig,
    epsilons: list[float] | np.ndarray,
    *,
    progress: Callable[[float, str], None] | None = None,
) -> pd.DataFrame:
    """Mean relative error (without and with isotonic) of every configuration at each ε.

    Returns
    -------
    pandas.DataFrame
        Columns epsilon, algorithm, truncation, mean_rel_error, mean_rel_error_iso,
        median_rel_error, median_rel_error_iso (median over queries of the per-query mean).
    """
    rows = []
    eps_list = [float(e) for e in epsilons]
    for i, eps in enumerate(eps_list):
        if progress:
            progress(i / len(eps_list), f"ε = {eps:g}")
        result = run_experiment(data, config.with_(epsilon=eps))
        frame = result.overview()[
            [
                "algorithm",
                "truncation",
                "mean_rel_error",
                "mean_rel_error_iso",
                "median_rel_error",
                "median_rel_error_iso",
            ]
        ]
        rows.append(frame.assign(epsilon=eps))
    if progress:
        progress(1.0, "done")
    return pd.concat(rows, ignore_index=True)
