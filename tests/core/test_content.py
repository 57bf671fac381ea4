"""Issue 24 §3: the content a ledger binds to is the cleaned (identifier, value) rows, whatever
holds them: CSV, Parquet, a folder of parts, any row order or number spelling, memory or DuckDB
(Spark: tests/core/test_spark.py). Other rows are other content."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from dpsum_core.data.backends.duckdb import DuckDBBackend
from dpsum_core.data.content import LOW, Content, content_of, value_components
from dpsum_core.data.domain import Domain
from dpsum_core.data.reading import load_column
from dpsum_core.data.summary import CutPoints

CUTS = CutPoints(Domain(100.0, 10))
# Awkward values (a huge one, a subnormal, −0, cents, text that is no number, blanks, ∞) and
# identifiers (text, integers as text, "007", a blank, surrounding white space).
VALUES = ["1", "2.5", "-3", "1e300", "5e-324", "-0", "", "abc", "inf", "1e-20", "0.1", "7",
          "7", "1.7976931348623157e308", "2.2250738585072014e-308", "9007199254740993", "42"]
IDS = ["a", " b", "7", "007", "-12", "9223372036854775807", "x", "y", "z", "", "a", "b", "7.5",
       "1e3", "+7", "  ", "q\u00a0"]  # fmt: skip


def memory(path, id_column=None, upper=100.0) -> Content:
    data = load_column(path, upper=upper, column="v", id_column=id_column, content=True)
    assert data.report.content is not None
    return data.report.content


def duckdb(path, id_column=None, upper=100.0) -> Content:
    backend = DuckDBBackend(path, upper=upper, column="v", id_column=id_column)
    content = backend.summarize(CutPoints(Domain(upper, 10)), content=True).report.content
    assert content is not None
    return content


@pytest.fixture
def awkward(tmp_path):
    path = tmp_path / "awkward.csv"
    pd.DataFrame({"pid": IDS, "v": VALUES}).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("id_column", [None, "pid"])
def test_memory_and_duckdb_hash_the_same_kept_rows(awkward, id_column):
    got = memory(awkward, id_column)
    assert got == duckdb(awkward, id_column)
    # kept: finite values (not "", "abc", "inf"); by person also an identifier (not "", "  ")
    assert got.rows == (14 if id_column is None else 12)


def test_the_same_rows_in_any_file_and_order_are_the_same_content(tmp_path):
    rng = np.random.default_rng(3)
    n = 3000
    frame = pd.DataFrame({"pid": rng.integers(0, 700, n), "v": np.round(rng.lognormal(8, 2, n), 2)})
    frame.loc[:20, "v"] *= -1  # losses: kept as they are (U is not the data)
    csv, parquet, parts = tmp_path / "d.csv", tmp_path / "d.parquet", tmp_path / "parts"
    frame.to_csv(csv, index=False)
    shuffled = frame.sample(frac=1.0, random_state=1).reset_index(drop=True)
    shuffled.assign(pid=shuffled.pid.astype(float)).to_parquet(parquet)  # 7.0 is the id 7
    parts.mkdir()
    for i, start in enumerate((0, 1000, 2000)):
        chunk = shuffled.iloc[start : start + 1000]
        # other spellings of the same numbers: 1234.5 as "1.23450000000000000e+03"
        text = chunk.assign(v=[f"{x:.17e}" if i == 1 else repr(float(x)) for x in chunk.v])
        text.to_csv(parts / f"part-{i}.csv", index=False)
    for id_column in (None, "pid"):
        first = memory(csv, id_column)
        assert memory(parquet, id_column) == first == duckdb(parquet, id_column)
        assert duckdb(parts, id_column) == first == duckdb(csv, id_column)
        assert memory(csv, id_column, upper=10.0) == first  # U clips, the content stays


@pytest.mark.parametrize(
    ("change", "id_column"),
    [(c, i) for c in ("one value one ulp up", "one row less", "one row twice") for i in (None, "pid")]
    + [("one id", "pid"), ("two values swapped", "pid")],
)
def test_other_rows_are_other_content(tmp_path, change, id_column):
    frame = pd.DataFrame({"pid": [1, 1, 2, 3, 4], "v": [10.0, 20.0, 30.0, 40.0, 50.0]})
    other = frame.copy()
    if change == "one value one ulp up":
        other.loc[2, "v"] = np.nextafter(30.0, 100.0)
    elif change == "one id":
        other.loc[4, "pid"] = 5
    elif change == "one row less":
        other = other.iloc[:-1]
    elif change == "one row twice":
        other = pd.concat([other, other.iloc[[0]]])
    else:  # the people's values trade places: the same multiset of values, other people
        other.loc[[2, 3], "v"] = [40.0, 30.0]
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    frame.to_csv(a, index=False)
    other.to_csv(b, index=False)
    assert memory(a, id_column) != memory(b, id_column)
    assert duckdb(a, id_column) != duckdb(b, id_column)


def test_the_components_are_the_exact_value():
    """Every finite double is read back exactly from its components (so no two values share
    them): the limbs' range and the mantissa-exponent range, their edges, subnormals."""
    rng = np.random.default_rng(5)
    edges = [0.0, LOW, np.nextafter(LOW, 0), 2.0**53, np.nextafter(2.0**53, 0), 5e-324,
             2.2250738585072014e-308, 1.7976931348623157e308, 0.1, 1 / 3, 123.456]  # fmt: skip
    x = np.concatenate([edges, rng.standard_normal(2000) * 10.0 ** rng.integers(-300, 300, 2000)])
    x = np.concatenate([x, -x])
    tag, l1, l2, l3 = value_components(x)
    for v, t, a, b, c in zip(x.tolist(), *(part.tolist() for part in (tag, l1, l2, l3)), strict=True):
        kind, negative = divmod(t, 2)
        if kind == 1:  # the limbs: ⌊|x|⌋ and two 52-bit fractional digits
            magnitude = Fraction(a) + Fraction(b, 2**52) + Fraction(c, 2**104)
        elif kind == 2:  # mantissa and exponent
            magnitude = Fraction(a) * Fraction(2) ** (b - 2000)
        else:
            magnitude = Fraction(0)
        assert (-magnitude if negative else magnitude) == Fraction(v), v
    assert (tag[x == 0] == 0).all()  # −0 is 0


def test_the_digest_is_salted():
    content = content_of(np.array([1.0, 2.0]))
    assert content.digest("a") != content.digest("b")
    assert content.digest("a") == content_of(np.array([2.0, 1.0])).digest("a")
    assert content.digest("a").startswith("content:sha256:")


def test_the_memory_backend_reads_the_content_when_asked(awkward):
    from dpsum_core.data.backends.memory import MemoryBackend

    backend = MemoryBackend(awkward, upper=100.0, column="v", id_column="pid")
    assert backend.summarize(CUTS).report.content is None  # not asked: not computed
    assert backend.summarize(CUTS, content=True).report.content == memory(awkward, "pid")
