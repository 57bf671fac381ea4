"""Custodian review P2-3: one warning for a large ε, said wherever ε is chosen or spent (the
explorer, the Release page, `dpsum release`), its numbers never in e-notation."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dpsum_core.cli import main
from dpsum_core.text import EPSILON_LARGE, large_epsilon, odds_factor

ROOT = Path(__file__).resolve().parents[2]
SMALL = str(ROOT / "sample_data" / "incomes_small.csv")
EXPONENT = re.compile(r"\d[eE][+-]?\d")


@pytest.mark.parametrize(
    ("epsilon", "text"),
    [(0.01, "1.01"), (1, "2.72"), (2, "7.39"), (4.7, "110"), (10, "22,026"),
     (20, "485,165,195"), (100, "e^100, more than a billion")],
)  # fmt: skip
def test_the_odds_factor_is_written_out(epsilon, text):
    assert odds_factor(epsilon) == text


def test_a_large_epsilon_is_said_from_above_two_only():
    assert large_epsilon(EPSILON_LARGE) is None and large_epsilon(0.5) is None
    assert large_epsilon(10) == (
        "ε = 10 is large: one person can change the odds of a result by a factor of up to "
        "22,026, which protects little"
    )
    for epsilon in (2.5, 10, 30, 100):
        assert not EXPONENT.search(large_epsilon(epsilon) or ""), epsilon


def test_the_explorers_sentence_has_no_exponent():
    from dpsum_ui.present import epsilon_sentence, epsilon_warning

    sentence = epsilon_sentence(10)
    assert "e^ε ≈ 22,026 (22,026 times)" in sentence and not EXPONENT.search(sentence)
    assert epsilon_warning(10) == (
        f"{large_epsilon(10)}. Use it to see how accuracy behaves, not to publish."
    )


def _release(tmp_path, epsilon: str) -> int:
    return main(["release", "--data", SMALL, "--workload", "Q3", "--algorithm", "identity",
                 "--truncation", "none", "--epsilon", epsilon, "--out", str(tmp_path)])  # fmt: skip


def test_dpsum_release_warns_in_one_line_and_still_releases(tmp_path, capsys):
    assert _release(tmp_path / "a", "10") == 0
    captured = capsys.readouterr()
    (line,) = [x for x in captured.err.splitlines() if "is large" in x]
    assert line == f"dpsum: warning: {large_epsilon(10)}; released all the same."
    assert captured.out.startswith("released 10 private answers")
    assert _release(tmp_path / "b", "1") == 0
    assert "is large" not in capsys.readouterr().err
