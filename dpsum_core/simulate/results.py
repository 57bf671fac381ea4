"""What a run produced: per-(algorithm, truncation) runs, summaries, tidy frames, run.json.

The headline metric is defined here once and named the same everywhere (pages, CLI summary,
figure titles): for each query the mean relative error over trials, then the **median over
queries** by default (robust to a few tiny queries) or the mean over queries on request.
"""


from __future__ import annotations

import platform
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from dpsum_core import __version__
from dpsum_core.data.cleaning import unit_of_privacy
from dpsum_core.mechanisms.algorithm import RUNS_ONCE
from dpsum_core.mechanisms.registry import label as algorithm_label
from dpsum_core.mechanisms.registry import truncation as get_truncation
from dpsum_core.mechanisms.registry import truncation_label
from dpsum_core.mechanisms.workloads import Workload
from dpsum_core.simulate.budget import Budget, decimal
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.text import counted, number

Over = Literal["median", "mean"]
HEADLINE_OVER: Over = "median"


def headline_name(over: Over = HEADLINE_OVER) -> str:
    """The headline metric's short name, the same in tables, captions, axes and titles."""
    return f"{over} relative error"


def headline_definition(over: Over = HEADLINE_OVER) -> str:
    """One sentence defining the headline metric, for captions and help."""
    return (
        f"{headline_name(over).capitalize()}: for each query the mean over trials of "
        f"|ŷ − y| / max(y, δ), then the {over} over the queries."
    )


def headline(rel: np.ndarray, over: Over = HEADLINE_OVER) -> float:
    """The headline metric of one run from its relative errors (trials × m)."""
    per_query = np.asarray(rel).mean(axis=0)
    return float(np.median(per_query) if over == "median" else np.mean(per_query))


@dataclass(frozen=True, eq=False)
class Run:
    """Answers of one algorithm under one truncation method, for all trials."""

    algorithm: str
    truncation: str
    answers: np.ndarray  # (trials, m)
    answers_iso: np.ndarray  # (trials, m)
    theta: np.ndarray  # (trials,), or (trials, m) for SQM; θ* for a post-hoc algorithm
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

    def overview(self, queries: np.ndarray | None = None) -> pd.DataFrame:
        """One row per (algorithm, truncation): the headline metric with and without isotonic
        (``median_rel_error``, ``median_rel_error_iso``), the mean over queries too.

        ``queries``: a boolean mask selecting the queries the metrics are taken over (all by
        default)."""
        keep = slice(None) if queries is None else np.asarray(queries, bool)
        rows = []
        for r in self.runs:
            rel = self.relative_errors(r)[:, keep]
            rel_iso = self.relative_errors(r, iso=True)[:, keep]
            rows.append(
                {
                    "algorithm": r.algorithm,
                    "truncation": r.truncation,
                    "mean_rel_error": headline(rel, "mean"),
                    "mean_rel_error_iso": headline(rel_iso, "mean"),
                    # The headline: a few tiny queries (y < δ, or zeros weighted by the upper
                    # bin edge) can dominate the mean over queries; the median cannot.
                    "median_rel_error": headline(rel, "median"),
                    "median_rel_error_iso": headline(rel_iso, "median"),
                    "median_theta": float(np.median(r.theta)),
                    "epsilon_theta": decimal(r.budget.epsilon_theta),
                    "epsilon_measure": decimal(r.budget.epsilon_measure),
                    "epsilon_total": decimal(r.budget.total),
                    "seconds": r.seconds,
                }
            )
        return pd.DataFrame(rows)

    def inactive_truncation(self) -> dict[str, int]:
        """Truncation methods whose shared θ was ≥ U in most trials (truncation did nothing),
        with the number of such trials."""
        out = {}
        for r in self.runs:
            private = get_truncation(r.truncation).spends_rho  # θ chosen from the data
            if private and r.theta.ndim == 1 and r.truncation not in out:
                hits = int(np.sum(r.theta >= self.config.upper))
                if hits > r.theta.size / 2:
                    out[r.truncation] = hits
        return out

    def warnings(self) -> list[str]:
        """Plain-language warnings about this run (for the CLI's stderr and the app)."""
        lines = []
        for trunc, hits in self.inactive_truncation().items():
            what = "SVT" if trunc == "svt" else "the recursive mechanism"
            start = "--svt-s" if trunc == "svt" else "--rm-theta0"
            lines.append(
                f"truncation is inactive: {what} chose θ ≥ U = {number(self.config.upper)} in {hits} of "
                f"{counted(self.config.trials, 'trial')}, so values were not truncated; check that U fits "
                f"the column's unit, or lower the start ({start})"
            )
        cap = self.config.public_cap
        others = [a for a in self.config.algorithms if a != "clampshells"]
        if cap is not None and others:  # the cap is ClampShells' only: say so, never silently
            names = ", ".join(algorithm_label(a) for a in others)
            lines.append(
                f"the public cap ({number(cap)}) is used by ClampShells only: {names} "
                f"{'chooses' if len(others) == 1 else 'choose'} θ as without it"
            )
        return lines

    def run_info(self) -> dict:
        """The run.json record: config, seed, data, domain, budget, thresholds, timings."""
        import scipy

        return {
            "config": self.config.to_dict(),
            "truncation_params_in_force": self.config.truncation_params.resolved(
                self.config.upper
            ),
            "inactive_truncation": self.inactive_truncation(),
            "seed": self.config.seed,
            "dataset": {
                "name": self.dataset_name,
                "column": self.dataset_column,
                "id_column": self.cleaning.get("id_column"),
                "unit_of_privacy": unit_of_privacy(self.cleaning.get("id_column")),
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

def configuration_name(algorithm: str, truncation: str) -> str:
    """``TaMM with SVT``, ``SQM with no truncation``, ``RawSum (θ after measuring)``."""
    if truncation in RUNS_ONCE:
        return f"{algorithm_label(algorithm)} ({truncation_label(truncation)})"
    return f"{algorithm_label(algorithm)} with {truncation_label(truncation)}"


def percent(value: float) -> str:
    """A relative error as a percentage, the one convention of tables and sentences: three
    significant digits, whole percents with thousands separators from 1,000 % up (never an
    exponent), ``0 %`` for zero.

    >>> percent(0.05), percent(0.0), percent(0.40971), percent(1413.42006587), percent(1e-11)
    ('5 %', '0 %', '41 %', '141,342 %', 'below 0.0001 %')
    """
    shown = 100 * value
    if 0 < abs(shown) < 1e-4:  # three digits would need an exponent ("1e-09 %")
        return "below 0.0001 %" if shown > 0 else "above -0.0001 %"
    return f"{shown:,.0f} %" if abs(shown) >= 1000 else f"{shown:.3g} %"


def run_json(info: dict) -> str:
    """The run.json text of a :meth:`ExperimentResult.run_info` record: strict JSON (any
    parser reads it), so a θ of ∞ (no clamp: RawSum's θ* when it keeps every bin, no
    truncation) is written as ``null``, as release.json writes it; numpy values as numbers."""
    import json

    def plain(value):
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, list | tuple | np.ndarray):
            return [plain(v) for v in (value.tolist() if isinstance(value, np.ndarray) else value)]
        if isinstance(value, np.generic):
            value = value.item()
        if isinstance(value, float) and not np.isfinite(value):
            return None
        return value

    return json.dumps(plain(info), indent=2, allow_nan=False)
