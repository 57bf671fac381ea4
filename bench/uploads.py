"""The upload bombs of issue 27.3, read the way the Data page reads an upload, in a fresh process.

    python -m bench.uploads [--quick] [--scale 1]

``parquet``: 13 float columns × 2·10⁷ zeros (zstd, ≈ 1.1 MB on disk); ``csv``: ≈ 187 MB of a
numeric column ``v`` and 1,999 columns of random 9-letter text. ``--scale`` divides the rows
(``--quick``: by 20). Each file is listed (:func:`dpsum_core.data.reading.inspect_table`), its
first candidate column alone decoded (``read_table(columns=…)``) and cleaned
(``table_column``), in a fresh interpreter: ``list_s``, ``seconds`` (list + decode + clean) and
``peak_added_mb`` (the peak resident memory it added over the file's bytes, VmHWM).

Before issue 27 the page decoded every column (``read_numeric_table``): on the same machine the
full-size Parquet took 11.8 s and 4,601 MB, the CSV 69.7 s and 1,789 MB.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from bench.common import emit, log, machine, parser

ROOT = Path(__file__).resolve().parents[1]

_READ = """
import json, sys, time
import pandas, pyarrow.parquet  # imported before the baseline
raw = open(sys.argv[1], "rb").read()
def hwm():
    return int(next(ln for ln in open("/proc/self/status") if ln.startswith("VmHWM")).split()[1])
open("/proc/self/clear_refs", "w").write("5")  # reset the peak to the current size
before, start = hwm(), time.perf_counter()
from dpsum_core.data.reading import inspect_table, read_table, table_column
head = inspect_table(raw, name=sys.argv[1])
listed = time.perf_counter() - start
column = head.candidates[0]
df = read_table(raw, name=sys.argv[1], columns=[column])
data = table_column(df, column, upper=1000.0, name="bomb")
print(json.dumps({"rows": data.size, "columns": len(head.columns),
                  "candidates": len(head.candidates), "list_s": round(listed, 3),
                  "seconds": round(time.perf_counter() - start, 2),
                  "peak_added_mb": round((hwm() - before) / 1024)}))
"""


def parquet_bomb(path: Path, rows: int) -> Path:
    """13 float columns of zeros, written a row group at a time (zstd)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([(f"c{i}", pa.float64()) for i in range(13)])
    step = min(rows, 2_000_000)
    zeros = pa.array(np.zeros(step))
    with pq.ParquetWriter(path, schema, compression="zstd") as out:
        for start in range(0, rows, step):
            n = min(step, rows - start)
            out.write_table(pa.table([zeros.slice(0, n)] * 13, schema=schema))
    return path


def csv_bomb(path: Path, megabytes: float, columns: int = 2000, cell: int = 9) -> Path:
    """A numeric column ``v`` and ``columns − 1`` columns of random ``cell``-letter text."""
    rng = np.random.default_rng(0)
    rows = int(megabytes * 1e6 / (columns * (cell + 1)))
    with path.open("wb") as out:
        out.write(("v," + ",".join(f"t{i}" for i in range(1, columns)) + "\n").encode())
        for r in range(rows):
            letters = rng.integers(ord("a"), ord("z") + 1, (columns - 1, cell), dtype=np.uint8)
            cells = np.concatenate([letters, np.full((columns - 1, 1), ord(","), np.uint8)], 1)
            out.write(f"{r % 1000},".encode() + cells.tobytes()[:-1] + b"\n")
    return path


def read_in_fresh_process(path: Path) -> dict:
    run = subprocess.run([sys.executable, "-c", _READ, str(path)], capture_output=True,
                         text=True, check=True, cwd=str(ROOT))  # fmt: skip
    return {"file_mb": round(path.stat().st_size / 2**20, 2), **json.loads(run.stdout)}


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--scale", type=float, default=1.0, help="divide the rows by this")
    args = p.parse_args()
    scale = 20.0 if args.quick else args.scale
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        log("parquet bomb")
        path = parquet_bomb(Path(tmp) / "zeros.parquet", int(2e7 / scale))
        results["parquet"] = read_in_fresh_process(path)
        path.unlink()
        log("csv bomb")
        results["csv"] = read_in_fresh_process(csv_bomb(Path(tmp) / "wide.csv", 187 / scale))
    emit({"machine": machine(), "scale": scale, "results": results})


if __name__ == "__main__":
    main()
