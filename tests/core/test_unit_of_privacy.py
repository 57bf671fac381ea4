"""The unit of privacy (issue 16 §2): with a privacy identifier the neighbour is a whole person
(all rows of one identifier, summed before clipping to [0, U]), in every engine."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from dpsum_core.cli import main
from dpsum_core.data.backends import open_backend
from dpsum_core.data.domain import Domain, histogram
from dpsum_core.data.reading import load_column
from dpsum_core.data.summary import MissingStatistics, cut_points
from dpsum_core.errors import DataError
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.truncation.svt import svt_grid
from tests.core.release_files import release_file

from .backend_cases import assert_same_summary, check_run_agrees, person_rows

U = 1000.0
DOMAIN = Domain(U, 20)
CUTS = cut_points(DOMAIN, svt_grid=svt_grid(U, s=50.0, c=1.3), theta=333.3)


def _table(path, *, with_heavy: bool):
    """90 people with 1–3 rows each, and (``with_heavy``) person "heavy" with 40 rows of 0.6·U."""
    rng = np.random.default_rng(5)
    pid = [f"p{i}" for i in rng.integers(0, 90, 200)]
    income = list(np.round(rng.uniform(0, 400, 200), 2))
    if with_heavy:
        pid += ["heavy"] * 40
        income += [0.6 * U] * 40
    pd.DataFrame({"pid": pid, "income": income}).to_csv(path, index=False)
    return path


def _answers(data):
    """Every exact quantity the mechanisms read: prefix sums and counts at many points,
    per-bin sums and counts, and truncated sums for several θ."""
    points = np.linspace(0, U, 401)
    theta = np.array([1.0, 50.0, 333.3, U])
    per_bin_counts = histogram(data, DOMAIN)
    edges_sums = data.sum_at_most(DOMAIN.edges)
    per_bin_sums = np.diff(np.r_[0.0, edges_sums])
    return {
        "sums": data.sum_at_most(points),
        "counts": data.count_at_most(points).astype(float),
        "bin_sums": per_bin_sums,
        "bin_counts": np.asarray(per_bin_counts, float),
        "truncated": data.truncated_sum(points[:, None], theta[None, :]),
    }


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_a_person_with_many_rows_moves_every_answer_by_at_most_u(tmp_path, engine):
    with_p = _table(tmp_path / "with.csv", with_heavy=True)
    without = _table(tmp_path / "without.csv", with_heavy=False)

    def answers(path, id_column):
        backend = open_backend(path, upper=U, column="income", engine=engine, id_column=id_column)
        return _answers(backend.summarize(CUTS))

    a, b = answers(with_p, "pid"), answers(without, "pid")
    for name in ("sums", "bin_sums", "truncated"):
        assert np.max(np.abs(a[name] - b[name])) <= U * (1 + 1e-12), name
    for name in ("counts", "bin_counts"):
        assert np.max(np.abs(a[name] - b[name])) <= 1, name
    # Without the identifier the same 40 rows are 40 neighbours' worth: 24·U.
    a, b = answers(with_p, None), answers(without, None)
    assert np.max(np.abs(a["sums"] - b["sums"])) == pytest.approx(40 * 0.6 * U)
    assert np.max(np.abs(a["counts"] - b["counts"])) == 40


def test_rows_of_one_person_are_summed_before_clipping_and_bad_rows_dropped(tmp_path):
    path = tmp_path / "p.csv"
    pd.DataFrame(
        {
            "pid": ["a", "a", "a", "b", "b", "c", None, "d", "d", "007", "7"],
            "income": ["600", "700", "x", "-50", "20", "", "900", "-5", "-5", "1", "2"],
        }
    ).to_csv(path, index=False)
    data = load_column(path, upper=U, column="income", id_column="pid")
    # a: 600 + 700 = 1300 → U ("x" dropped); b: −50 + 20 = −30 → 0; c: no usable row, left
    # out; d: −10 → 0; the row without an identifier dropped; "007" and "7" are two people.
    assert data.values.tolist() == [0.0, 0.0, 1.0, 2.0, U]
    r = data.report
    assert (r.rows_read, r.rows_kept, r.people) == (11, 8, 5)
    assert (r.dropped_missing_id, r.dropped_non_numeric, r.dropped_missing) == (1, 1, 1)
    assert (r.clipped_below_zero, r.clipped_above_upper) == (2, 1)
    first = r.lines()[0]
    assert "one person = all rows with the same 'pid'" in first and "8 rows → 5 people" in first
    assert "Unit of privacy: one row = one person" in load_column(
        path, upper=U, column="income"
    ).report.lines()[0]


def test_an_unknown_or_value_identifier_is_refused(tmp_path):
    path = _table(tmp_path / "t.csv", with_heavy=False)
    with pytest.raises(DataError, match="no column named 'person'"):
        load_column(path, upper=U, column="income", id_column="person")
    with pytest.raises(DataError, match="is the value column"):
        load_column(path, upper=U, column="income", id_column="income")
    for engine in ("duckdb",):
        with pytest.raises(DataError, match="no column named 'person'"):
            open_backend(path, upper=U, column="income", engine=engine, id_column="person")
        with pytest.raises(DataError, match="is the value column"):
            open_backend(path, upper=U, column="income", engine=engine, id_column="income")


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_memory_and_duckdb_agree_exactly_by_person(tmp_path, kind):
    csv, parquet = person_rows(tmp_path)
    path = csv if kind == "csv" else parquet
    mem = open_backend(path, upper=800_000.0, column="income", id_column="pid")
    duck = open_backend(path, upper=800_000.0, column="income", id_column="pid", engine="duckdb")
    cuts = cut_points(Domain(800_000.0, 100), theta=12_345.67)
    a, b = mem.summarize(cuts), duck.summarize(cuts)
    assert_same_summary(a, b)
    assert a.report.people and a.report.people < a.report.rows_kept
    assert a.report.dropped_missing_id == 20  # empty, NA and blank identifiers
    # Second passes (counts at drawn points, order statistics) read the people too.
    missing = MissingStatistics(np.array([10.5, 5000.0, 79_999.99]), np.array([0, 3, 50]))
    assert_same_summary(mem.extend(a, missing), duck.extend(b, missing))


def test_a_run_by_person_equals_the_memory_run(tmp_path):
    _, parquet = person_rows(tmp_path)
    config = ExperimentConfig(
        upper=800_000.0, truncations=("none", "svt", "recursive"), trials=3, seed=2
    )
    duck = open_backend(parquet, upper=800_000.0, column="income", id_column="pid", engine="duckdb")
    check_run_agrees(duck, parquet, config, column="income", id_column="pid")


# ----------------------------------------------------------------------------------------------
# CLI
# ----------------------------------------------------------------------------------------------
def test_cli_run_and_release_by_person_state_the_unit(tmp_path, capsys):
    path = _table(tmp_path / "t.csv", with_heavy=True)
    common = ["--data", str(path), "--column", "income", "--id-column", "pid", "--upper", "1000"]
    assert main(["run", *common, "--bins", "20", "--trials", "2", "--out", str(tmp_path / "r")]) == 0
    info = json.loads((tmp_path / "r" / "run.json").read_text())
    assert info["dataset"]["id_column"] == "pid"
    assert info["dataset"]["unit_of_privacy"] == "one person = all rows with the same 'pid'"
    people = pd.read_csv(path).pid.nunique()
    assert info["dataset"]["cleaning"]["people"] == people
    out = tmp_path / "rel"
    code = main(["release", *common, "--bins", "20", "--algorithm", "identity",
                 "--truncation", "none", "--out", str(out)])  # fmt: skip
    assert code == 0
    record = json.loads(release_file(out, "release.json").read_text())
    assert record["unit_of_privacy"] == "one person = all rows with the same 'pid'"
    assert record["id_column"] == "pid"
    report = release_file(out, "report.md").read_text()
    assert "one person = all rows with the same 'pid'" in report and "--id-column pid" in report
    # The number of people is private: never in release.json nor in the report's text.
    # (as a number of its own: a file name's random id or a time may hold the same digits)
    count = re.compile(rf"(?<![\w.:/-]){people:,}(?![\w.:/-])")
    assert "people" not in json.dumps(record) and not count.search(report.split("## Answers")[0])
    assert "one person = all rows with the same 'pid'" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("id_column", "message"),
    [("person", "no column named 'person'"), ("income", "is the value column")],
)
@pytest.mark.parametrize("command", ["run", "release"])
def test_cli_refuses_a_bad_identifier_in_one_line(tmp_path, capsys, command, id_column, message):
    path = _table(tmp_path / "t.csv", with_heavy=False)
    extra = ["--algorithm", "identity", "--truncation", "none"] if command == "release" else []
    code = main([command, "--data", str(path), "--column", "income", "--id-column", id_column,
                 "--upper", "1000", *extra, "--out", str(tmp_path / "o")])  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and message in err[0]


def test_cli_duckdb_run_by_person_refuses_an_unknown_identifier(tmp_path, capsys):
    path = _table(tmp_path / "t.csv", with_heavy=False)
    code = main(["run", "--engine", "duckdb", "--data", str(path), "--column", "income",
                 "--id-column", "nobody", "--upper", "1000", "--out", str(tmp_path / "o")])  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "nobody" in err[0]


def test_duckdb_groups_people_inside_the_engine_and_fetches_aggregates_only(tmp_path, monkeypatch):
    """No query of a summary by person returns a row per person or per record: only the
    intervals' aggregates, the report's counts and the top-k values reach Python."""
    from dpsum_core import limits

    monkeypatch.setattr(limits, "SUMMARY_TOP_K", 20)
    _, parquet = person_rows(tmp_path)
    backend = open_backend(parquet, upper=800_000.0, column="income", id_column="pid",
                           engine="duckdb")  # fmt: skip
    sizes = []
    query = backend.query

    def counted(sql):
        rows = query(sql)
        sizes.append(len(rows))
        return rows

    monkeypatch.setattr(backend, "query", counted)
    cuts = cut_points(Domain(800_000.0, 10))
    summary = backend.summarize(cuts)
    assert summary.report.people > 300
    assert sizes and max(sizes) <= max(cuts.all.size + 5, 20)
