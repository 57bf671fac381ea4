"""Data summary at census scale: DuckDB on 3·10⁸ Parquet rows, Spark local on 10⁸, explorer clicks.

Generates income-like Parquet files with DuckDB (not Python loops) under a temporary folder
(``--dir``, default /tmp/dpsum_bench_summary; never in the repository; reused if present),
then times, each in a fresh subprocess so that its peak RSS is its own:

- ``duckdb``: ``DuckDBBackend(...).summarize(cuts)`` over all rows (targets ≤ 15 s, ≤ 2 GiB);
- ``memory``: the in-memory path on the largest size it accepts (``limits.MAX_ROWS``) — above
  that it refuses, so 3·10⁸ rows do not fit by design;
- ``spark``: ``SparkBackend`` on ``local[2]`` over a ``--spark-rows`` dataset of its own (driver RSS);
- ``passes``: a run needing second passes (SVT and recursive θ, 20 trials) over all rows;
- ``click``: one explorer click (Q1 × 5 algorithms × 100 trials, SVT) from a cached summary of
  all rows, next to the same click on the 45 000-row sample.

Not part of the test suite. Prints JSON (see bench/common.py).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (
    ROOT,
    children_peak_rss_mib,
    emit,
    log,
    machine,
    parser,
    peak_rss_mib,
    summarize,
    target,
    timed_passes,
)

GENERATE = """
COPY (
  SELECT CASE WHEN random() < 0.03 THEN 0
              ELSE round(exp(10.4 + 0.85 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random())))
         END AS income
  FROM range({rows})
) TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE 1000000)
"""


def generate(folder: Path, rows: int, files: int) -> None:
    import duckdb

    folder.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    con.execute("SELECT setseed(0.2024)")
    for i in range(files):
        path = folder / f"part{i:02d}.parquet"
        if not path.exists():
            log(f"generating {path} ({rows // files:,} rows)")
            con.execute(GENERATE.format(rows=rows // files, path=path))


def child(kind: str, source: str, extra: str) -> dict:
    """One measurement in this process (called through a subprocess)."""
    from dpsum_core.simulate.config import ExperimentConfig
    from dpsum_core.simulate.experiment import run_cut_points, run_experiment

    config = ExperimentConfig(truncations=("svt",), trials=100)
    cuts = run_cut_points(config)
    start = time.perf_counter()
    if kind == "duckdb":
        from dpsum_core.data.backends.duckdb import DuckDBBackend

        summary = DuckDBBackend(source, upper=config.upper, column="income").summarize(cuts)
    elif kind == "spark":
        from dpsum_core.data.backends.spark import SparkBackend, session

        spark = session("local[2]")
        t0 = time.perf_counter()
        summary = SparkBackend(source, upper=config.upper, spark=spark, column="income").summarize(
            cuts
        )
        out: dict = {"seconds": time.perf_counter() - t0, "with_session_s": time.perf_counter() - start}
        out.update(
            records=summary.size,
            driver_python_peak_rss_mib=peak_rss_mib(),
            driver_jvm_peak_rss_mib=children_peak_rss_mib(),
        )
        return out
    elif kind == "passes":
        return second_passes(source)
    elif kind == "memory":
        from dpsum_core.data.backends.memory import MemoryBackend

        summary = MemoryBackend(source, upper=config.upper, column="income").summarize(cuts)
    else:
        raise SystemExit(f"unknown kind {kind}")
    seconds = time.perf_counter() - start
    out = {"seconds": seconds, "records": summary.size, "peak_rss_mib": peak_rss_mib()}
    if kind == "duckdb" and extra == "click":
        clicks = []
        for _ in range(3):
            t0 = time.perf_counter()
            run_experiment(summary, config)  # type: ignore[arg-type]
            clicks.append(time.perf_counter() - t0)
        out["click"] = summarize(clicks)
    return out


def second_passes(source: str) -> dict:
    """A run that needs second passes (SVT and recursive θ, Q1, 20 trials: SQM's per-query
    recursive θ asks for order statistics and trials × m points) from a DuckDB summary."""
    from dpsum_core.data.backends.duckdb import DuckDBBackend
    from dpsum_core.data.summary import complete
    from dpsum_core.simulate.config import ExperimentConfig
    from dpsum_core.simulate.experiment import run_cut_points, run_experiment

    config = ExperimentConfig(truncations=("svt", "recursive"), trials=20)
    start = time.perf_counter()
    backend = DuckDBBackend(source, upper=config.upper, column="income")
    summary = backend.summarize(run_cut_points(config))
    summary_s = time.perf_counter() - start
    passes: list[dict] = []

    complete(summary, lambda s: run_experiment(s, config), timed_passes(backend.extend, passes))
    return {
        "summary_s": round(summary_s, 3),
        "passes": passes,
        "total_s": round(time.perf_counter() - start, 3),
        "peak_rss_mib": peak_rss_mib(),
    }


def run_child(kind: str, source: str, extra: str = "") -> dict:
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", kind, source, extra],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--rows", type=int, default=300_000_000)
    p.add_argument("--files", type=int, default=10)
    p.add_argument("--spark-rows", type=int, default=100_000_000)
    p.add_argument("--dir", default="/tmp/dpsum_bench_summary")
    p.add_argument("--skip-spark", action="store_true")
    p.add_argument("--skip-passes", action="store_true", help="skip the second-pass run")
    p.add_argument("--child", nargs=3, help=argparse_hidden())
    args = p.parse_args()
    if args.child:
        print(json.dumps(child(*args.child)))
        return
    rows = 1_000_000 if args.quick else args.rows
    repeat = args.repeat or (1 if args.quick else 3)
    folder = Path(args.dir) / f"rows_{rows}"
    free = shutil.disk_usage(Path(args.dir).parent).free
    log(f"free space under {Path(args.dir).parent}: {free / 2**30:.0f} GiB")
    generate(folder, rows, args.files)
    results: dict = {"rows": rows, "files": args.files, "dataset_gib": round(
        sum(f.stat().st_size for f in folder.glob("*.parquet")) / 2**30, 2)}
    runs = [run_child("duckdb", str(folder), "click" if i == 0 else "") for i in range(repeat)]
    results["duckdb"] = {
        **summarize([r["seconds"] for r in runs]),
        "peak_rss_mib": max(r["peak_rss_mib"] for r in runs),
        "click_from_summary": runs[0]["click"],
    }
    results["targets"] = {
        "duckdb_seconds": target(results["duckdb"]["median_s"], 15.0),
        "duckdb_peak_rss_mib": target(results["duckdb"]["peak_rss_mib"], 2048.0, "MiB"),
    }
    if not args.skip_passes:
        results["second_passes_svt_recursive"] = {"rows": rows, **run_child("passes", str(folder))}
    sample = run_child("duckdb", str(ROOT / "sample_data" / "incomes.csv"), "click")
    results["click_on_45000_rows"] = sample["click"]
    mem_rows = min(rows, 10_000_000)
    mem_folder = Path(args.dir) / f"single_{mem_rows}"
    generate(mem_folder, mem_rows, 1)
    mem = run_child("memory", str(mem_folder / "part00.parquet"))
    results["memory"] = {"rows": mem_rows, **mem, "note": "the in-memory path refuses more than "
                         "limits.MAX_ROWS = 20 000 000 rows; 3·10⁸ do not fit by design"}
    if not args.skip_spark:
        spark_rows = min(rows, 1_000_000 if args.quick else args.spark_rows)
        spark_folder = Path(args.dir) / f"rows_{spark_rows}"
        generate(spark_folder, spark_rows, args.files)  # its own files: a limit() would
        # collapse the scan into one partition
        results["spark_local2"] = {"rows": spark_rows, **run_child("spark", str(spark_folder))}
    emit({"benchmark": "summary", "machine": machine(), "results": results})


def argparse_hidden():
    import argparse

    return argparse.SUPPRESS


if __name__ == "__main__":
    main()
