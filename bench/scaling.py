"""How time and memory grow with N (records), n (bins), m (queries) and trials; fitted exponents.

    python -m bench.scaling [--quick] [--repeat 3]

Each curve varies one size and keeps the others at the paper's defaults (n = 1000 bins, Q1,
100 trials, the sample data): time in seconds (median of ``--repeat`` cold runs, GreedyH caches
cleared) and peak RSS in MiB (fresh subprocess per point, bench/memory.py). Every series gets a
fitted exponent b of cost ∝ size^b by least squares on log-log axes, over all points
(``all``) and over the three largest sizes (``tail``, closer to the asymptote). bench/SCALING.md
discusses the results.
"""

from __future__ import annotations

import tempfile
from functools import partial
from pathlib import Path

import numpy as np

from bench import naive
from bench.common import (
    SAMPLE,
    emit,
    fit_exponent,
    log,
    machine,
    measure,
    parser,
    timed,
    write_data,
)
from bench.explorer import clear_caches
from bench.memory import measure_child
from dpsum_core.data.domain import Domain, histogram
from dpsum_core.data.reading import load_column
from dpsum_core.mechanisms import greedy_h as strategies
from dpsum_core.mechanisms.workloads import make_workload
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import run_experiment

TRUNCATIONS = ("svt", "recursive")


def curve(name: str, xs: list, series: dict[str, list[float]]) -> dict:
    """A measured curve with the fitted exponent of each series.

    Memory series (``…_mib``) also get ``mib_per_unit``, the slope of a straight-line fit: the
    marginal MiB per record or per trial, which reads better than an exponent over a fixed
    interpreter baseline.
    """
    out = {
        "x": name,
        "points": xs,
        "series": {k: [float(f"{v:.4g}") for v in ys] for k, ys in series.items()},
        "exponent": {
            k: {"all": fit_exponent(xs, ys), "tail": fit_exponent(xs[-3:], ys[-3:])}
            for k, ys in series.items()
        },
    }
    slopes = {
        k: float(f"{np.polyfit(xs, ys, 1)[0]:.4g}")
        for k, ys in series.items()
        if k.endswith("_mib") and len(xs) > 1
    }
    if slopes:
        out["mib_per_unit"] = slopes
    return out


def rss(report: dict) -> dict[str, float]:
    """Peak RSS of a child, and the part above its post-import baseline (the working set)."""
    return {
        "peak_mib": report["rss"]["peak_mib"],
        "above_imports_mib": round(
            report["rss"]["peak_mib"] - report["rss"]["after_imports_mib"], 1
        ),
    }


def explorer_time(data, repeat: int, **config) -> dict[str, float]:
    """Cold median of one explorer run per truncation, and per-algorithm seconds of one run."""
    out = {}
    for trunc in TRUNCATIONS:
        cfg = ExperimentConfig(truncations=(trunc,), seed=0, **config)
        out[trunc] = measure(
            partial(run_experiment, data, cfg), repeat=repeat, setup=clear_caches
        )["median_s"]
        clear_caches()
        for run in run_experiment(data, cfg).runs:
            out[f"{trunc}:{run.algorithm}"] = run.seconds
    return out


def collect(rows: list[dict]) -> dict[str, list[float]]:
    """List of {series: value} per point → {series: [values]}."""
    return {k: [r[k] for r in rows] for k in rows[0]}


def over_records(sizes: list[int], repeat: int) -> dict:
    """Load, histogram, explorer and peak RSS against N."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="dpsum-scale-") as tmp:
        for n in sizes:
            log(f"scaling: N = {n:,}")
            paths = write_data(Path(tmp), n)
            row = {
                f"load_{fmt}": measure(partial(load_column, p, upper=800_000), repeat=repeat)[
                    "median_s"
                ]
                for fmt, p in paths.items()
            }
            data = load_column(paths["parquet"], upper=800_000)
            row["histogram"] = measure(partial(histogram, data, Domain()), repeat=repeat)[
                "median_s"
            ]
            row.update(
                {
                    f"explorer_{k}": v
                    for k, v in explorer_time(data, repeat, workload="Q1", trials=100).items()
                    if ":" not in k
                }
            )
            mem = rss(measure_child(paths["parquet"]))  # load + histogram + explorer (SVT)
            row.update({f"rss_{k}": v for k, v in mem.items()})
            rows.append(row)
            del data
    return curve("N records", sizes, collect(rows))


def over_bins(bins: list[int], naive_max: int, repeat: int) -> dict:
    """GreedyH (engine and dense naive) and the explorer (m = 10 queries) against n."""
    rows = []
    data = load_column(SAMPLE, upper=800_000)
    for n in bins:
        log(f"scaling: n = {n}")
        domain = Domain(800_000.0, n)
        counts = make_workload("Q1", domain).counts
        scale = domain.bin_weights.copy()
        scale[scale > 103_680.0] = 103_680.0
        row = {
            "greedy_prefix": measure(
                partial(strategies.greedy_h, counts, n),
                repeat=repeat,
                setup=strategies._tree.cache_clear,
            )["median_s"],
            "greedy_weighted": measure(
                partial(strategies.greedy_h, counts, n, scale),
                repeat=repeat,
                setup=strategies._tree.cache_clear,
            )["median_s"],
        }
        if n <= naive_max:
            M = (domain.edges[None, :] <= domain.edges[counts - 1][:, None]) * scale
            row["greedy_weighted_naive"] = timed(partial(naive.greedy_h, M.T @ M))[1]
        times = explorer_time(data, repeat, workload=f"every:{n // 10}", bins=n, trials=100)
        row.update({f"explorer_m10_{k}": v for k, v in times.items() if ":" not in k})
        rows.append(row)
    series = collect([{k: v for k, v in r.items() if k != "greedy_weighted_naive"} for r in rows])
    out = curve("n bins", bins, series)
    naive_pts = [
        (n, r["greedy_weighted_naive"])
        for n, r in zip(bins, rows, strict=True)
        if "greedy_weighted_naive" in r
    ]
    if naive_pts:
        xs, ys = map(list, zip(*naive_pts, strict=True))
        out["naive_greedy_weighted"] = curve("n bins", xs, {"naive": ys})
    return out


def over_queries(steps: list[int], repeat: int) -> dict:
    """The explorer at n = 1000 against m, using every k-th edge (m = 1000 / k)."""
    data = load_column(SAMPLE, upper=800_000)
    rows = []
    ms = []
    for k in steps:
        log(f"scaling: m = {1000 // k}")
        ms.append(1000 // k)
        rows.append(explorer_time(data, repeat, workload=f"every:{k}", trials=100))
    return curve("m queries", ms, collect(rows))


def over_trials(trials: list[int], memory_trials: list[int], repeat: int) -> dict:
    """The explorer (Q1, n = 1000) against trials, and its peak RSS."""
    data = load_column(SAMPLE, upper=800_000)
    rows = []
    for t in trials:
        log(f"scaling: trials = {t}")
        rows.append(explorer_time(data, repeat, workload="Q1", trials=t))
    out = curve("trials", trials, collect(rows))
    mem = []
    for t in memory_trials:
        log(f"scaling: memory at {t} trials")
        point = {}
        for trunc in TRUNCATIONS:
            mem_t = rss(measure_child(SAMPLE, trunc, trials=t))
            point.update({f"rss_{trunc}_{k}": v for k, v in mem_t.items()})
        mem.append(point)
    out["memory"] = curve("trials", memory_trials, collect(mem))
    return out


def main() -> None:
    """Measure every curve, fit exponents, print JSON."""
    p = parser(__doc__)
    args = p.parse_args()
    repeat = args.repeat or (1 if args.quick else 3)
    if args.quick:
        grid: dict = {
            "N": [10_000, 100_000],
            "n": [128, 256],
            "naive_max": 256,
            "k": [100, 10],
            "trials": [10, 30],
            "memory_trials": [10],
        }
    else:
        grid = {
            "N": [10_000, 100_000, 1_000_000, 10_000_000],
            "n": [128, 256, 512, 1024, 2048, 4096],
            "naive_max": 2048,
            "k": [100, 50, 20, 10, 5, 2, 1],
            "trials": [10, 30, 100, 300, 1000],
            "memory_trials": [10, 100, 300, 1000, 3000],
        }
    curves = {
        "records": over_records(grid["N"], repeat),
        "bins": over_bins(grid["n"], grid["naive_max"], repeat),
        "queries": over_queries(grid["k"], repeat),
        "trials": over_trials(grid["trials"], grid["memory_trials"], repeat),
    }
    exponents = {}
    for name, c in curves.items():
        for sub in (c, c.get("memory"), c.get("naive_greedy_weighted")):
            if sub:
                for series, e in sub["exponent"].items():
                    if ":" not in series:
                        exponents[f"{name}/{series}"] = e
    emit({"machine": machine(), "repeat": repeat, "exponents": exponents, "curves": curves})


if __name__ == "__main__":
    main()
