"""User-facing counts in proper English: "1 record was", "2 records were", never "(s)"."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dpsum_core.data.cleaning import clean
from dpsum_core.data.dataset import make_dataset
from dpsum_core.data.domain import Domain, domain_warnings
from dpsum_core.data.summary import MissingStatistics
from dpsum_core.errors import ParameterError
from dpsum_core.publish.ledger import Ledger
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.text import counted, noun
from dpsum_core.truncation.params import TruncationParams


def test_noun_and_counted_agree_with_the_number():
    assert [noun(n, "key") for n in (0, 1, 2)] == ["keys", "key", "keys"]
    assert counted(1, "person", "people") == "1 person"
    assert counted(2_000, "person", "people") == "2,000 people"


@pytest.mark.parametrize(("clipped", "expected"), [
    (1, "1 record (1.5%) was above U = 50 and was set to U"),
    (2, "2 records (3.0%) were above U = 50 and were set to U"),
])  # fmt: skip
def test_clipping_warning_agrees_with_the_count(clipped, expected):
    values = np.r_[np.linspace(1.0, 49.0, 66 - clipped), np.full(clipped, 80.0)]
    data = make_dataset(pd.Series(values), upper=50, name="c", column="v")
    (message,) = domain_warnings(data, Domain(50, 10))
    assert expected in message, message


def test_ledger_refusal_counts_one_release_in_the_singular():
    book = Ledger(releases=({"epsilon": 0.5},), total=0.6)
    with pytest.raises(ParameterError) as refused:
        book.check(0.5)
    message = str(refused.value)
    assert "(1 release recorded)" in message and "(s)" not in message


def test_missing_statistics_count_one_point_in_the_singular():
    message = str(MissingStatistics(np.array([5.0]), np.array([3, 4])))
    assert "at 1 point (e.g. 5)" in message and "2 order statistics below" in message


def test_cleaning_report_counts_one_row_in_the_singular():
    _, report = clean(pd.Series(["1,5"], dtype=object), upper=10, decimal_comma=True)
    text = " ".join(report.lines())
    assert "1 row read, 1 kept." in text and "1 value read with a decimal comma" in text


@pytest.mark.parametrize(("data", "expected"), [
    ({"colour": 1}, "unknown configuration key: colour"),
    ({"colour": 1, "size": 2}, "unknown configuration keys: colour, size"),
    ({"truncation_params": {"svt_q": 1}}, "unknown truncation parameter: svt_q"),
])  # fmt: skip
def test_unknown_names_are_counted_in_the_singular_or_plural(data, expected):
    with pytest.raises(ParameterError, match=expected):
        ExperimentConfig.from_dict(data)
    with pytest.raises(TypeError, match="unknown truncation parameters: a, b"):
        TruncationParams(a=1, b=2)


def test_one_query_is_one_query_in_the_report_and_the_target():
    from dpsum_core.publish.report import theta_words
    from dpsum_core.simulate.decision import target_sentence

    assert "at 1 query θ is U or above" in theta_words([5.0, 10.0], 10.0)
    assert "at 2 queries θ is U" in theta_words([10.0, 12.0], 10.0)
    assert target_sentence(0.05, 0.0, 1, 1).endswith("(1 of 1 query).")
