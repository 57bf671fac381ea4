"""Loading, cleaning (SPEC §0), the Domain and the histogram."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpsum_core.data.cleaning import clean, numeric_columns, to_numeric
from dpsum_core.data.dataset import make_dataset
from dpsum_core.data.domain import Domain, bin_index, histogram
from dpsum_core.data.reading import load_column, read_table
from dpsum_core.errors import DataError, ParameterError

SAMPLE = "sample_data/incomes.csv"


def test_cleaning_reports_every_change():
    raw = pd.Series(["5", "abc", None, "inf", "-3", "900", "", "1,234", " 7 "])
    values, report = clean(raw, upper=1000)
    assert sorted(values.tolist()) == [0.0, 5.0, 7.0, 900.0, 1000.0]
    assert report.rows_read == 9
    assert report.dropped_missing == 2
    assert report.dropped_non_numeric == 1
    assert report.dropped_non_finite == 1
    assert report.clipped_below_zero == 1
    assert report.clipped_above_upper == 1  # "1,234" parses as 1234 > U
    assert report.rows_kept == 5
    assert any("negative" in line for line in report.lines())


def test_empty_after_cleaning_is_an_error():
    with pytest.raises(DataError, match="no numeric values"):
        clean(pd.Series(["a", "b"]), upper=10)


def test_domain_validation_messages():
    with pytest.raises(ParameterError, match="upper bound U must be > 0"):
        Domain(upper=0)
    with pytest.raises(ParameterError, match="bins must be between"):
        Domain(bins=10**7)
    with pytest.raises(ParameterError, match="weights must be one of"):
        Domain(weights="lower")


def test_domain_edges_and_weights():
    d = Domain(100.0, 4)
    assert d.edges.tolist() == [25.0, 50.0, 75.0, 100.0]
    assert Domain(100.0, 4, "midpoint").bin_weights.tolist() == [12.5, 37.5, 62.5, 87.5]


def test_bin_index_matches_searchsorted_on_edges():
    d = Domain(800_000.0, 1000)
    rng = np.random.default_rng(0)
    e = d.edges
    v = np.concatenate([rng.uniform(0, d.upper, 10_000), e, np.nextafter(e, 0), [0.0]])
    v = np.clip(np.concatenate([v, np.nextafter(e[:-1], np.inf)]), 0, d.upper)
    np.testing.assert_array_equal(bin_index(v, d), np.searchsorted(e, v, side="left"))
    # 0 falls in bin 1; e_j itself belongs to bin j (right-closed bins).
    assert bin_index(np.array([0.0, 800.0, 800.0001]), d).tolist() == [0, 0, 1]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(0, 1000, allow_nan=False), min_size=1, max_size=60),
    st.floats(0, 1000, allow_nan=False),
    st.floats(0.5, 1500, allow_nan=False),
)
def test_truncated_sum_matches_definition(values, tau, theta):
    data = make_dataset(np.array(values), upper=1000)
    want = sum(min(t, theta) for t in data.values if t <= tau)
    assert data.truncated_sum(np.array(tau), np.array(theta)) == pytest.approx(want, abs=1e-6)
    assert data.sum_at_most(np.array(tau)) == pytest.approx(sum(t for t in data.values if t <= tau), abs=1e-6)


def test_truncated_sum_with_infinite_theta_is_the_plain_sum():
    data = make_dataset(np.array([1.0, 2.0, 3.0]), upper=10)
    assert data.truncated_sum(np.array([2.5]), np.array([np.inf])).tolist() == [3.0]


def test_histogram_counts_records_per_bin():
    d = Domain(10.0, 5)
    data = make_dataset(np.array([0.0, 2.0, 2.5, 9.9, 10.0, 50.0]), upper=10)
    assert histogram(data, d).tolist() == [2.0, 1.0, 0.0, 0.0, 3.0]


def test_load_sample_csv_picks_numeric_column():
    data = load_column(SAMPLE, upper=800_000)
    assert data.column == "income"
    assert data.report.rows_read == 45_000
    assert data.report.clipped_above_upper > 0
    assert np.all(np.diff(data.values) >= 0)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("a;b\n1;x\n2;y\n", "semi.csv"),
        ("a\tb\n1\tx\n2\ty\n", "tab.tsv"),
        ("a\tb\n1\tx\n2\ty\n", "tab.txt"),
        ("a,b\n1,x\n2,y\n", "comma.csv"),
    ],
)
def test_delimiters_are_detected(text, name):
    data = load_column(io.BytesIO(text.encode()), upper=10, name=name)
    assert data.column == "a"
    assert data.values.tolist() == [1.0, 2.0]


def test_quoted_thousands_separators():
    data = load_column(io.BytesIO(b'income\n"1,234"\n"2,000,000"\n'), upper=1e7, name="q.csv")
    assert data.values.tolist() == [1234.0, 2_000_000.0]


def test_a_dollar_sign_and_spaces_removed_from_values_are_counted_and_said():
    """The parser removes "$", "_" and white space inside a text cell before reading it; the
    cleaning note says so, and counts the kept values read so (a non-numeric cell is only
    counted as dropped)."""
    csv = b'amount\n"$1,234.50"\n$500\n1 000\n12_000\n700\n $ 5 \nabc$\n'
    data = load_column(io.BytesIO(csv), upper=1e6, name="d.csv")
    assert sorted(data.values.tolist()) == [5.0, 500.0, 700.0, 1000.0, 1234.5, 12_000.0]
    report = data.report
    assert (report.dollar_removed, report.spaces_removed) == (3, 3)  # abc$ is dropped
    assert report.thousands_separator == 1 and report.dropped_non_numeric == 1
    lines = report.lines()
    assert "3 values read with a '$' removed ($1,234.50 = 1234.5)." in lines, lines
    assert "3 values read with spaces or '_' inside removed (1 000 = 1_000 = 1000)." in lines
    assert report.changed
    plain = load_column(io.BytesIO(b"amount\n 5 \n7\n"), upper=10, name="p.csv").report
    assert (plain.dollar_removed, plain.spaces_removed) == (0, 0)  # white space at the ends
    assert not any("removed" in line for line in plain.lines())


def test_removed_characters_are_counted_per_kept_row_by_person():
    from dpsum_core.data.cleaning import clean

    raw = pd.Series(["$5", "$6", "1 0", "$7"])
    ids = pd.Series(["a", "a", "b", None])  # the last row has no identifier: dropped
    values, report = clean(raw, upper=100, ids=ids, id_column="pid")
    assert sorted(values.tolist()) == [10.0, 11.0]
    assert (report.dollar_removed, report.spaces_removed) == (2, 1)


def test_parquet_round_trip(tmp_path):
    path = tmp_path / "x.parquet"
    pd.DataFrame({"name": ["a", "b"], "v": [1.5, 2.5]}).to_parquet(path)
    data = load_column(path, upper=10)
    assert data.column == "v" and data.values.tolist() == [1.5, 2.5]


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (b"", "is empty"),
        (b"   \n", "is empty"),
        (b"PK\x03\x04rest-of-zip", "Excel workbook"),
        (b"\x00\x01\x02binary", "binary file"),
        (b"name\nalice\nbob\n", "no numeric column"),
        (b"PAR1garbage", "could not be read as Parquet"),
    ],
)
def test_bad_files_give_specific_messages(payload, message):
    with pytest.raises(DataError, match=message):
        load_column(io.BytesIO(payload), upper=10, name="f.csv")


def test_unknown_column_lists_the_columns():
    with pytest.raises(DataError, match=r"no column named 'zzz'.*columns are: a, b"):
        load_column(io.BytesIO(b"a,b\n1,2\n"), upper=10, column="zzz", name="f.csv")


def test_missing_file():
    with pytest.raises(DataError, match="file not found"):
        load_column("no/such/file.csv", upper=10)


def test_non_utf8_bytes_are_tolerated():
    data = load_column(io.BytesIO(b"caf\xe9,v\nx\xff,3\ny,4\n"), upper=10, name="l.csv")
    assert data.values.tolist() == [3.0, 4.0]


def test_numeric_columns_ordering():
    df = read_table(io.BytesIO(b"t,a,b\nx,1,\ny,2,3\nz,q,4\n"), name="f.csv")
    assert numeric_columns(df) == ["a", "b"]


def test_identifier_columns_are_not_the_default():
    df = read_table(io.BytesIO(b"id,user_id,income\n1,7,100\n2,8,200\n"), name="f.csv")
    assert numeric_columns(df) == ["income", "id", "user_id"]


@pytest.mark.parametrize(
    ("cells", "hint", "values", "line"),
    [
        (["1,234", "1,234,567.5", "12"], True, [1.234, 12, 1234567.5], "1 value read with thousands separators"),
        (["1,5", "1.000,50", "2.500", "7"], False, [1.5, 2.5, 7, 1000.5], "2 values read with a decimal comma"),
        (["1,234", "56,000"], True, [1.234, 56], "2 values read with a decimal comma"),
        (["1,234", "56,000"], False, [1234, 56000], "2 values read with thousands separators"),
        (["1.234.567", "3"], False, [3, 1234567], "1 value read with a decimal comma"),
        (["1,2,3", "4"], False, [4], "1 non-numeric cell dropped"),
        (["1,5", "2,500.5"], False, [1.5, 2500.5], "1 value read with a decimal comma"),
        (["0,5", "0.25"], True, [0.25, 0.5], "1 value read with a decimal comma"),
    ],
)  # fmt: skip
def test_commas_are_read_cell_by_cell_and_reported(cells, hint, values, line):
    """Each cell is read on its own: a format only one reading allows (1,5: decimal comma;
    1,234.5: thousands), else the file's delimiter (hint: ';' → decimal comma, so 2.500 is
    2500 there and 2.5 elsewhere); each reading is reported."""
    got, report = clean(pd.Series(cells, dtype=object), upper=1e7, decimal_comma=hint)
    np.testing.assert_allclose(np.sort(got), values, rtol=1e-15)
    assert line in " ".join(report.lines())


CELLS = ["1,234", "20,500", "1,5", "1.234", "1.234,5", "1.234.567", "1,234,567", "1,234.5",
         "2.5", "0,25", "$1,000", "1 000", "7", "-3", "abc", "", "1e3", "12,3456"]  # fmt: skip


@pytest.mark.parametrize("hint", [False, True])
def test_adding_one_cell_never_changes_how_another_is_read(hint):
    """Cleaning is a per-record rule (PRIVACY.md): with formats once chosen per column, one
    added "1,5" turned a column of "1,234" thousands into decimals (privacy audit: an exact loss
    of 201 ε for Identity at ε = 1). Every column of these cells, plus any one cell."""
    for base in (CELLS, ["1,234", "20,500"] * 5, ["1,5", "2,25"] * 5, ["1.234", "2.500"] * 5):
        before = to_numeric(pd.Series(base, dtype=object), decimal_comma=hint).to_numpy()
        for extra in CELLS:
            after = to_numeric(pd.Series([*base, extra], dtype=object), decimal_comma=hint)
            np.testing.assert_array_equal(after.to_numpy()[:-1], before, err_msg=f"+ {extra!r}")


def test_domain_warnings_flag_crowded_bins_and_many_clipped_values():
    from dpsum_core.data.dataset import make_dataset
    from dpsum_core.data.domain import Domain, domain_warnings

    hourly = make_dataset(pd.Series(np.arange(10.0, 60.0)), upper=800_000, name="h", column="w")
    (crowded,) = domain_warnings(hourly, Domain(800_000, 1000))
    assert "fall in 1 of the 1,000 bins" in crowded and "looks far too large" in crowded
    assert "bins too few" not in crowded  # 1,000 bins: U alone is to blame
    assert domain_warnings(hourly, Domain(100, 10)) == []
    clipped = make_dataset(pd.Series(np.arange(1.0, 101.0)), upper=50, name="c", column="v")
    (message,) = domain_warnings(clipped, Domain(50, 10))
    assert "50 records (50.0%) were above U = 50" in message and "too small" in message


def test_the_crowded_warning_gives_the_measured_share_not_the_threshold():
    """Review9 P3: "90% of the records fall in 1 of the 1,000 bins" printed the threshold
    (limits.DOMAIN_CROWDED_RECORDS) for a measured 99.97 %; the share is rounded down."""
    from dpsum_core.data.dataset import make_dataset
    from dpsum_core.data.domain import Domain, domain_warnings

    values = np.concatenate([np.full(950, 20.0), np.linspace(100_000.0, 790_000.0, 50)])
    mostly = make_dataset(pd.Series(values), upper=800_000, name="m", column="w")
    (crowded,) = domain_warnings(mostly, Domain(800_000, 1000))
    assert crowded.startswith("95.0% of the records fall in 1 of the 1,000 bins")
    nearly = make_dataset(pd.Series([*[20.0] * 2999, 700_000.0]), upper=800_000, name="n",
                          column="w")  # fmt: skip
    (crowded,) = domain_warnings(nearly, Domain(800_000, 1000))
    assert crowded.startswith("99.9% of the records")  # 99.97 %: never "100.0%"
    hourly = make_dataset(pd.Series(np.arange(10.0, 60.0)), upper=800_000, name="h", column="w")
    assert domain_warnings(hourly, Domain(800_000, 1000))[0].startswith("all of the records")


def test_with_few_bins_the_crowded_warning_names_the_bins_too():
    """Teacher review: with 3 bins, "U = 800,000 looks far too large" blamed U alone when
    most records fell in one of the 3 bins; so few bins can be the cause."""
    from dpsum_core.data.dataset import make_dataset
    from dpsum_core.data.domain import Domain, domain_warnings

    incomes = make_dataset(pd.Series(np.linspace(1_000.0, 200_000.0, 500)), upper=800_000,
                           name="i", column="v")  # fmt: skip
    (message,) = domain_warnings(incomes, Domain(800_000, 3))
    assert "fall in 1 of the 3 bins: U = 800,000 may be far too large" in message
    assert "or 3 bins too few" in message and "use more bins" in message


def test_values_piled_at_u_give_one_warning_not_two_that_contradict():
    """Issue 25.6: most records clipped into the top bin crowd it; that is U too small, not
    U far too large. A crowd elsewhere with many records clipped still says both."""
    from dpsum_core.data.dataset import make_dataset
    from dpsum_core.data.domain import Domain, domain_warnings

    piled = make_dataset(pd.Series([*range(1, 11), *[5_000.0] * 990]), upper=1000, name="p",
                         column="v")  # fmt: skip
    (message,) = domain_warnings(piled, Domain(1000, 1000))
    assert "too small" in message and "far too large" not in message
    # crowded in the lowest bin, and 5% clipped at U: two separate problems, two warnings
    both = make_dataset(pd.Series([*[0.5] * 950, *[5_000.0] * 50]), upper=1000, name="b",
                        column="v")  # fmt: skip
    texts = " ".join(domain_warnings(both, Domain(1000, 1000)))
    assert "far too large" in texts and "too small" in texts


def test_the_cleaning_report_counts_in_words():
    from dpsum_core.data.cleaning import CleaningReport

    one = CleaningReport(5, 1, 1, 1, 1, 1).lines()
    assert one[1:] == [
        "1 empty or missing (NA) cell dropped.", "1 non-numeric cell dropped.",
        "1 infinite value dropped.", "1 negative value set to 0.", "1 value above U set to U.",
    ]  # fmt: skip
    assert CleaningReport(2_000, 0, 0, 0, 1_234, 0).lines()[1] == "1,234 negative values set to 0."


def test_memory_engine_errors_point_to_duckdb_for_folders_and_globs(tmp_path):
    from dpsum_core.data.reading import load_column

    with pytest.raises(DataError, match=r"is a folder.*--engine duckdb"):
        load_column(tmp_path, upper=1.0)
    with pytest.raises(DataError, match=r"file not found.*glob of files with --engine duckdb"):
        load_column(str(tmp_path / "*.parquet"), upper=1.0)


def test_the_library_reads_a_sample_by_name_from_any_folder(tmp_path, monkeypatch):
    """`load_column("sample:incomes.csv")` and `open_backend(…)` read the shipped sample from
    any folder, as the CLI's `--data sample:NAME` does (the README's example used a path that
    exists only in the checkout)."""
    from dpsum_core import load_column, open_backend

    monkeypatch.chdir(tmp_path)
    data = load_column("sample:incomes_small.csv", upper=800_000)
    assert data.name == "incomes_small.csv" and data.size > 0
    backend = open_backend("sample:incomes_small.csv", upper=800_000)
    assert backend is not None


@pytest.mark.parametrize(
    ("header", "delimiter"),
    [("id,income", ","), ("id;income", ";"), ("id\tincome", "\t"), ("id|income", "|"),
     ('"amount, usd"', "one column"), ("income", "one column"), ("a;b,c;d", ";")],
)  # fmt: skip
def test_the_delimiter_comes_from_the_header_alone(header, delimiter):
    """Sniffed from the first records, one added record could change the delimiter, and with
    it how every record is read (privacy audit): the header, the file's public schema, decides."""
    from dpsum_core.data.reading import ONE_COLUMN, text_delimiter

    expected = ONE_COLUMN if delimiter == "one column" else delimiter
    for rows in ([], ["1;2;3;4;5"] * 20, ["1,2,3,4"] * 20, ['"1,5"|2\t3'] * 3):
        head = "\n".join([header, *rows]).encode()
        assert text_delimiter(head, "f.csv") == expected, rows


@pytest.mark.parametrize("sep", [";", ",", "\t"])
def test_adding_one_record_to_a_file_never_changes_how_another_is_read(sep):
    """The same per-record rule from the file's bytes: pandas typed a ';' file's column of
    "2.500" as numbers (2.5) unless one other cell was not a number, and then the per-cell rule
    read it as 2,500 (second privacy audit: an exact loss of 2·N·ε). Every cell of a column of
    plain numbers, with any one record added."""
    from dpsum_core.data.cleaning import decimal_comma_hint

    def read(cells: list[str]) -> np.ndarray:
        quoted = [f'"{c}"' if sep in c or '"' in c else c for c in cells]
        raw = ("v" + sep + "k\n" + "".join(f"{c}{sep}1\n" for c in quoted)).encode()
        df = read_table(io.BytesIO(raw), name="x.csv")
        return to_numeric(df["v"], decimal_comma=decimal_comma_hint(df)).to_numpy()

    for base in (["2.500", "12.345", "1.5", "7", "-3", "0.25", "1e3"], ["1.234", "2.500"] * 3):
        before = read(base)
        for extra in CELLS:
            np.testing.assert_array_equal(read([*base, extra])[:-1], before,
                                          err_msg=f"{sep!r} + {extra!r}")  # fmt: skip
