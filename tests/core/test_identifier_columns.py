"""Identifiers and the unit of privacy in the CLI and the engine (new-user review): the clipping
warning counts people when there is an identifier, a release beside a column that looks like
codes of people needs an explicit unit, the default column skips row numbers and identifiers,
and a category (few distinct values) is not an identifier."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpsum_core.cli import main
from dpsum_core.data.backends import open_backend
from dpsum_core.data.domain import Domain, domain_warnings
from dpsum_core.data.identifiers import judge_columns, looks_like_identifier
from dpsum_core.data.reading import inspect_table

U = 200.0


def clipped_people(tmp_path: Path) -> Path:
    """100 people × 40 rows of 0.1·(1 + person mod 45) (totals 4 to 180), except 3 people whose
    rows are 10.0 (totals 400 > U): 3 % of the people are clipped, 0.075 % of the rows."""
    person = np.repeat(np.arange(100), 40)
    wage = np.where(person < 3, 10.0, 0.1 * (1 + person % 45))
    path = tmp_path / "people.csv"
    pd.DataFrame({"person_id": person, "wage": wage}).to_csv(path, index=False)
    return path


def jobs(tmp_path: Path, *, people: int = 300) -> Path:
    """A per-person file: ``worker`` numbers the rows, ``person_id`` repeats, ``job`` numbers
    each person's rows, ``state`` is a category, ``hourly_wage`` the value."""
    rng = np.random.default_rng(5)
    sizes = rng.integers(1, 8, people)
    person = np.repeat(np.arange(people), sizes)
    job = np.concatenate([np.arange(s) for s in sizes])
    frame = pd.DataFrame({
        "worker": np.arange(person.size),
        "person_id": person,
        "job": job,
        "state": np.array(["CA", "NY", "TX"])[person % 3],
        "hourly_wage": np.round(rng.lognormal(3.3, 0.5, person.size), 2),
    })  # fmt: skip
    path = tmp_path / "jobs.csv"
    frame.to_csv(path, index=False)
    return path


# -- 1. the clipping warning counts the unit of privacy ---------------------------------------
def _data(path: Path, engine: str, domain: Domain, id_column: str | None = "person_id"):
    """The cleaned column in memory, or the engine's summary at the domain's edges."""
    from dpsum_core.data.reading import load_column
    from dpsum_core.data.summary import CutPoints

    if engine == "memory":
        return load_column(path, upper=domain.upper, column="wage", id_column=id_column)
    backend = open_backend(path, upper=domain.upper, column="wage", id_column=id_column,
                           engine=engine)  # fmt: skip
    return backend.summarize(CutPoints(domain))


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_the_clipping_warning_counts_people_not_rows(tmp_path, engine):
    domain = Domain(U, 10)
    (message,) = domain_warnings(_data(clipped_people(tmp_path), engine, domain), domain)
    # old: 3 clipped of 4,000 rows is under 1 %, no warning at all
    assert message.startswith("3 people (3.0%) had a total (all their rows summed) above U = 200")


def test_memory_and_duckdb_warn_alike_and_rows_say_records(tmp_path):
    path = clipped_people(tmp_path)
    domain = Domain(5.0, 10)
    for id_column, start in (("person_id", "98 people (98.0%)"), (None, "120 records (3.0%)")):
        texts = domain_warnings(_data(path, "memory", domain, id_column), domain)
        assert texts == domain_warnings(_data(path, "duckdb", domain, id_column), domain)
        assert texts[-1].startswith(start), texts


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_a_release_by_person_warns_of_clipped_people_on_stderr_only(tmp_path, capsys, engine):
    path, out = clipped_people(tmp_path), tmp_path / "out"
    code = main(["release", "--data", str(path), "--engine", engine, "--column", "wage",
                 "--id-column", "person_id", "--upper", "200", "--bins", "10", "--workload", "Q1",
                 "--algorithm", "tamm", "--truncation", "svt", "--out", str(out)])  # fmt: skip
    printed = capsys.readouterr()
    assert code == 0
    assert ("dpsum: warning (not for publication, computed without noise): 3 people (3.0%) had "
            "a total") in printed.err  # old: no warning; then unmarked (statistician's review)
    published = " ".join(p.read_text() for p in out.iterdir())
    assert "people (" not in printed.out + published  # the counts stay private


# -- 2. one row = one person is chosen explicitly ---------------------------------------------
RELEASE = ["release", "--algorithm", "tamm", "--truncation", "svt", "--workload", "Q1",
           "--bins", "16", "--upper", "200", "--column", "hourly_wage"]  # fmt: skip


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_a_release_of_several_columns_declares_its_unit_in_one_line(tmp_path, capsys, engine):
    # Once refused only beside a column judged on the first rows to hold codes of people: a
    # refusal one record could flip (second privacy audit). Now every release of several
    # columns says what one person is.
    path = jobs(tmp_path)
    out = tmp_path / "out"
    code = main([*RELEASE, "--data", str(path), "--engine", engine, "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert "say what one person is before releasing" in err[0]
    assert "--id-column NAME" in err[0] and "--one-row-per-person" in err[0]
    assert not out.exists()


@pytest.mark.parametrize("flag", [["--one-row-per-person"], ["--id-column", "person_id"]])
def test_an_explicit_unit_releases(tmp_path, capsys, flag):
    path = jobs(tmp_path)
    assert main([*RELEASE, "--data", str(path), *flag, "--out", str(tmp_path / "o")]) == 0
    assert "look like codes of people" not in capsys.readouterr().err


def test_run_warns_and_runs(tmp_path, capsys):
    path = jobs(tmp_path)
    code = main(["run", "--data", str(path), "--column", "hourly_wage", "--upper", "200",
                 "--bins", "16", "--workload", "Q1", "--trials", "2", "--out", str(tmp_path / "o")])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 0
    assert "dpsum: warning: column 'person_id' repeats values that look like codes" in err


# -- 3. the default column ---------------------------------------------------------------------
def test_the_default_column_skips_row_numbers_identifiers_and_indexes(tmp_path):
    head = inspect_table(jobs(tmp_path))
    assert head.candidates[0] == "hourly_wage"  # old: worker (the most numeric, first)
    skipped = dict(head.skipped)
    assert set(skipped) == {"worker", "person_id", "job"}
    assert "row number" in skipped["worker"] and "index" in skipped["job"]


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_the_cli_says_which_column_it_chose_and_why(tmp_path, capsys, engine):
    path = jobs(tmp_path)
    code = main(["run", "--data", str(path), "--engine", engine, "--upper", "200", "--bins", "16",
                 "--workload", "Q1", "--trials", "2", "--one-row-per-person",
                 "--out", str(tmp_path / "o")])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert "value column 'hourly_wage' chosen by default" in out
    assert "skipped 'worker'" in out and "'job'" in out and "--column" in out
    assert "column 'hourly_wage':" in out  # the cleaning report of the chosen column


def test_a_per_person_index_is_found_beside_the_given_identifier():
    frame = pd.DataFrame({"pid": ["a", "a", "b", "b", "b", "c", "d", "d"],
                          "k": [1, 2, 1, 2, 3, 1, 2, 1],
                          "amount": [3, 5, 8, 1, 2, 4, 9, 7]})  # fmt: skip
    judged = judge_columns(frame, ["k", "amount"], id_column="pid")
    assert set(dict(judged.skipped)) == {"k"} and judged.not_values == ("k",)


def test_amounts_in_whole_units_are_not_skipped(tmp_path):
    head = inspect_table(Path(__file__).parents[2] / "sample_data" / "incomes.csv")
    assert head.candidates == ("income",) and head.skipped == ()


# -- 4. a category is not an identifier -------------------------------------------------------
@pytest.mark.parametrize(
    ("cells", "looks"),
    [
        (["CA", "NY", "TX"] * 1334, False),  # 3 states over 4,002 rows: a category
        (list(range(8)) * 500, False),  # a job index 0–7: a category
        ([f"P{i // 5}" for i in range(4000)], True),  # 800 people × 5 rows
        ([i // 5 for i in range(4000)], True),  # the same as integer codes
        ([*range(3990), 7, 9, 11, 13, 15, 17, 19, 21, 23, 25], False),  # whole amounts, by chance
    ],
)
def test_a_category_is_not_an_identifier(cells, looks):
    assert looks_like_identifier(pd.Series(cells)) is looks


def test_a_parquet_file_skips_the_same_columns(tmp_path):
    csv = jobs(tmp_path)
    parquet = tmp_path / "jobs.parquet"
    pd.read_csv(csv).to_parquet(parquet)
    head, text = inspect_table(parquet), inspect_table(csv)
    assert head.candidates[0] == "hourly_wage" and dict(head.skipped) == dict(text.skipped)
