"""Ingest + cleaning + histogram for N = 10⁴ … 10⁷ rows, from CSV and Parquet, engine vs naive.

    python -m bench.ingest [--quick] [--repeat 5] [--sizes 1e4,1e5,1e6,1e7] [--profile]
    python -m bench.ingest --hostile-only      # only the hostile files (issue 17)

Files are generated at run time into a temporary folder with the seeded income generator
(sample_data/make_incomes.py). ``load_s`` is ``load_column`` (read, parse, clean, sort, cumsum),
``histogram_s`` is ``histogram(dataset, Domain())``. The naive reference reads and cleans one
record at a time in Python and bins each record with a binary search; both must give identical
values, cleaning reports and counts. ``phases`` splits the largest engine load into its steps
and times the engine changes proposed in bench/README.md, as evidence.

``hostile`` (issue 17): files small on disk and huge when decoded, each read by ``load_column``
in a fresh process: seconds to the answer (a DataError or a Dataset) and the peak resident
memory it added (ru_maxrss), beside the file size and the naive decoded size.
"""

from __future__ import annotations

import tempfile
from functools import partial
from pathlib import Path

import numpy as np

from bench import naive
from bench.common import (
    emit,
    log,
    machine,
    parser,
    ratio,
    repeats,
    summarize,
    target,
    timed,
    write_data,
)
from dpsum_core.data.cleaning import clean, numeric_columns
from dpsum_core.data.dataset import Dataset
from dpsum_core.data.domain import Domain, histogram
from dpsum_core.data.reading import load_column, read_table
from tests.core.hostile import load_in_fresh_process, parquet_bomb

UPPER = 800_000.0
TARGETS = {"histogram_1e7_s": 0.5, "parquet_load_1e7_s": 2.0, "csv_load_1e7_s": 10.0}


def engine_runs(path: Path, domain: Domain, repeat: int) -> tuple[dict, Dataset, np.ndarray]:
    """Median load, histogram and total times of the engine on one file."""
    load, hist, total = [], [], []
    for _ in range(repeat):
        data, t_load = timed(lambda: load_column(path, upper=UPPER))
        counts, t_hist = timed(partial(histogram, data, domain))
        load.append(t_load)
        hist.append(t_hist)
        total.append(t_load + t_hist)
    out = {"load": summarize(load), "histogram": summarize(hist), "total": summarize(total)}
    return out, data, counts


def naive_run(path: Path, fmt: str, domain: Domain) -> tuple[dict, list, dict, np.ndarray]:
    """One naive load + histogram (per-record Python)."""
    loader = naive.load_csv if fmt == "csv" else naive.load_parquet
    (values, report), t_load = timed(lambda: loader(path, upper=UPPER))
    counts, t_hist = timed(lambda: naive.histogram(values, list(domain.edges)))
    times = {
        "load_s": round(t_load, 4),
        "histogram_s": round(t_hist, 4),
        "total_s": round(t_load + t_hist, 4),
    }
    return times, values, report, counts


def phases(path: Path, domain: Domain, repeat: int) -> dict:
    """Median time of each step of ``load_column`` on one file, and of the proposed histogram.

    ``sort_stable`` is what the engine did before commit eb01e5d (``kind="stable"``, timsort
    for floats); ``sort_default`` is what it does now (SIMD introsort), kept side by side as
    the record of that change.
    """
    steps: dict[str, list[float]] = {}

    def add(name, fn):
        out, seconds = timed(fn)
        steps.setdefault(name, []).append(seconds)
        return out

    for _ in range(repeat):
        add("load_column", lambda: load_column(path, upper=UPPER))
        df = add("read_table", lambda: read_table(path))
        column = add("numeric_columns", partial(numeric_columns, df))[0]
        values, _ = add("clean", partial(clean, df[column], upper=UPPER))
        add("sort_stable (before eb01e5d)", partial(np.sort, values, kind="stable"))
        ordered = add("sort_default (engine)", partial(np.sort, values))
        add("cumsum", partial(np.cumsum, ordered))
        add("histogram (engine, O(N))", partial(histogram, ordered, domain))
        add(
            "histogram_sorted (proposed, O(n log N))", partial(sorted_histogram, ordered, domain)
        )
    return {"median_s": {name: summarize(t)["median_s"] for name, t in steps.items()}}


def sorted_histogram(values: np.ndarray, domain: Domain) -> np.ndarray:
    """Proposed histogram for sorted values: x_j = #{t ≤ e_j} − #{t ≤ e_{j−1}} (0 in bin 1)."""
    below = np.searchsorted(values, domain.edges, side="right")
    below[-1] = values.size  # every cleaned value is ≤ U
    return np.diff(below, prepend=0).astype(float)


def profile_load(path: Path) -> str:
    """pyinstrument text profile of one ``load_column`` call (install pyinstrument to use)."""
    try:
        from pyinstrument import Profiler
    except ImportError:
        return "pyinstrument not installed: /work/venv/bin/pip install pyinstrument"
    profiler = Profiler(interval=0.005)
    profiler.start()
    load_column(path, upper=UPPER)
    profiler.stop()
    return profiler.output_text(unicode=False, color=False)


def hostile_files(tmp: Path) -> dict[str, tuple[Path, float]]:
    """(path, naive decoded MB) of each hostile file: repeated strings (dictionary-encoded and
    plain), and a CSV of 100 000 columns."""
    out = {}
    for label, rows, cols, width, dictionary in (
        ("parquet_dictionary_strings", 2_000_000, 10, 200, True),
        ("parquet_plain_strings", 2_000_000, 10, 200, False),
    ):
        path = parquet_bomb(tmp / f"{label}.parquet", rows=rows, text_columns=cols,
                            width=width, dictionary=dictionary)  # fmt: skip
        out[label] = (path, rows * (cols * width + 8) / 2**20)
    path = tmp / "csv_100000_columns.csv"
    row = ",".join("1" for _ in range(100_000))
    path.write_text(",".join(f"c{i}" for i in range(100_000)) + "\n" + (row + "\n") * 30)
    out["csv_100000_columns"] = (path, 30 * 100_000 * 8 / 2**20)
    return out


def hostile() -> dict:
    """Each hostile file read by load_column in a fresh process (time, added peak memory)."""
    out = {}
    with tempfile.TemporaryDirectory(prefix="dpsum-bench-hostile-") as tmp:
        for label, (path, decoded_mb) in hostile_files(Path(tmp)).items():
            log(f"ingest: hostile {label}")
            loaded = load_in_fresh_process(path)
            rec = {"seconds": round(loaded["seconds"], 3),
                   "peak_added_mb": round(loaded["peak_added_bytes"] / 2**20, 1),
                   "outcome": loaded["outcome"] if loaded["rows"] is None
                   else f"read {loaded['rows']:,} rows"}  # fmt: skip
            rec["file_kb"] = round(path.stat().st_size / 1024, 1)
            rec["naive_decoded_mb"] = round(decoded_mb, 1)
            out[label] = rec
    return out


def main() -> None:
    """Generate the files, time engine and naive, check equality, print JSON."""
    p = parser(__doc__)
    p.add_argument("--sizes", help="comma list of N (default 1e4,1e5,1e6,1e7; quick 1e4,1e5)")
    p.add_argument("--naive-max", type=float, default=1e7, help="largest N run naively")
    p.add_argument(
        "--profile", action="store_true", help="pyinstrument profile of the largest load"
    )
    p.add_argument("--hostile-only", action="store_true", help="only the hostile files (issue 17)")
    args = p.parse_args()
    if args.hostile_only:
        emit({"machine": machine(), "hostile": hostile()})
        return
    repeat = repeats(args)
    sizes = [
        int(float(s))
        for s in (args.sizes or ("1e4,1e5" if args.quick else "1e4,1e5,1e6,1e7")).split(",")
    ]
    domain = Domain()
    out: dict = {"machine": machine(), "repeat": repeat, "sizes": sizes, "results": {}}
    with tempfile.TemporaryDirectory(prefix="dpsum-bench-") as tmp:
        for fmt, path in write_data(Path(tmp), 1000).items():  # warm-up: lazy imports, caches
            engine_runs(path, domain, 1)
            naive_run(path, fmt, domain)
        for n in sizes:
            log(f"ingest: writing {n:,} rows")
            paths = write_data(Path(tmp), n)
            for fmt, path in paths.items():
                log(f"ingest: {fmt} N = {n:,}")
                rec, data, counts = engine_runs(path, domain, repeat)
                rec["file_mb"] = round(path.stat().st_size / 2**20, 1)
                if n <= args.naive_max:
                    times, values, report, naive_counts = naive_run(path, fmt, domain)
                    rec["naive"] = times
                    rec["speedup"] = {
                        k: ratio(times[f"{k}_s"], rec[k]["median_s"])
                        for k in ("load", "histogram", "total")
                    }
                    rec["same_answers"] = {
                        "values": bool(np.array_equal(np.asarray(values), data.values)),
                        "cleaning_report": report
                        == {
                            k: v
                            for k, v in data.report.as_dict().items()
                            if k != "rows_kept" and (k in report or v)  # new fields if used
                        },
                        "histogram": bool(np.array_equal(naive_counts, counts)),
                    }
                    del values
                out["results"][f"{fmt}_{n}"] = rec
            largest = n
        parquet = Path(tmp) / f"incomes_{largest}.parquet"
        log("ingest: phases of the largest Parquet load")
        out["phases_parquet_largest"] = phases(parquet, domain, repeat)
        data = load_column(parquet, upper=UPPER)
        out["phases_parquet_largest"]["proposed_histogram_equal"] = bool(
            np.array_equal(sorted_histogram(data.values, domain), histogram(data, domain))
        )
        if args.profile:
            out["profile_parquet_largest"] = profile_load(parquet).splitlines()
    big = f"_{10**7}"
    res = out["results"]
    out["targets"] = {
        "histogram_1e7_s": target(
            res.get("parquet" + big, {}).get("histogram", {}).get("median_s"),
            TARGETS["histogram_1e7_s"],
        ),
        "parquet_load_1e7_s": target(
            res.get("parquet" + big, {}).get("load", {}).get("median_s"),
            TARGETS["parquet_load_1e7_s"],
        ),
        "csv_load_1e7_s": target(
            res.get("csv" + big, {}).get("load", {}).get("median_s"), TARGETS["csv_load_1e7_s"]
        ),
    }
    out["hostile"] = hostile()
    emit(out)


if __name__ == "__main__":
    main()
