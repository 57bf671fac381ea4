"""Peak memory (RSS) of an explorer run, and of a 10⁷-row dataset loaded, binned and explored.

    python -m bench.memory [--quick] [--rows 1e7]

Each measurement runs in a fresh subprocess (``--child``) that reports its own peak resident
set size (``resource.getrusage(RUSAGE_SELF).ru_maxrss``) after the work, plus the high-water
mark after the imports and after loading, so the growth per step is visible. The big dataset is
generated at run time (CSV and Parquet) into a temporary folder.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from bench.common import (
    SAMPLE,
    emit,
    log,
    machine,
    parser,
    peak_rss_mib,
    run_json,
    target,
    write_data,
)

EXPLORER_LIMIT_MIB = 1024.0
BIG_LIMIT_MIB = 4096.0


def child(path: Path, truncation: str, trials: int, workload: str, bins: int) -> dict:
    """Load ``path``, histogram it and run one explorer configuration; report peak RSS."""
    from dpsum_core.data.domain import Domain, histogram
    from dpsum_core.data.reading import load_column
    from dpsum_core.simulate.config import ExperimentConfig
    from dpsum_core.simulate.experiment import run_experiment

    rss = {"after_imports_mib": peak_rss_mib()}
    start = time.perf_counter()
    data = load_column(path, upper=800_000)
    histogram(data, Domain(800_000.0, bins))
    rss["after_load_histogram_mib"] = peak_rss_mib()
    loaded = time.perf_counter()
    config = ExperimentConfig(
        workload=workload, truncations=(truncation,), trials=trials, bins=bins, seed=0
    )
    run_experiment(data, config)
    rss["peak_mib"] = peak_rss_mib()
    return {
        "rows": data.size,
        "truncation": truncation,
        "trials": trials,
        "workload": workload,
        "bins": bins,
        "load_s": round(loaded - start, 3),
        "explorer_s": round(time.perf_counter() - loaded, 3),
        "rss": rss,
    }


def sqm_svt_theta(trials: int):
    """SQM's per-query SVT θ choice (Q1, sample data): trials × m × K noise draws."""
    import numpy as np

    from dpsum_core.data.domain import Domain
    from dpsum_core.data.reading import load_column
    from dpsum_core.mechanisms.workloads import make_workload
    from dpsum_core.truncation.params import TruncationParams
    from dpsum_core.truncation.svt import svt_theta

    data = load_column(SAMPLE, upper=800_000)
    taus = make_workload("Q1", Domain()).thresholds
    return svt_theta(
        data,
        epsilon=0.001 / taus.size,
        upper=800_000.0,
        params=TruncationParams(),
        trials=trials,
        rng=np.random.default_rng(0),
        tau=taus,
    ).theta


def svt_child(trials: int) -> dict:
    """Peak RSS of SQM's SVT θ choice alone (``--child-svt``)."""
    start = time.perf_counter()
    sqm_svt_theta(trials)
    return {
        "trials": trials,
        "seconds": round(time.perf_counter() - start, 3),
        "peak_mib": peak_rss_mib(),
    }


def measure_child(
    path: Path, truncation: str = "svt", trials: int = 100, workload: str = "Q1", bins: int = 1000
) -> dict:
    """Run :func:`child` in a fresh interpreter and return its report."""
    return run_json(
        [
            "bench.memory",
            "--child",
            "--data",
            str(path),
            "--truncation",
            truncation,
            "--trials",
            str(trials),
            "--workload",
            workload,
            "--bins",
            str(bins),
        ]
    )


def main() -> None:
    """Measure the explorer run and the big dataset in subprocesses; print JSON."""
    p = parser(__doc__)
    p.add_argument("--rows", type=float, help="rows of the big dataset (default 1e7, quick 1e5)")
    p.add_argument("--child", action="store_true", help="internal: one measurement, in-process")
    p.add_argument("--data", default=str(SAMPLE))
    p.add_argument("--truncation", default="svt")
    p.add_argument("--trials", type=int, default=100)
    p.add_argument("--workload", default="Q1")
    p.add_argument("--bins", type=int, default=1000)
    p.add_argument("--child-svt", action="store_true", help="internal: SQM's SVT alone")
    args = p.parse_args()
    if args.child:
        emit(child(Path(args.data), args.truncation, args.trials, args.workload, args.bins))
        return
    if args.child_svt:
        emit(svt_child(args.trials))
        return
    rows = int(args.rows or (1e5 if args.quick else 1e7))
    out = {"machine": machine(), "explorer_sample": {}, "big": {"rows": rows}, "targets": {}}
    for trunc in ("svt", "recursive"):
        log(f"memory: explorer {trunc}")
        out["explorer_sample"][trunc] = measure_child(SAMPLE, trunc)
    with tempfile.TemporaryDirectory(prefix="dpsum-mem-") as tmp:
        log(f"memory: writing {rows:,} rows")
        for fmt, path in write_data(Path(tmp), rows).items():
            for trunc in ("svt",) if args.quick else ("svt", "recursive"):
                log(f"memory: {fmt} {rows:,} rows, {trunc}")
                out["big"][f"{fmt}_{trunc}"] = measure_child(path, trunc)
    # SQM's per-query SVT holds trials × m × K draws unless they are drawn in chunks of trials
    # (svt_first_above, commit 5227b96): its peak should stay flat in trials.
    out["sqm_svt_theta"] = {}
    for trials in (300,) if args.quick else (1000, 3000, 6000):
        log(f"memory: SQM SVT θ alone, {trials} trials")
        out["sqm_svt_theta"][str(trials)] = run_json(
            ["bench.memory", "--child-svt", "--trials", str(trials)]
        )
    explorer_peak = max(r["rss"]["peak_mib"] for r in out["explorer_sample"].values())
    big_peak = max(r["rss"]["peak_mib"] for k, r in out["big"].items() if k != "rows")
    out["targets"]["explorer_peak_rss_mib"] = target(explorer_peak, EXPLORER_LIMIT_MIB, "MiB")
    out["targets"]["big_peak_rss_mib"] = {**target(big_peak, BIG_LIMIT_MIB, "MiB"), "rows": rows}
    emit(out)


if __name__ == "__main__":
    main()
