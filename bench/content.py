"""What binding a ledger to the data's content costs (issue 24 §3): a release's read of the data
with and without its :class:`~dpsum_core.data.content.Content`, next to the byte fingerprint
that bound ledgers before (the SHA-256 of the file: one more full pass over its bytes).

    python -m bench.content [--rows 10000000] [--people 1000000] [--repeat 2] [--quick]

One Parquet and one CSV file of ``--rows`` rows (``pid`` among ``--people`` people, ``income``
in cents) under a temporary folder. For memory (``load_column``) and DuckDB (``summarize`` at
the release's cut points), per row and by person: the minimum over ``--repeat`` interleaved
runs of the read without and with the content, the overhead, and the old fingerprint's time.
Not part of the test suite. Prints JSON (see bench/common.py).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import pandas as pd

from bench.common import emit, log, machine, parser
from dpsum_core.data.backends.duckdb import DuckDBBackend
from dpsum_core.data.domain import Domain
from dpsum_core.data.reading import load_column
from dpsum_core.data.summary import CutPoints
from dpsum_core.errors import DataError
from dpsum_core.publish.ledger import file_fingerprint

UPPER = 800_000.0


def _best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--rows", type=int, default=10_000_000)
    p.add_argument("--people", type=int, default=1_000_000)
    args = p.parse_args()
    rows = 200_000 if args.quick else args.rows
    repeat = args.repeat or 2
    rng = np.random.default_rng(24)
    frame = pd.DataFrame({
        "pid": rng.integers(0, args.people, rows),
        "income": np.round(rng.lognormal(9.5, 1.2, rows), 2),
    })  # fmt: skip
    cuts = CutPoints(Domain(UPPER, 1000))
    out: dict = {"machine": machine(), "rows": rows, "people": args.people, "cells": []}
    with tempfile.TemporaryDirectory() as tmp:
        files = {"parquet": Path(tmp) / "d.parquet", "csv": Path(tmp) / "d.csv"}
        frame.to_parquet(files["parquet"])
        frame.to_csv(files["csv"], index=False)
        del frame
        for fmt, path in files.items():
            fingerprint_s = _best(lambda path=path: file_fingerprint(path), repeat)
            for engine in ("memory", "duckdb"):
                for id_column in (None, "pid"):

                    def read(content: bool, engine=engine, id_column=id_column, path=path):
                        if engine == "memory":
                            return load_column(path, upper=UPPER, column="income",
                                               id_column=id_column, content=content)  # fmt: skip
                        backend = DuckDBBackend(path, upper=UPPER, column="income",
                                                id_column=id_column)  # fmt: skip
                        return backend.summarize(cuts, content=content)

                    without, with_ = [], []
                    where = {"format": fmt, "engine": engine, "by": id_column or "row"}
                    try:
                        for _ in range(repeat):  # interleaved: the machine's load hits both
                            without.append(_best(lambda read=read: read(False), 1))
                            with_.append(_best(lambda read=read: read(True), 1))
                    except DataError as exc:  # memory refuses what it cannot hold
                        out["cells"].append({**where, "refused": str(exc)})
                        continue
                    cell = {
                        "format": fmt, "engine": engine, "by": id_column or "row",
                        "without_s": round(min(without), 3), "with_s": round(min(with_), 3),
                        "overhead_s": round(min(with_) - min(without), 3),
                        "overhead_pct": round(100 * (min(with_) / min(without) - 1), 1),
                        "old_byte_fingerprint_s": round(fingerprint_s, 3),
                        "file_mib": round(path.stat().st_size / 2**20, 1),
                    }  # fmt: skip
                    log(str(cell))
                    out["cells"].append(cell)
    emit(out)


if __name__ == "__main__":
    main()
