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
    assert at.number_input(key=K.EPSILON_TYPED).value == 0.3  # the field follows the slider


def test_a_typed_epsilon_sets_the_slider_the_run_and_the_other_pages() -> None:
    at = new_app()
    at.run()
    at.number_input(key=K.EPSILON_TYPED).set_value(0.37).run()
    assert_clean(at)
    slider = at.select_slider(key=K.EPSILON)
    assert slider.value == 0.37 and "0.37" in slider.options  # one more stop of the slider
    assert at.session_state[K.EPSILON] == 0.37
    assert at.number_input(key=K.EPSILON_TYPED).value == 0.37
    assert "0.37" in " ".join(c.value for c in at.caption)  # the sentence says what ε means
    at.switch_page("app_pages/compare.py").run()
    assert_clean(at)
    assert at.select_slider(key=K.EPSILON).value == 0.37
    assert at.number_input(key=K.EPSILON_TYPED).value == 0.37
    # moving the slider again moves the field
    at.select_slider(key=K.EPSILON).set_value(1.0).run()
    assert at.number_input(key=K.EPSILON_TYPED).value == 1.0
    at.switch_page("app_pages/explorer.py").run()
    assert at.select_slider(key=K.EPSILON).value == 1.0


def test_an_emptied_field_keeps_epsilon_and_says_so() -> None:
    """Review9 P2-3: text typed in the field (the browser empties it) and Enter set ε to
    0.0001 on every page, silently; the previous ε is kept, with a message, once."""
    at = new_app()
    at.run()
    at.number_input(key=K.EPSILON_TYPED).set_value(0.37).run()
    at.number_input(key=K.EPSILON_TYPED).set_value(None).run()
    assert not at.exception
    assert at.session_state[K.EPSILON] == 0.37  # was 0.0001
    assert at.number_input(key=K.EPSILON_TYPED).value == 0.37
    assert at.select_slider(key=K.EPSILON).value == 0.37
    (said,) = errors(at)
    assert "ε must be a number from 0.0001 to 100" in said and "ε stays 0.37" in said
    at.switch_page("app_pages/compare.py").run()
    assert_clean(at)  # said once
    assert at.number_input(key=K.EPSILON_TYPED).value == 0.37


def test_a_link_with_an_epsilon_off_the_stops_opens_at_it() -> None:
    for eps, page in ((0.3, "app_pages/explorer.py"), (0.0123, "app_pages/single_query.py")):
        at = open_link(page, {"data": "incomes_small.csv", "epsilon": f"{eps:g}", "workload": "Q3",
                              "trials": "5"})  # fmt: skip
        assert_clean(at)
        assert at.select_slider(key=K.EPSILON).value == eps
        assert at.number_input(key=K.EPSILON_TYPED).value == eps


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
    at.number_input(key=K.EPSILON_TYPED).set_value(0.007).run()
    assert_clean(at)
    at.switch_page("app_pages/release.py").run()
    assert not [w.value for w in at.warning if "Not enough budget left" in w.value]
    at.checkbox(key="release_unit_confirm").check().run()  # asked again on each visit
    at.checkbox(key="release_confirm").check().run()
    at.button(key="release_go").click().run()
    assert_clean(at)
    assert [s.value for s in at.success] == ["Released: ε = 0.007 spent, 0 of 0.017 left."]
