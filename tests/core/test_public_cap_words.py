"""A ClampShells release with a public cap says one thing about θ: it comes from the stated
cap, no ε spent locating it (never "spends a quarter of ε locating" beside "ε_θ = 0")."""

from __future__ import annotations

from pathlib import Path

from dpsum_core.cli import main
from tests.core.release_files import release_file

ROOT = Path(__file__).resolve().parents[2]
SMALL = str(ROOT / "sample_data" / "incomes_small.csv")
LOCATING = ("quarter of ε locating", "located privately by the algorithm",
            "with its own share of ε", "θ located by the algorithm")  # fmt: skip


def _release(out: Path, *cap: str) -> str:
    assert main(["release", "--data", SMALL, "--workload", "Q3", "--epsilon", "0.5",
                 "--algorithm", "clampshells", *cap, "--one-row-per-person",
                 "--out", str(out)]) == 0  # fmt: skip
    return release_file(out, "report.md").read_text()


def test_with_a_public_cap_every_line_says_theta_comes_from_it(tmp_path, capsys):
    report = _release(tmp_path / "cap", "--public-cap", "400000")
    said = capsys.readouterr().out
    for words in LOCATING:
        assert words not in report and words not in said, words
    assert "- **Truncation**: θ from the stated public cap, no ε spent locating it." in report
    assert "at or above the stated public cap (no ε spent locating it)" in report
    assert "truncation: θ from the public cap," in said


def test_without_a_cap_clampshells_still_says_it_locates_theta(tmp_path, capsys):
    report = _release(tmp_path / "plain")
    assert "spends a quarter of ε locating" in report and "public cap" not in report
    assert "truncation: θ located by the algorithm," in capsys.readouterr().out
