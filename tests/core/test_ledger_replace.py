"""Custodian review P1-1 and P3: a ledger that already records releases is replaced only by one
that records every one of them (:func:`missing_releases`), the CLI's ``--ledger`` only ever
appends, and a ledger's total ε has a public upper limit."""

from __future__ import annotations

from pathlib import Path

import pytest

from dpsum_core import limits
from dpsum_core.cli import main
from dpsum_core.errors import ParameterError
from dpsum_core.publish import ledger
from dpsum_core.publish.ledger import Ledger, check_total, missing_releases

ROOT = Path(__file__).resolve().parents[2]
SMALL = str(ROOT / "sample_data" / "incomes_small.csv")


def _entry(created: str, epsilon: float = 1.0, algorithm: str = "clampshells", **other) -> dict:
    return {"created": created, "epsilon": epsilon, "algorithm": algorithm, "data": "d.csv",
            "column": "income", "id_column": None, **other}  # fmt: skip


def _book(*entries: dict, total: float | None = 2.0) -> Ledger:
    return Ledger(releases=tuple(entries), total=total)


A = _entry("2026-11-27T08:25:45+00:00")
B = _entry("2026-11-27T08:26:26+00:00", 1.5, "tamm")


def test_a_ledger_that_extends_the_sessions_lacks_nothing():
    assert missing_releases(_book(A), _book(A, B, total=100.0)) == ()
    assert missing_releases(_book(), _book(B)) == ()  # nothing recorded: anything loads
    assert missing_releases(_book(A, B), _book(B, A)) == ()  # order is not identity


def test_a_ledger_without_the_sessions_release_names_it():
    """The review's case: the CLI's own ledger (two other releases) lacks the session's one."""
    other = _book(_entry("2026-11-27T08:26:26+00:00"), _entry("2026-11-27T08:28:27+00:00", 1.5))
    assert missing_releases(_book(A), other) == (A,)


@pytest.mark.parametrize(
    "changed",
    [
        {"created": "2026-11-27T08:25:46+00:00"},
        {"epsilon": 1.0000001},
        {"algorithm": "tamm"},
        {"data": "other.csv"},
        {"column": "hours"},
        {"id_column": "person"},
    ],
)
def test_each_field_of_a_release_tells_it_apart(changed):
    assert missing_releases(_book(A), _book({**A, **changed})) == (A,)


def test_equal_releases_are_counted_and_epsilon_compared_as_a_decimal():
    # two releases in the same second with the same settings: both must be there
    assert missing_releases(_book(A, A), _book(A)) == (A,)
    assert missing_releases(_book(A, A), _book(A, B, A)) == ()
    # 1 and 1.0 are the same ε (JSON may spell it either way); the config is not compared
    assert missing_releases(_book(A), _book({**A, "epsilon": 1, "config": {"x": 1}})) == ()


def test_a_damaged_field_does_not_crash_the_comparison():
    odd = {**A, "created": ["not", "a", "time"], "column": {"a": 1}}
    assert missing_releases(_book(odd), _book(A)) == (odd,)
    assert missing_releases(_book(odd), _book(A, odd)) == ()


def test_the_cli_ledger_only_ever_appends(tmp_path):
    """`dpsum release --ledger` reads the file and appends: a ledger it extends (e.g. one the
    Release page let the custodian download) keeps every earlier release as it was."""
    book = tmp_path / "ledger.json"
    argv = ["release", "--data", SMALL, "--workload", "Q3", "--algorithm", "identity",
            "--truncation", "none", "--epsilon", "0.25", "--ledger", str(book)]  # fmt: skip
    assert main([*argv, "--budget", "1", "--out", str(tmp_path / "a")]) == 0
    first = ledger.load(book)
    assert main([*argv, "--out", str(tmp_path / "b")]) == 0
    second = ledger.load(book)
    assert len(first.releases) == 1 and len(second.releases) == 2
    assert second.releases[0] == first.releases[0]
    assert missing_releases(first, second) == ()
    assert missing_releases(second, first) == (second.releases[1],)


def test_a_total_above_the_limit_is_refused_in_one_line_without_an_exponent(tmp_path, capsys):
    assert check_total(limits.EPSILON_TOTAL_MAX) == limits.EPSILON_TOTAL_MAX
    with pytest.raises(ParameterError) as info:
        Ledger().with_total(1e9)
    message = str(info.value)
    assert "at most 1,000" in message and "got 1,000,000,000" in message
    assert "e+" not in message and "\n" not in message
    with pytest.raises(ParameterError, match="at most 1,000"):
        Ledger(total=100.0).with_total(1e9, raise_total=True)  # a raise is capped too
    with pytest.raises(ParameterError, match="at most 1,000"):
        Ledger().check(0.1, total=1e9)
    # the CLI refuses --budget above it with one line and exit code 2, before reading the data
    book = tmp_path / "ledger.json"
    code = main(["release", "--data", str(tmp_path / "absent.csv"), "--workload", "Q3",
                 "--algorithm", "identity", "--truncation", "none", "--epsilon", "1",
                 "--ledger", str(book), "--budget", "1e9", "--out", str(tmp_path / "o")])  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert "at most 1,000" in err[0] and "1,000,000,000" in err[0] and "e+" not in err[0]
    assert not book.exists()
