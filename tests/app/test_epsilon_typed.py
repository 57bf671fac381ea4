"""Any ε the engine accepts can be chosen in the dashboard (economist's review P2-1: ε = 0.3
could not be set, while the Release page sent the user to the explorer to lower ε): 0.3 is a
stop of the slider, and a field under it takes any other ε, bound to the same setting."""

from __future__ import annotations

from app_helpers import assert_clean, errors, new_app, open_link

from dpsum_ui import fields
from dpsum_ui import keys as K


def test_the_slider_has_the_ordinary_values_between_its_stops() -> None:
    assert {0.003, 0.03, 0.3, 3.0} <= set(fields.EPSILON_GRID)
    assert list(fields.EPSILON_GRID) == sorted(fields.EPSILON_GRID)
    at = new_app()
    at.run()
    at.select_slider(key=K.EPSILON).set_value(0.3).run()
    assert_clean(at)
    assert at.session_state[K.EPSILON] == 0.3
    assert at.text_input(key=K.EPSILON_TYPED).value == "0.3"  # the field follows the slider


def test_a_typed_epsilon_sets_the_slider_the_run_and_the_other_pages() -> None:
    at = new_app()
    at.run()
    at.text_input(key=K.EPSILON_TYPED).input("0.37").run()
    assert_clean(at)
    slider = at.select_slider(key=K.EPSILON)
    assert slider.value == 0.37 and "0.37" in slider.options  # one more stop of the slider
    assert at.session_state[K.EPSILON] == 0.37
    assert at.text_input(key=K.EPSILON_TYPED).value == "0.37"
    assert "0.37" in " ".join(c.value for c in at.caption)  # the sentence says what ε means
    at.switch_page("app_pages/compare.py").run()
    assert_clean(at)
    assert at.select_slider(key=K.EPSILON).value == 0.37
    assert at.text_input(key=K.EPSILON_TYPED).value == "0.37"
    # moving the slider again moves the field
    at.select_slider(key=K.EPSILON).set_value(1.0).run()
    assert at.text_input(key=K.EPSILON_TYPED).value == "1"
    at.switch_page("app_pages/explorer.py").run()
    assert at.select_slider(key=K.EPSILON).value == 1.0


def test_an_emptied_field_keeps_epsilon_and_says_so() -> None:
    """Review9 P2-3: text typed in the field (the browser empties it) and Enter set ε to
    0.0001 on every page, silently; the previous ε is kept, with a message, once."""
    at = new_app()
    at.run()
    at.text_input(key=K.EPSILON_TYPED).input("0.37").run()
    at.text_input(key=K.EPSILON_TYPED).input("").run()
    assert not at.exception
    assert at.session_state[K.EPSILON] == 0.37  # was 0.0001
    assert at.text_input(key=K.EPSILON_TYPED).value == "0.37"
    assert at.select_slider(key=K.EPSILON).value == 0.37
    (said,) = errors(at)
    assert "The field was empty. ε must be a number from 0.0001 to 100" in said
    assert "ε stays 0.37" in said
    at.switch_page("app_pages/compare.py").run()
    assert_clean(at)  # said once
    assert at.text_input(key=K.EPSILON_TYPED).value == "0.37"


def test_a_link_with_an_epsilon_off_the_stops_opens_at_it() -> None:
    for eps, page in ((0.3, "app_pages/explorer.py"), (0.0123, "app_pages/single_query.py")):
        at = open_link(page, {"data": "incomes_small.csv", "epsilon": f"{eps:g}", "workload": "Q3",
                              "trials": "5"})  # fmt: skip
        assert_clean(at)
        assert at.select_slider(key=K.EPSILON).value == eps
        assert at.text_input(key=K.EPSILON_TYPED).value == f"{eps:g}"


def test_what_is_left_of_the_budget_can_be_typed_and_released() -> None:
    """The review's case: after one release the Release page asks for a lower ε than the
    slider's stops; it says where to type it, and the ε typed there is released."""
    at = new_app()
    at.run()
    at.selectbox(key="workload_kind").select("Q3").run()
    at.switch_page("app_pages/release.py").run()
    at.number_input(key="release_total").set_value(0.017).run()
    at.checkbox(key="release_unit_confirm").check().run()
    at.checkbox(key="release_confirm").check().run()
    at.button(key="release_go").click().run()
    assert_clean(at)
    (said,) = [w.value for w in at.warning if "Not enough budget left" in w.value]
    assert "ε = 0.01 asked, 0.007 of 0.017 left" in said
    assert "Lower ε to at most 0.007" in said and "the field under the ε slider" in said
    at.switch_page("app_pages/explorer.py").run()
    at.text_input(key=K.EPSILON_TYPED).input("0.007").run()
    assert_clean(at)
    at.switch_page("app_pages/release.py").run()
    assert not [w.value for w in at.warning if "Not enough budget left" in w.value]
    at.checkbox(key="release_unit_confirm").check().run()  # asked again on each visit
    at.checkbox(key="release_confirm").check().run()
    at.button(key="release_go").click().run()
    assert_clean(at)
    assert [s.value for s in at.success] == ["Released: ε = 0.007 spent, 0 of 0.017 left."]


def _typed(at, text: str):
    """Type ``text`` in the field (Enter) and return the one error said under it."""
    at.text_input(key=K.EPSILON_TYPED).input(text).run()
    assert not at.exception
    (said,) = errors(at)
    return said


def test_a_decimal_comma_is_refused_never_read_as_a_larger_epsilon() -> None:
    """Review10 P1-1: the browser's number field dropped the comma, "0,2" became ε = 2 and
    "0,05" ε = 5, silently. Now the text is read by us: a comma is refused, ε kept, and the
    error says how to write it; a decimal point, spaces and an exponent are read."""
    at = new_app()
    at.run()
    at.text_input(key=K.EPSILON_TYPED).input("0.37").run()
    for text, point in (("0,2", "0.2"), ("0,05", "0.05")):
        said = _typed(at, text)
        assert f"holds a comma: use a decimal point: {point}" in said and "ε stays 0.37" in said
        assert at.session_state[K.EPSILON] == 0.37  # was 2, then 5
        assert at.select_slider(key=K.EPSILON).value == 0.37
        assert at.text_input(key=K.EPSILON_TYPED).value == "0.37"
    said = _typed(at, "1,000")  # a thousands separator: no "use 1.000"
    assert "holds a comma: use a decimal point (0.2, not 0,2) and no thousands separators" in said
    assert at.session_state[K.EPSILON] == 0.37
    for text, eps in ((" 0.2 ", 0.2), ("2e-1", 0.2), ("0.05", 0.05), (".5", 0.5)):
        at.text_input(key=K.EPSILON_TYPED).input(text).run()
        assert_clean(at)
        assert abs(at.session_state[K.EPSILON] - eps) < 1e-12
        assert at.text_input(key=K.EPSILON_TYPED).value == f"{eps:g}"


def test_each_refusal_says_what_was_wrong() -> None:
    """Review10 P3: for -1 or 500 the error said "the field was empty or held no number"."""
    at = new_app()
    at.run()
    at.text_input(key=K.EPSILON_TYPED).input("5").run()
    assert at.session_state[K.EPSILON] == 5.0
    for text, why in (
        ("-1", "ε = -1 is out of range."), ("500", "ε = 500 is out of range."),
        ("0", "ε = 0 is out of range."), ("abc", "'abc' is not a number."),
        ("1_0", "'1_0' is not a number."), ("nan", "'nan' is not a number."),
        ("", "The field was empty."),
    ):  # fmt: skip
        said = _typed(at, text)
        assert said.startswith(why), (text, said)
        assert said.endswith("ε must be a number from 0.0001 to 100, so ε stays 5."), said
        assert "empty or held no number" not in said
        assert at.session_state[K.EPSILON] == 5.0
