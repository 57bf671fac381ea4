"""Judging a table's columns reads each column as numbers once (speed9): the rules (identifier,
row number, count, amount) used to re-read the same 45,000 cells four or five times, most of
the time of the dashboard's first page on a fresh server; the judgement itself is unchanged
(tests/core/test_identifier_columns.py and test_value_column.py hold its rules)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpsum_core.data import identifiers
from dpsum_core.data.cleaning import column_ranking
from dpsum_core.data.reading import read_table

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "incomes.csv"


@pytest.fixture
def readings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of every column read as numbers (``identifiers._numbers``) from now on."""
    sizes: list[int] = []
    read = identifiers._numbers

    def counted(cells: pd.Series, *, written: bool = False) -> pd.Series:
        sizes.append(len(cells))
        return read(cells, written=written)

    monkeypatch.setattr(identifiers, "_numbers", counted)
    return sizes


def test_the_sample_data_is_read_as_numbers_once(readings: list[int]) -> None:
    table = read_table(SAMPLE, name="incomes.csv")
    ranked, judged = column_ranking(table)
    assert ranked == ["income"] and judged == identifiers.Judged()
    assert readings == [len(table)]  # was five readings of the 45,000 cells


def test_a_count_beside_an_amount_reads_each_column_at_most_twice(readings: list[int]) -> None:
    rng = np.random.default_rng(9)
    rows = 2000
    table = pd.DataFrame({
        "children": rng.integers(0, 5, rows),  # a count: few distinct integers
        "wage": np.round(rng.lognormal(3, 0.5, rows), 2),  # the amount
        "code": [f"P{i // 4}" for i in range(rows)],  # people's codes, four rows each
    })  # fmt: skip
    judged = identifiers.judge_columns(table, ["wage", "children"])
    assert dict(judged.skipped) == {
        "children": "only 5 distinct integers (0..4) in its first 2,000 rows: a count, an "
        "index or a code rather than an amount"
    }
    assert judged.indexes == ("children",) and judged.not_values == ()
    # once per column, and the amount once more for its distinct numbers (was 6 readings)
    assert len(readings) <= len(table.columns) + 1
