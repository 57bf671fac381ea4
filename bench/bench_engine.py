"""Engine benchmarks on the sample data: prints JSON (medians of several runs).

    python bench/bench_engine.py [--repeat 5]

Measures GreedyH for n = 1000 (prefix W and W·T_θ), one explorer run (Q1 × 5 algorithms ×
100 trials) with SVT and with the recursive mechanism (distinct θ per trial, so TaMM builds
a strategy per θ), and ingest + cleaning + histogram of the sample CSV.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dpsum_core import strategies  # noqa: E402
from dpsum_core.data import Domain, histogram, load_column  # noqa: E402
from dpsum_core.experiment import ExperimentConfig, run_experiment  # noqa: E402
from dpsum_core.workloads import make_workload  # noqa: E402


def timed(fn, repeat: int, setup=None) -> dict:
    times = []
    for _ in range(repeat):
        if setup:
            setup()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return {"median_s": round(statistics.median(times), 4), "min_s": round(min(times), 4), "runs": repeat}


def clear_strategy_cache() -> None:
    strategies._CACHE.clear()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    sample = ROOT / "sample_data" / "incomes.csv"
    domain = Domain()
    q1 = make_workload("Q1", domain)
    data = load_column(sample, upper=domain.upper)
    theta = 50_000 * 1.2**4
    out = {
        "machine": {"python": platform.python_version(), "cpus": __import__("os").cpu_count()},
        "ingest_clean_histogram_sample_csv": timed(
            lambda: histogram(load_column(sample, upper=domain.upper), domain), args.repeat
        ),
        "greedy_h_n1000_prefix": timed(lambda: strategies.greedy_h(q1.counts, 1000), args.repeat),
        "greedy_h_n1000_weighted": timed(
            lambda: strategies.greedy_h(q1.counts, 1000, np.minimum(domain.bin_weights, theta)), args.repeat
        ),
    }
    for trunc in ("svt", "recursive"):
        cfg = ExperimentConfig(workload="Q1", truncations=(trunc,), trials=100, seed=0)
        out[f"explorer_Q1_5alg_100trials_{trunc}_cold"] = timed(
            lambda cfg=cfg: run_experiment(data, cfg), args.repeat, setup=clear_strategy_cache
        )
        out[f"explorer_Q1_5alg_100trials_{trunc}_warm_cache"] = timed(
            lambda cfg=cfg: run_experiment(data, cfg), args.repeat
        )
        clear_strategy_cache()
        r = run_experiment(data, cfg)
        out[f"explorer_Q1_5alg_100trials_{trunc}_cold"]["per_algorithm_s"] = {
            run.algorithm: round(run.seconds, 4) for run in r.runs
        }
        out[f"explorer_Q1_5alg_100trials_{trunc}_cold"]["distinct_theta"] = int(np.unique(r.runs[1].theta).size)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
