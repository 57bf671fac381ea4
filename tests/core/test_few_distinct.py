"""Review 9 P2-6: the rule that makes a column with few distinct values a category, not
people (at most √n distinct values over n cells), as one function: the identifier judgement
uses it, and the dashboard's caution on an identifier chosen by hand."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from dpsum_core.data.identifiers import few_distinct, looks_like_identifier


@pytest.mark.parametrize(("distinct", "cells", "few"), [
    (4, 3000, True),  # 'school': 3,000 rows → 4 people
    (54, 3000, True), (55, 3000, False),  # √3,000 ≈ 54.8
    (63, 4000, True), (64, 4000, False),  # README: over 63 distinct codes at 4,000 rows
    (2, 4, True), (3, 4, False),
    (1, 1, False), (0, 0, False),  # one row is one person, not a category
])  # fmt: skip
def test_at_most_the_square_root_of_the_rows_is_a_category(distinct, cells, few):
    assert few_distinct(distinct, cells) is few
    if cells >= 2:
        assert few == (distinct <= math.sqrt(cells))


@pytest.mark.parametrize("distinct", [54, 55])
def test_the_identifier_judgement_follows_the_same_rule(distinct):
    """Text codes, each repeated: an identifier exactly when they are not few."""
    codes = pd.Series([f"P{i % distinct}" for i in range(3000)])
    assert looks_like_identifier(codes) is not few_distinct(distinct, 3000)
