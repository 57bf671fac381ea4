"""Single query's chart read on a projector (teacher's review P2-4): its text at 16 px or more
in the app, in the chart's files and in the downloaded lesson."""

from __future__ import annotations

from app_helpers import assert_clean, lesson, open_link


def test_every_chart_of_the_lesson_writes_its_text_at_16_px_or_more() -> None:
    """The chart in the app, in its PNG/SVG/HTML files and in the downloaded lesson: legend,
    readout and the SVT / Recursive labels at 16 px or more (were 12-13 px: teacher's review
    P2-4), and θ's axis titled in each (the app's had no title). The browser test
    tests/e2e/test_classroom.py measures the app's chart as drawn."""
    at = open_link("app_pages/single_query.py",
                   {"data": "incomes.csv", "workload": "Q1", "private": "1",
                    "algorithm": "identity"})
    assert_clean(at)
    payload = lesson(at)
    figures = {"app": payload["figure"], "files": payload["export"]["figure"],
               "lesson": payload["export"]["lesson"]["payload"]["figure"]}  # fmt: skip
    for where, fig in figures.items():
        layout = fig["layout"]
        assert layout["legend"]["font"]["size"] >= 16, where
        assert layout["annotations"][0]["font"]["size"] >= 16, where  # the readout
        assert layout["yaxis2"]["tickfont"]["size"] >= 16, where  # SVT / Recursive
        assert layout["xaxis2"]["title"]["text"] == "truncation threshold θ", where
