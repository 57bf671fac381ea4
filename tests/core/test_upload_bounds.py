"""Issue 27.3: an upload is listed from its header, metadata and first rows, and only the
chosen value and identifier columns are decoded, within a per-file cap and one process-wide
byte budget (the attack's bombs, scaled down)."""

from __future__ import annotations

import gc
import threading
import tracemalloc

import numpy as np
import pandas as pd
import pytest

from dpsum_core import limits
from dpsum_core.data.bytebudget import ByteBudget
from dpsum_core.data.reading import inspect_table, load_column, read_table
from dpsum_core.errors import DataError

ROWS = 2_000_000  # the attack's 2·10⁷ rows, scaled by 10


def zeros_bomb(path, rows: int = ROWS, columns: int = 13):
    """The attack's Parquet: ``columns`` float columns of zeros (zstd): ≈ 0.1 MB on disk."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    zeros = pa.array(np.zeros(rows))
    pq.write_table(pa.table({f"c{i}": zeros for i in range(columns)}), path, compression="zstd")
    return path


def wide_text_csv(path, rows: int = 20_000, columns: int = 50):
    """The attack's CSV, scaled: a numeric column ``v`` and ``columns`` text columns."""
    rng = np.random.default_rng(1)
    letters = rng.integers(ord("a"), ord("z") + 1, (rows, columns, 6), dtype=np.uint8)
    cells = letters.view("S6")[..., 0].astype(str)  # six random letters a cell
    frame = pd.DataFrame(cells).add_prefix("t")
    frame.insert(0, "v", np.arange(rows) % 1000)
    frame.to_csv(path, index=False)
    return path


def peak_bytes(fn):
    """(result, peak bytes allocated by Python and NumPy while ``fn`` ran)."""
    gc.collect()
    tracemalloc.start()
    try:
        result = fn()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_parquet_bomb_is_listed_without_decoding_and_one_column_is_decoded(
    tmp_path, monkeypatch
):
    import pyarrow.parquet as pq

    path = zeros_bomb(tmp_path / "zeros.parquet")
    assert path.stat().st_size < 1_000_000
    real = pq.ParquetFile.read
    monkeypatch.setattr(pq.ParquetFile, "read", lambda *a, **k: pytest.fail("decoded"))
    head = inspect_table(path)
    assert head.candidates == tuple(f"c{i}" for i in range(13))
    seen = []

    def read(self, columns=None, **kw):
        seen.append(columns)
        return real(self, columns=columns, **kw)

    monkeypatch.setattr(pq.ParquetFile, "read", read)
    data, peak = peak_bytes(lambda: load_column(path, upper=1000.0))  # the default column
    assert data.size == ROWS and seen == [["c0"]]
    # one column is 16 MB; the 13 decoded together were ≥ 208 MB
    assert peak < 13 * 8 * ROWS / 3, f"peak {peak / 2**20:.0f} MB"


def test_the_wide_csv_is_listed_from_its_first_rows_and_one_column_is_parsed(tmp_path):
    path = wide_text_csv(tmp_path / "wide.csv")
    head = inspect_table(path)
    assert head.candidates == ("v",) and len(head.columns) == 51
    whole, whole_peak = peak_bytes(lambda: read_table(path))
    assert whole.shape == (20_000, 51)
    del whole
    one, peak = peak_bytes(lambda: read_table(path, columns=["v"]))
    assert list(one.columns) == ["v"] and len(one) == 20_000
    assert peak < whole_peak / 4, f"{peak / 2**20:.1f} MB vs {whole_peak / 2**20:.1f} MB"
    data, load_peak = peak_bytes(lambda: load_column(path, upper=1000.0))
    assert data.column == "v" and load_peak < whole_peak / 4


def test_the_chosen_csv_columns_are_refused_from_their_estimate_before_parsing(
    tmp_path, monkeypatch
):
    """A text identifier column counts a string per line and the file's bytes; refused above
    MAX_DECODED_MB before the whole file is parsed."""
    path = tmp_path / "ids.csv"
    path.write_text("v,pid\n" + "".join(f"{i},person{i}\n" for i in range(20_000)))
    parses = []
    real = pd.read_csv
    monkeypatch.setattr(pd, "read_csv", lambda *a, **k: parses.append(k["nrows"]) or real(*a, **k))
    monkeypatch.setattr(limits, "MAX_DECODED_MB", 1)
    with pytest.raises(DataError, match="more than the 1 MB this tool decodes"):
        load_column(path, upper=10.0, column="v", id_column="pid")
    assert None not in parses  # only the first rows were parsed
    assert load_column(path, upper=10.0, column="v").size == 20_000  # 8 bytes a line: fits


def test_the_byte_budget_refuses_beyond_its_capacity_and_releases_with_the_owner():
    budget = ByteBudget(100)

    class Owner:
        pass

    first, owner = budget.reserve(60, "a.csv"), Owner()
    first.keep(owner)
    with pytest.raises(DataError, match=r"a\.csv needs about .* free now"):
        budget.reserve(50, "a.csv")
    assert budget.used == 60
    del owner
    gc.collect()
    assert budget.used == 0
    budget.reserve(100, "b.csv").release()
    assert budget.used == 0


def test_the_byte_budget_is_thread_safe():
    budget = ByteBudget(1000)
    over = []

    def work():
        for _ in range(2000):
            try:
                held = budget.reserve(7, "x")
            except DataError:
                continue
            if budget.used > 1000:
                over.append(budget.used)
            held.release()
            held.release()  # idempotent

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert budget.used == 0 and not over


@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_a_decode_holds_its_estimate_until_the_frame_is_dropped(tmp_path, kind):
    frame = pd.DataFrame({"v": np.arange(50_000) % 7, "pid": [f"p{i}" for i in range(50_000)]})
    path = tmp_path / f"t.{kind}"
    frame.to_parquet(path) if kind == "parquet" else frame.to_csv(path, index=False)
    budget = ByteBudget(1 << 30)
    df = read_table(path, columns=["v", "pid"], text_columns=["pid"], budget=budget)
    held = budget.used
    assert 50_000 * 16 <= held < 1 << 26
    with pytest.raises(DataError, match="free now"):
        read_table(path, columns=["v", "pid"], text_columns=["pid"], budget=ByteBudget(held - 1))
    del df
    gc.collect()
    assert budget.used == 0


def test_a_csv_parse_reserves_the_parsers_bytes_until_it_is_done(tmp_path):
    """pandas' tokenizer holds every field of the file while it parses: reserved for the
    parse (a budget holding only the decoded estimate refuses it), given back after."""
    path = wide_text_csv(tmp_path / "wide.csv", rows=2000, columns=50)
    budget = ByteBudget(1 << 30)
    df = read_table(path, columns=["v"], budget=budget)
    held = budget.used
    assert held == 8 * (2000 + 2)  # 8 bytes a line once parsed
    with pytest.raises(DataError, match="free now"):
        read_table(path, columns=["v"], budget=ByteBudget(path.stat().st_size))
    del df
    gc.collect()
    assert budget.used == 0


def test_parquet_text_columns_are_sampled_within_one_bound(tmp_path, monkeypatch):
    """Text columns holding numbers are offered from their first rows, but only while their
    first row groups decode to at most SAMPLE_PAGE_BYTES together."""
    from dpsum_core.data import parquet

    rows = 5000
    frame = pd.DataFrame({f"t{i}": [str(j) for j in range(rows)] for i in range(4)})
    path = tmp_path / "text.parquet"
    frame.to_parquet(path)
    assert inspect_table(path).candidates == ("t0", "t1", "t2", "t3")
    import pyarrow.parquet as pq

    one = pq.ParquetFile(path).metadata.row_group(0).column(0).total_uncompressed_size
    monkeypatch.setattr(parquet, "SAMPLE_PAGE_BYTES", 2 * one)
    assert inspect_table(path).candidates == ("t0", "t1")
