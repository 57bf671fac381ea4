"""Naive reference: a straightforward port of the paper's pipeline, run side by side with the engine.

Per-record Python loops for ingest and binning, per-trial Python loops for every algorithm, dense
matrices, ``np.linalg.pinv``, and GreedyH rebuilt in every trial by a dense recursion on the Gram
matrix — the way a direct port of the paper's code works. The noiseless statistics that do not
depend on a trial (counts at public points, crossover indices) are computed once, as such a port
would. It consumes exactly the noise the engine drew (recorded by :func:`record_noise`), so its
answers must equal the engine's to 1e-6 relative; :func:`compare_runs` checks that.
"""

from __future__ import annotations

import bisect
import contextlib
import csv
import math
from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from dpsum_core.mechanisms.registry import get
from dpsum_core.mechanisms.workloads import make_workload
from dpsum_core.simulate import experiment
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.streams import SQM_THETA_STREAM as _SQM_THETA_STREAM
from dpsum_core.simulate.streams import THETA_STREAM as _THETA_STREAM
from tests.core.greedy_reference import greedy_h_dense


# --------------------------------------------------------------------------------------------
# Ingest, cleaning and histogram, one record at a time
# --------------------------------------------------------------------------------------------
def _clean_cells(cells, upper: float) -> tuple[list[float], dict[str, int]]:
    """SPEC §0 cleaning of an iterable of cells (str, number or None), record by record."""
    report = dict.fromkeys(
        (
            "rows_read",
            "dropped_missing",
            "dropped_non_numeric",
            "dropped_non_finite",
            "clipped_below_zero",
            "clipped_above_upper",
        ),
        0,
    )
    values = []
    for cell in cells:
        report["rows_read"] += 1
        if cell is None or (isinstance(cell, str) and not cell.strip()):
            report["dropped_missing"] += 1
            continue
        try:
            t = float(cell)
        except ValueError:
            report["dropped_non_numeric"] += 1
            continue
        if math.isnan(t):
            report["dropped_missing"] += 1
            continue
        if math.isinf(t):
            report["dropped_non_finite"] += 1
            continue
        if t < 0:
            t, report["clipped_below_zero"] = 0.0, report["clipped_below_zero"] + 1
        elif t > upper:
            t, report["clipped_above_upper"] = upper, report["clipped_above_upper"] + 1
        values.append(t)
    values.sort()
    return values, report


def load_csv(path, *, upper: float) -> tuple[list[float], dict[str, int]]:
    """Read the first column of a CSV with the csv module and clean it cell by cell."""
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        next(reader)  # header
        return _clean_cells((row[0] if row else None for row in reader), upper)


def load_parquet(path, *, upper: float) -> tuple[list[float], dict[str, int]]:
    """Read the first column of a Parquet file into Python objects and clean them one by one."""
    import pyarrow.parquet as pq

    return _clean_cells(pq.read_table(path).column(0).to_pylist(), upper)


def histogram(values: list[float], edges: list[float]) -> np.ndarray:
    """x_j = #records in (e_{j-1}, e_j], 0 in bin 1: one binary search per record."""
    counts = [0] * len(edges)
    last = len(edges) - 1
    for t in values:
        counts[min(bisect.bisect_left(edges, t), last)] += 1
    return np.asarray(counts, float)


# --------------------------------------------------------------------------------------------
# GreedyH: the dense recursion on the Gram matrix (SPEC §4, written out literally)
# --------------------------------------------------------------------------------------------
def greedy_h(gram: np.ndarray, *, branch: int = 2, granularity: int = 100):
    """Rows [(start, end, weight)] sorted by (start, end), and (AᵀA)⁻¹ as a dense matrix: the
    tests' dense reference (tests/core/greedy_reference.py, one reference for tests and bench)."""
    rows, inv = greedy_h_dense(gram, branch, granularity)
    return sorted(rows, key=lambda r: (r[0], r[1])), inv


def pinv(A: np.ndarray) -> np.ndarray:
    """Moore–Penrose pseudo-inverse, singular values below max(rows, cols)·eps·σ_max dropped.

    numpy's default cut-off (rcond = 1e-15·σ_max) is too small for GreedyH strategies with
    collapsed cells: A is then rank-deficient, its "zero" singular values come out near 5e-15
    and are inverted, and the answers are wrong by up to ~50% (TaMM on Q2). The LAPACK-style
    tolerance removes them; W·A⁺·A = W then holds (SPEC §3).
    """
    return np.linalg.pinv(A, rtol=max(A.shape) * np.finfo(float).eps)


def strategy_matrix(rows, n: int) -> np.ndarray:
    """Dense A from (start, end, weight) rows."""
    A = np.zeros((len(rows), n))
    for r, (lo, hi, w) in enumerate(rows):
        A[r, lo:hi] = w
    return A


# --------------------------------------------------------------------------------------------
# The engine's noise, recorded (standard Laplace draws per random stream, in draw order)
# --------------------------------------------------------------------------------------------
class _RecordingGenerator:
    """Stands in for the engine's Generator: same draws, each one's standard value recorded.

    ``laplace(loc, scale)`` is returned as ``loc + scale·L`` with L a standard Laplace draw from
    the real generator: bit-for-bit what ``Generator.laplace(loc, scale)`` returns.
    """

    def __init__(self, rng: np.random.Generator, log: list[np.ndarray]):
        self._rng, self._log = rng, log

    def laplace(self, loc=0.0, scale=1.0, size=None):
        std = np.asarray(self._rng.laplace(0.0, 1.0, size=size))
        self._log.append(std)
        return loc + scale * std

    def __getattr__(self, name):
        raise AttributeError(f"the engine called rng.{name}: teach bench/naive.py to record it")


@contextlib.contextmanager
def record_noise():
    """Record every Laplace draw ``run_experiment`` makes: yields {(truncation, stream): [draws]}.

    Patches ``dpsum_core.simulate.experiment.stream`` for the duration (benchmark harness only).
    """
    tape: dict[tuple[str, int], list[np.ndarray]] = defaultdict(list)
    original = experiment.stream

    def recording_stream(seed: int, truncation: str, index: int):
        return _RecordingGenerator(original(seed, truncation, index), tape[(truncation, index)])

    experiment.stream = recording_stream
    try:
        yield tape
    finally:
        experiment.stream = original


# --------------------------------------------------------------------------------------------
# The experiment, one trial at a time
# --------------------------------------------------------------------------------------------
@dataclass
class NaiveRun:
    """Answers of one (algorithm, truncation) for all trials, as the engine's ``Run`` has them."""

    algorithm: str
    truncation: str
    answers: np.ndarray
    answers_iso: np.ndarray
    theta: np.ndarray
    expected_mse: np.ndarray


def isotonic(y) -> np.ndarray:
    """Pool-adjacent-violators (non-decreasing, unweighted), then clip at 0."""
    means, sizes = [], []
    for value in y:
        means.append(float(value))
        sizes.append(1)
        while len(means) > 1 and means[-2] > means[-1]:
            w = sizes[-2] + sizes[-1]
            means[-2] = (means[-2] * sizes[-2] + means[-1] * sizes[-1]) / w
            sizes[-2] = w
            means.pop()
            sizes.pop()
    return np.maximum(np.repeat(means, sizes), 0.0)


def _svt_grid(upper: float, s: float, c: float) -> np.ndarray:
    K = max(1, math.ceil(math.log(upper / s) / math.log(c) - 1e-12) + 1)
    return np.array([s * c**k for k in range(K)])


def _svt_scales(eps: float, r: float, variant: str) -> tuple[float, float]:
    if variant == "paper":
        return 2.0 / eps, 4.0 / eps
    delta = max(r, 1.0 - r)
    eps1 = eps / (1.0 + 2.0 ** (2.0 / 3.0))
    return delta / eps1, 2.0 * delta / (eps - eps1)


def _svt_first(gaps, eta: float, nu, grid, upper: float) -> float:
    """AboveThreshold for one trial: the first grid point whose noisy gap reaches η."""
    for k in range(len(grid)):
        if gaps[k] + nu[k] >= eta:
            return float(grid[k])
    return float(upper)


def _crossover(desc: np.ndarray, beta: float, theta0: float) -> int:
    """i* = min{i : d_i < θ₀e^{βi}} on values sorted descending (d_N = 0)."""
    i = np.arange(desc.size + 1)
    d = np.concatenate((desc, [0.0]))
    with np.errstate(divide="ignore"):
        ok = (d <= 0) | (np.log(np.where(d > 0, d, 1.0)) < math.log(theta0) + beta * i)
    return int(np.argmax(ok))


def _thetas(vals, method, eps, config, draws, trials, taus=None) -> np.ndarray:
    """θ per trial (per trial and query when ``taus`` is given), one trial at a time."""
    prm, upper = config.truncation_params, config.upper
    shape = (trials,) if taus is None else (trials, len(taus))
    if method == "none":
        return np.full(shape, np.inf)
    if method == "fixed":
        return np.full(shape, float(prm.theta))
    limits = [vals.size] if taus is None else [int(np.count_nonzero(vals <= t)) for t in taus]
    out = np.empty((trials, len(limits)))
    if method == "svt":
        grid = _svt_grid(upper, prm.resolved(upper)["svt_s"], prm.svt_c)
        b_eta, b_nu = _svt_scales(eps, prm.svt_r, prm.svt_variant)
        # The engine draws (η, ν) per chunk of trials: chunks concatenate in trial order.
        eta, nu = np.concatenate(draws[0::2]), np.concatenate(draws[1::2])
        gaps = []
        for q, c in enumerate(limits):
            points = grid if taus is None else np.minimum(grid, taus[q])
            gaps.append([np.count_nonzero(vals <= p) - prm.svt_r * float(c) for p in points])
        for t in range(trials):
            for q in range(len(limits)):
                e = b_eta * (eta[t, 0] if taus is None else eta[t, q, 0])
                noise = b_nu * (nu[t] if taus is None else nu[t, q])
                out[t, q] = _svt_first(gaps[q], e, noise, grid, upper)
    else:  # recursive
        beta = prm.rm_beta if prm.rm_beta is not None else 2.0 * eps / 5.0
        scale = beta / eps
        shift = scale * math.log(1.0 / (2.0 * prm.rm_mu))
        centers = [
            math.log(prm.resolved(upper)["rm_theta0"])
            + beta * float(_crossover(vals[:c][::-1], beta, prm.resolved(upper)["rm_theta0"]))
            + shift
            for c in limits
        ]
        noise = np.concatenate(draws)
        for t in range(trials):
            for q, center in enumerate(centers):
                out[t, q] = math.exp(center + scale * (noise[t] if taus is None else noise[t, q]))
    return out[:, 0] if taus is None else out


def _batch(alg, x, W, v, y, thetas, eps, draws):
    """Answers and expected squared error of a batch algorithm, one trial at a time."""
    trials = len(thetas)
    answers = np.empty((trials, W.shape[0]))
    mse = np.zeros(W.shape[0])
    if alg == "tamm":  # the engine drew TaMM's noise per distinct θ (ascending), trial order
        groups = np.unique(np.minimum(thetas, v[-1]), return_inverse=True)[1]
        rank = [int(np.count_nonzero(groups[:t] == groups[t])) for t in range(trials)]
    for t, theta in enumerate(thetas):
        T = np.minimum(v, theta)
        bias = W @ (T * x) - y
        if alg == "identity":
            answers[t] = W @ (T * (x + (1.0 / eps) * draws[0][t]))
            var = 2.0 / eps**2 * (W @ T**2)
        elif alg == "workload":
            WT = W * T
            b = np.abs(WT).sum(axis=0).max() / eps
            answers[t] = WT @ x + b * draws[0][t]
            var = np.full(W.shape[0], 2 * b**2)
        elif alg == "timm":  # GreedyH(W) rebuilt in every trial
            rows, inv = greedy_h(W.T @ W)
            A = strategy_matrix(rows, W.shape[1])
            b = np.abs(A * T).sum(axis=0).max() / eps
            z = A @ (T * x) + b * draws[0][t]
            answers[t] = W @ (pinv(A) @ z)
            var = 2 * b**2 * np.diag(W @ inv @ W.T)
        else:  # tamm: GreedyH(W·T_θ)
            M = W * T
            rows, inv = greedy_h(M.T @ M)
            A = strategy_matrix(rows, W.shape[1])
            b = np.abs(A).sum(axis=0).max() / eps
            z = A @ x + b * draws[groups[t]][rank[t]]
            answers[t] = M @ (pinv(A) @ z)
            var = 2 * b**2 * np.diag(M @ inv @ M.T)
        mse += (bias**2 + var) / trials
    return answers, mse


def _sqm(vals, taus, y, thetas, eps, draws):
    """SQM: each query alone on the raw values, one trial and one query at a time."""
    trials, m = thetas.shape
    limits = [int(np.count_nonzero(vals <= t)) for t in taus]
    answers = np.empty((trials, m))
    mse = np.zeros(m)
    for t in range(trials):
        for q in range(m):
            theta = thetas[t, q]
            exact = float(np.minimum(vals[: limits[q]], theta).sum())
            b = min(theta, taus[q]) * m / eps
            answers[t, q] = exact + b * draws[0][t, q]
            mse[q] += ((exact - y[q]) ** 2 + 2 * b**2) / trials
    return answers, mse


def run_experiment(values: np.ndarray, config: ExperimentConfig, tape) -> list[NaiveRun]:
    """Every (truncation, algorithm) of ``config`` with the noise in ``tape``, trial by trial.

    ``values`` are the cleaned values (any order); ``tape`` is what :func:`record_noise` recorded
    while the engine ran the same ``config``.
    """
    domain = config.domain
    workload = make_workload(config.workload, domain)
    n, v, taus = domain.bins, np.asarray(domain.bin_weights), workload.thresholds
    W = (np.arange(1, n + 1)[None, :] <= workload.counts[:, None]).astype(float)
    vals = np.sort(np.asarray(values, float))
    x = histogram(vals.tolist(), list(domain.edges))
    y = np.array([vals[vals <= tau].sum() for tau in taus])
    trials, m = config.trials, workload.size
    runs = []
    for trunc in config.truncations:
        private = trunc in ("svt", "recursive")
        eps_theta = config.rho * config.epsilon if private else 0.0
        eps_m = config.epsilon - eps_theta
        shared = None
        for alg in config.algorithms:
            draws = tape.get((trunc, get(alg).stream_id), [])
            if alg == "sqm":
                theta = _thetas(
                    vals,
                    trunc,
                    eps_theta / m,
                    config,
                    tape.get((trunc, _SQM_THETA_STREAM), []),
                    trials,
                    taus,
                )
                answers, mse = _sqm(vals, taus, y, theta, eps_m, draws)
            else:
                if shared is None:
                    shared = _thetas(
                        vals, trunc, eps_theta, config, tape.get((trunc, _THETA_STREAM), []), trials
                    )
                theta = shared
                answers, mse = _batch(alg, x, W, v, y, theta, eps_m, draws)
            iso = np.array([isotonic(row) for row in answers])
            runs.append(NaiveRun(alg, trunc, answers, iso, theta, mse))
    return runs


# --------------------------------------------------------------------------------------------
# Checking that both give the same answers
# --------------------------------------------------------------------------------------------
def max_rel_diff(a: np.ndarray, b: np.ndarray) -> float:
    """max |a − b| / max(|b|, 1e-9·max|b|): relative difference that tolerates exact zeros."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    if a.shape != b.shape:
        return math.inf
    finite = np.isfinite(b)
    if not np.array_equal(finite, np.isfinite(a)) or not np.array_equal(a[~finite], b[~finite]):
        return math.inf
    if not finite.any():
        return 0.0
    a, b = a[finite], b[finite]
    floor = max(1e-9 * float(np.abs(b).max()), 1e-300)
    return float((np.abs(a - b) / np.maximum(np.abs(b), floor)).max())


def compare_runs(engine_runs, naive_runs, *, rtol: float = 1e-6) -> dict:
    """Per (algorithm, truncation): max relative difference of θ, answers, isotonic, E[err²]."""
    naive = {(r.algorithm, r.truncation): r for r in naive_runs}
    detail, worst = {}, 0.0
    for run in engine_runs:
        other = naive[(run.algorithm, run.truncation)]
        diffs = {
            field: max_rel_diff(getattr(other, field), getattr(run, field))
            for field in ("theta", "answers", "answers_iso", "expected_mse")
        }
        worst = max(worst, *diffs.values())
        detail[f"{run.algorithm}/{run.truncation}"] = {
            k: float(f"{d:.3g}") for k, d in diffs.items()
        }
    return {
        "equal": worst <= rtol,
        "rtol": rtol,
        "max_rel_diff": float(f"{worst:.3g}"),
        "per_run": detail,
    }
