"""One recommendation sentence on Decide, the Release page and the CLI (review 9, P3: each
surface worded it differently, 60–100 words, and the Release page quoted Q2's benchmark cells
for a Q1 release)."""

from __future__ import annotations

from pathlib import Path

from app_helpers import assert_clean, new_app

from dpsum_core.cli import main
from dpsum_core.mechanisms.recommend import recommend

ROOT = Path(__file__).resolve().parents[2]
SMALL = str(ROOT / "sample_data" / "incomes_small.csv")


def test_decide_release_and_the_cli_say_the_same_sentence(tmp_path, capsys):
    rec = recommend(epsilon=0.5, upper=200_000.0, bins=200, workload="Q1")
    assert len(rec.why.split()) <= 30
    at = new_app(epsilon="0.5", upper="200000", bins="200", workload="Q1")
    at.run()
    at.switch_page("app_pages/decide.py").run()
    if any(b.key == "decide_compute" for b in at.button):
        at.button(key="decide_compute").click().run()
    assert_clean(at)
    decide = [m.value for m in at.markdown]
    assert any(m.startswith(f"★ {rec.why} ") for m in decide), decide
    # the benchmark detail, behind its expander: Q1's cells for a Q1 workload
    assert rec.detail in decide and "with Q1" in rec.detail and "Q2" not in rec.detail
    at.switch_page("app_pages/release.py").run()
    assert not at.exception
    release = [m.value for m in at.markdown]
    assert any(m.startswith(f"★ {rec.why} ") for m in release), release
    assert rec.detail in release and not any("1,022" in m for m in release)
    assert main(["release", "--data", SMALL, "--upper", "200000", "--bins", "200", "--workload",
                 "Q1", "--epsilon", "0.5", "--algorithm", "auto",
                 "--out", str(tmp_path / "out")]) == 0  # fmt: skip
    assert rec.why in capsys.readouterr().out
