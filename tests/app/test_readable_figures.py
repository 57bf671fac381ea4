"""At the paper's ε the answers figures stay readable: the y axis follows the true answers.

The ranges are read from the plotly spec the app sends to the browser.
"""

from __future__ import annotations

from app_helpers import array, assert_clean, charts, run_explorer
from streamlit.testing.v1 import AppTest

from dpsum_core.plots.results import ANSWER_AXIS_MARGIN, CLIPPED_NOTE

FACTOR = (1 + 2 * ANSWER_AXIS_MARGIN) * 1.1  # axis span / true answers' span, at most


def _truth_and_range(spec: dict) -> tuple[list[float], list[float]]:
    truth = next(array(t["y"]) for t in spec["data"] if t.get("name") == "true answer")
    return [float(truth.min()), float(truth.max())], spec["layout"]["yaxis"]["range"]


def _assert_led_by_truth(spec: dict) -> None:
    (lo, hi), (low, high) = _truth_and_range(spec)
    assert low <= lo and high >= hi
    assert high - low <= FACTOR * (hi - lo), (low, high, lo, hi)


def test_explorer_answers_axis_follows_the_true_answers(small: AppTest) -> None:
    small.segmented_control(key="truncation").set_value("none").run()  # the widest bands
    run_explorer(small)
    assert_clean(small)
    (spec,) = charts(small)
    _assert_led_by_truth(spec)
    means = [array(t["y"]).max() for t in spec["data"] if t.get("mode") == "lines"]
    if max(means) > spec["layout"]["yaxis"]["range"][1]:
        notes = [a.get("text") for a in spec["layout"].get("annotations", [])]
        assert CLIPPED_NOTE in notes


def test_compare_answers_small_multiples_follow_the_true_answers(small: AppTest) -> None:
    small.switch_page("app_pages/compare.py").run()
    small.button(key="compare_run").click().run()
    small.button_group(key="compare_view").set_value("answers").run()
    assert_clean(small)
    _assert_led_by_truth(charts(small)[0])
