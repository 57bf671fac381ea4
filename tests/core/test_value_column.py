"""The default value column and what looks like codes of people (custodian review P1-2, P2-4):
a job number within each person is not the default even with rows shuffled and most people
holding one row, a column of few small integers (a count) loses to an amount, a release refuses
to guess among several possible value columns, and a wage column with a few words in it is not
taken for codes of people."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpsum_core.cli import main
from dpsum_core.data.identifiers import looks_like_identifier
from dpsum_core.data.reading import inspect_table
from tests.core.release_files import release_file

BAD_CELLS = ["", "n/a", "refused", "?", "unknown"]


def survey(tmp_path: Path, *, people: int = 3000, shuffle: bool = True, seed: int = 3) -> Path:
    """A survey of hourly wages: ``person_id`` text codes, ``job_no`` = 1..k within each person
    (55 % of people with one job), ``hourly_wage`` decimals with a few words in it; the rows
    shuffled (as the reviewer's file) or sorted by person."""
    rng = np.random.default_rng(seed)
    sizes = rng.choice([1, 2, 3, 4], size=people, p=[0.55, 0.30, 0.10, 0.05])
    person = np.repeat([f"P{i:06d}" for i in range(people)], sizes)
    job = np.concatenate([np.arange(1, s + 1) for s in sizes])
    wage = np.round(rng.lognormal(np.log(20), 0.5, person.size), 2).astype(object)
    wage[rng.choice(person.size, len(BAD_CELLS), replace=False)] = BAD_CELLS
    frame = pd.DataFrame({"person_id": person, "job_no": job, "hourly_wage": wage})
    if shuffle:
        frame = frame.sample(frac=1.0, random_state=seed)
    path = tmp_path / "survey.csv"
    frame.to_csv(path, index=False)
    return path


def counts(tmp_path: Path) -> Path:
    """One row per person: ``children`` (0..4, first and fully numeric) and ``income``."""
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"children": rng.integers(0, 5, 2000),
                          "income": np.round(rng.lognormal(10, 1, 2000), 2)})  # fmt: skip
    path = tmp_path / "counts.csv"
    frame.to_csv(path, index=False)
    return path


# -- P1-2: the default value column -------------------------------------------------------------
@pytest.mark.parametrize("shuffle", [True, False])
@pytest.mark.parametrize("id_column", [None, "person_id"])
def test_a_job_number_is_not_the_default_value_column(tmp_path, shuffle, id_column):
    path = survey(tmp_path, shuffle=shuffle)
    head = inspect_table(path, id_column=id_column) if id_column else inspect_table(path)
    assert head.default_column(id_column) == "hourly_wage"  # old: job_no
    assert head.candidates == ("hourly_wage", "job_no")
    assert "index" in dict(head.skipped)["job_no"]
    # an index within a person can never be the value column: it is not even a choice
    assert head.not_values == ("job_no",) and head.choices(id_column) == ("hourly_wage",)


def test_a_count_loses_to_an_amount_but_stays_a_choice(tmp_path):
    head = inspect_table(counts(tmp_path))
    assert head.default_column() == "income"  # old: children (as numeric, and first)
    assert "only 5 distinct integers (0..4)" in dict(head.skipped)["children"]
    assert head.not_values == () and head.choices() == ("income", "children")


def test_a_lone_count_is_still_the_default(tmp_path):
    path = tmp_path / "visits.csv"
    pd.DataFrame({"visits": np.random.default_rng(1).integers(0, 5, 500)}).to_csv(path, index=False)
    head = inspect_table(path)
    assert head.default_column() == "visits" and head.skipped == ()


# -- P1-2: a release does not guess; second audit: nor from the first rows -----------------------
RELEASE = ["release", "--upper", "200000", "--bins", "16", "--workload", "Q1",
           "--algorithm", "tamm", "--truncation", "svt", "--one-row-per-person"]  # fmt: skip


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_a_release_refuses_to_guess_among_several_value_columns(tmp_path, capsys, engine):
    out = tmp_path / "out"
    code = main([*RELEASE, "--data", str(counts(tmp_path)), "--engine", engine,
                 "--out", str(out)])  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err  # old: 0, a release of the sums of 'income'
    assert "never chooses its value column from the data" in err[0]
    assert err[0].endswith("pass --column NAME") and not out.exists()


def test_a_release_with_column_and_a_run_without_it_go_on(tmp_path, capsys):
    path = counts(tmp_path)
    argv = [*RELEASE, "--data", str(path), "--column", "children", "--out", str(tmp_path / "r")]
    assert main(argv) == 0
    assert json.loads(release_file(tmp_path / "r", "release.json").read_text())["column"] == (
        "children"
    )
    code = main(["run", "--data", str(path), "--upper", "200000", "--bins", "16", "--trials",
                 "2", "--workload", "Q1", "--out", str(tmp_path / "o")])  # fmt: skip
    assert code == 0
    assert "value column 'income' chosen by default" in capsys.readouterr().out


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_one_record_never_changes_which_column_a_release_reads(tmp_path, capsys, engine):
    """Second privacy audit (P1-2): the default value column was judged on the first 1,000
    rows, so removing the first record changed the released column ('b' → 'a'), and the unit
    check's refusal flipped the same way. A release of several columns now names its column
    and its unit, and a file and its neighbour give the same outcome."""
    rng = np.random.default_rng(5)
    rows = pd.DataFrame({"a": rng.integers(0, 50_000, 1_500), "b": rng.integers(0, 50_000, 1_500)})
    full, less = tmp_path / "d.csv", tmp_path / "d_minus_one.csv"
    rows.to_csv(full, index=False)
    rows.iloc[1:].to_csv(less, index=False)
    base = ["release", "--upper", "50000", "--bins", "16", "--workload", "Q1", "--algorithm",
            "tamm", "--truncation", "svt", "--engine", engine]  # fmt: skip
    outcomes = []
    for path in (full, less):
        for extra in ([], ["--one-row-per-person"], ["--column", "b"]):
            code = main([*base, *extra, "--data", str(path), "--out", str(tmp_path / "x")])
            outcomes.append((code, capsys.readouterr().err.strip()))
    assert outcomes[:3] == outcomes[3:]
    assert [code for code, _ in outcomes[:3]] == [2, 2, 2]
    assert "pass --column NAME" in outcomes[1][1]
    assert "--id-column NAME" in outcomes[2][1] and "--one-row-per-person" in outcomes[2][1]
    for path in (full, less):
        out = tmp_path / path.stem
        code = main([*base, "--column", "b", "--one-row-per-person", "--data", str(path),
                     "--out", str(out)])  # fmt: skip
        assert code == 0
        assert json.loads(release_file(out, "release.json").read_text())["column"] == "b"


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_a_release_by_person_names_its_value_column(tmp_path, capsys, engine):
    common = ["release", "--data", str(survey(tmp_path)), "--id-column", "person_id",
              "--engine", engine, "--upper", "200", "--bins", "20", "--workload", "Q1",
              "--algorithm", "tamm", "--truncation", "svt"]  # fmt: skip
    assert main([*common, "--out", str(tmp_path / "no")]) == 2
    assert "pass --column NAME" in capsys.readouterr().err
    out = tmp_path / "out"
    assert main([*common, "--column", "hourly_wage", "--out", str(out)]) == 0
    assert json.loads(release_file(out, "release.json").read_text())["column"] == "hourly_wage"


# -- P2-4: a few words in a column of numbers are not codes ---------------------------------------
@pytest.mark.parametrize(
    ("cells", "looks"),
    [
        # 9 words among 4,000 wages (0.2 %): numbers, not codes of people (old: True)
        ([*np.round(np.random.default_rng(2).lognormal(3, 0.5, 3991), 2), *BAD_CELLS,
          *BAD_CELLS[:4]], False),
        # integer codes of people with a few "n/a": still codes
        ([*(i // 4 for i in range(3990)), *["n/a"] * 10], True),
        # text codes with 2 % of them numbers: still codes
        ([*(f"P{i // 4}" for i in range(3920)), *(str(i // 4) for i in range(80))], True),
    ],
)
def test_a_mostly_numeric_column_is_judged_on_its_numbers(cells, looks):
    assert looks_like_identifier(pd.Series(cells, dtype=object)) is looks
