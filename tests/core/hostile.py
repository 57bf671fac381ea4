"""Hostile inputs for bounded reading (issue 17), shared by tests/core/test_ingest.py and
bench/ingest.py: a Parquet file small on disk and huge when decoded, a very wide CSV, and one load of a file in a
fresh process with its time and added peak memory."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def wide_csv(path: Path, *, columns: int, rows: int = 2) -> Path:
    """A CSV of ``columns`` numeric columns (10⁵ took minutes to parse before the header
    check) and ``rows`` rows of ones."""
    header = ",".join(f"c{i}" for i in range(columns))
    row = ",".join("1" for _ in range(columns))
    path.write_text(header + "\n" + (row + "\n") * rows)
    return path


def parquet_bomb(path: Path, *, rows: int, text_columns: int, width: int = 200,
                 dictionary: bool = True) -> Path:  # fmt: skip
    """A Parquet file small on disk and large when decoded: ``text_columns`` columns of one
    repeated ``width``-character string, and a numeric ``income`` column."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    one = pa.array(["x" * width], pa.string())
    idx = pa.array(np.zeros(rows, np.int64))
    cols = {f"note{i}": one.take(idx) for i in range(text_columns)}
    cols["income"] = pa.array(np.arange(rows, dtype=np.float64) % 1000)
    pq.write_table(pa.table(cols), path, compression="zstd", use_dictionary=dictionary)
    return path


_LOAD = """
import io, json, sys, time
import pyarrow.parquet, pandas  # imported before the baseline
from dpsum_core.data.reading import load_column
from dpsum_core.errors import DataError
raw = open(sys.argv[1], "rb").read()
def hwm():  # peak resident KiB since the last reset (ru_maxrss survives exec)
    return int(next(ln for ln in open("/proc/self/status") if ln.startswith("VmHWM")).split()[1])
open("/proc/self/clear_refs", "w").write("5")  # reset the peak to the current size
before = hwm()
start = time.perf_counter()
try:
    rows, outcome = load_column(io.BytesIO(raw), upper=1000.0, name=sys.argv[1]).size, "read"
except DataError as exc:
    rows, outcome = None, f"refused: {exc}"
seconds = time.perf_counter() - start
print(json.dumps({"rows": rows, "outcome": outcome, "seconds": seconds,
                  "peak_added_bytes": (hwm() - before) * 1024}))
"""


def load_in_fresh_process(path: Path) -> dict:
    """``load_column`` on ``path`` in a fresh interpreter: ``rows`` (None when refused),
    ``outcome`` (``read`` or ``refused: …``), ``seconds`` and ``peak_added_bytes``."""
    run = subprocess.run([sys.executable, "-c", _LOAD, str(path)], capture_output=True,
                         text=True, check=True, cwd=str(ROOT))  # fmt: skip
    return json.loads(run.stdout)
