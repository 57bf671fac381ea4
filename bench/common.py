"""Shared helpers of the benchmark scripts: timing medians, targets, seeded data files, JSON.

Every script prints one JSON object on stdout (progress goes to stderr), so ``run_all`` can
collect them and a reader can pipe any script into ``jq``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data" / "incomes.csv"
DATA_SEED = 2024
"""Seed of the generated benchmark files (the sample data's own seed)."""


# --------------------------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------------------------
def summarize(times: list[float]) -> dict:
    """Median, min and max of wall times in seconds (the median is the reported figure)."""
    return {
        "median_s": round(statistics.median(times), 5),
        "min_s": round(min(times), 5),
        "max_s": round(max(times), 5),
        "runs": len(times),
    }


def measure(
    fn: Callable[[], object], *, repeat: int, setup: Callable[[], object] | None = None
) -> dict:
    """Time ``fn()`` ``repeat`` times (``setup()`` untimed before each call); see :func:`summarize`."""
    times = []
    for _ in range(repeat):
        if setup is not None:
            setup()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return summarize(times)


T = TypeVar("T")


def timed(fn: Callable[[], T]) -> tuple[T, float]:
    """``(fn(), seconds)`` for a single call."""
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def timed_passes(extend: Callable, log: list[dict]) -> Callable:
    """``extend(summary, missing)`` (a backend's second pass) that appends what each pass was
    asked for (points, ranks) and its seconds to ``log``."""

    def timed_extend(summary, missing):
        t0 = time.perf_counter()
        out = extend(summary, missing)
        log.append(
            {
                "points": int(missing.points.size),
                "ranks": int(missing.positions.size),
                "seconds": round(time.perf_counter() - t0, 3),
            }
        )
        return out

    return timed_extend


def target(value: float | None, limit: float, unit: str = "s", *, at_least: bool = False) -> dict:
    """A target record: the measured value, the limit and whether value ≤ limit (≥ if at_least)."""
    if value is None:
        return {"value": None, "limit": limit, "unit": unit, "pass": None, "note": "not measured"}
    ok = value >= limit if at_least else value <= limit
    shown = float(f"{float(value):.4g}")
    return {
        "value": shown,
        "limit": limit,
        "unit": unit,
        "pass": bool(ok),
        "rule": "≥" if at_least else "≤",
    }


def ratio(naive_s: float, engine_s: float) -> float:
    """Speed-up naive / engine, rounded for reading."""
    return round(naive_s / engine_s, 1) if engine_s > 0 else float("inf")


# --------------------------------------------------------------------------------------------
# Output and arguments
# --------------------------------------------------------------------------------------------
def machine() -> dict:
    """Where and when the numbers were taken (the load average matters on a shared box)."""
    import pandas as pd
    import scipy

    return {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "pandas": pd.__version__,
        "cpus": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def parser(doc: str | None) -> argparse.ArgumentParser:
    """Argument parser with the options every script shares (``--quick``, ``--repeat``)."""
    p = argparse.ArgumentParser(
        description=(doc or "").splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--quick", action="store_true", help="small sizes, one run: a smoke test")
    p.add_argument("--repeat", type=int, help="timed runs per figure (default 5, quick 1)")
    return p


def repeats(args: argparse.Namespace) -> int:
    """Timed runs per figure: ``--repeat`` or 5 (1 with ``--quick``)."""
    return args.repeat or (1 if args.quick else 5)


def log(message: str) -> None:
    """Progress on stderr, so stdout stays pure JSON."""
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def emit(result: dict) -> None:
    """Print the result as JSON on stdout."""
    print(json.dumps(result, indent=2, ensure_ascii=False, default=_json_default))


def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


# --------------------------------------------------------------------------------------------
# Seeded data files (generated at run time into a temporary folder, never committed)
# --------------------------------------------------------------------------------------------
def make_incomes(n: int, *, seed: int = DATA_SEED) -> np.ndarray:
    """``n`` income-like integers from sample_data/make_incomes.py with ``default_rng(seed)``."""
    spec = importlib.util.spec_from_file_location(
        "make_incomes", ROOT / "sample_data" / "make_incomes.py"
    )
    if spec is None or spec.loader is None:
        raise FileNotFoundError(ROOT / "sample_data" / "make_incomes.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.make_incomes(n, rng=np.random.default_rng(seed))


def write_data(
    directory: Path, n: int, *, seed: int = DATA_SEED, formats: tuple[str, ...] = ("csv", "parquet")
) -> dict[str, Path]:
    """Write ``n`` generated incomes as ``income`` column files; returns {format: path}."""
    import pyarrow as pa
    import pyarrow.csv as pa_csv
    import pyarrow.parquet as pq

    table = pa.table({"income": make_incomes(n, seed=seed)})
    paths = {}
    if "csv" in formats:
        paths["csv"] = Path(directory) / f"incomes_{n}.csv"
        options = pa_csv.WriteOptions(quoting_style="needed")
        pa_csv.write_csv(table, paths["csv"], write_options=options)
    if "parquet" in formats:
        paths["parquet"] = Path(directory) / f"incomes_{n}.parquet"
        pq.write_table(table, paths["parquet"])
    return paths


# --------------------------------------------------------------------------------------------
# Memory
# --------------------------------------------------------------------------------------------
def children_peak_rss_mib() -> float:
    """Sum of the peak RSS (VmHWM) of this process's live child processes, MiB (Linux; 0
    elsewhere): the JVM of a local Spark session is such a child, and its memory is the
    driver's."""
    total = 0
    me = str(os.getpid())
    for entry in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(
                line.split(":", 1) for line in entry.read_text(encoding="ascii").splitlines()
            )
        except (OSError, ValueError):
            continue
        if fields.get("PPid", "").strip() == me and "VmHWM" in fields:
            total += int(fields["VmHWM"].split()[0])
    return round(total / 1024, 1)


def peak_rss_mib() -> float:
    """Peak resident set size of this process so far, MiB.

    Linux: ``VmHWM`` of /proc/self/status. ``getrusage(RUSAGE_SELF).ru_maxrss`` is not used
    there because exec() folds the spawning parent's high-water mark into it: a child started
    by a 1 GiB parent reports ≥ 1 GiB however little it uses. Elsewhere ru_maxrss is the
    fallback (KiB on Linux, bytes on macOS).
    """
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    scale = 2**20 if sys.platform == "darwin" else 2**10
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / scale, 1)


def run_json(args: list[str], *, timeout: float = 3600) -> dict:
    """Run ``python -m <args>`` from the repository root and parse the JSON it prints."""
    done = subprocess.run(
        [sys.executable, "-m", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-5:]
        return {"error": f"exit {done.returncode}", "stderr_tail": tail}
    return json.loads(done.stdout)


def fit_exponent(xs, ys) -> float | None:
    """Slope of log y against log x by least squares (cost ∝ x^slope); None if < 2 points."""
    x, y = np.asarray(xs, float), np.asarray(ys, float)
    keep = (x > 0) & (y > 0)
    if keep.sum() < 2:
        return None
    slope, _ = np.polyfit(np.log(x[keep]), np.log(y[keep]), 1)
    return round(float(slope), 3)
