"""Explicit thresholds moved to bin edges: the Explorer and the Release page say which, to
what and why, in the command line's words, and the Release page names the thresholds used."""

from __future__ import annotations

from app_helpers import assert_clean, new_app

MOVED = ("2 thresholds moved up to the next bin edge: 12,345 → 12,800, 50,000 → 50,400 "
         "(thresholds are bin edges, U/bins = 800 apart; more bins give finer edges)")  # fmt: skip


def test_explorer_and_release_say_which_thresholds_moved_and_why():
    at = new_app()
    at.run()
    at.selectbox(key="workload_kind").select("values").run()
    at.text_input(key="workload_values").input("12345, 50000, 100000").run()
    assert any(c.value.endswith(f" · {MOVED}") for c in at.caption)
    at.switch_page("app_pages/release.py").run()
    assert_clean(at)
    (line,) = [m.value for m in at.markdown if m.value.startswith("Workload **")]
    assert line.startswith("Workload **values:12800,50400,100000** over")
    assert f"on the measurement). {MOVED}. The workload and ε come from" in line
