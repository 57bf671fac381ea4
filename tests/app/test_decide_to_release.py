"""Decide hands its ε on to the Release page: the release spends exactly that ε (researcher's
review P2-3: the explorer's 1-2-5 slider made a user spend 0.02 where Decide said 0.012)."""

from __future__ import annotations

import pytest
from app_helpers import assert_clean, kept
from streamlit.testing.v1 import AppTest

from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.decision import error_vs_epsilon, smallest_epsilon
from dpsum_ui import datasets, fields
from dpsum_ui import decide as decide_view
from dpsum_ui import keys as K
from dpsum_ui.page_state import ReleaseState

PAGE = "app_pages/release.py"


@pytest.mark.parametrize(
    ("epsilon", "shown"),
    [(0.01187, 0.012), (0.0121, 0.013), (0.012, 0.012), (0.4, 0.4), (1.234, 1.3), (0.001, 0.001)],
)
def test_the_epsilon_handed_on_is_rounded_up_never_below_the_reach(epsilon, shown) -> None:
    rounded = decide_view.rounded_up(epsilon)
    assert rounded == pytest.approx(shown, rel=1e-12) and rounded >= epsilon * (1 - 1e-12)


def test_decides_epsilon_reaches_the_release_plan_exactly(app: AppTest) -> None:
    app.selectbox(key="workload_kind").select("Q3")
    app.number_input(key="trials").set_value(10)
    app.run()
    app.switch_page("app_pages/decide.py").run()
    assert_clean(app)
    # the engine's reach for the page's settings (the test of the summary reads the same)
    data = datasets.sample_dataset("incomes.csv", "income", 800_000.0)
    algorithms = tuple(fields.defaults()[K.ALGORITHMS])
    frame = error_vs_epsilon(data, ExperimentConfig(workload="Q3", algorithms=algorithms), above=10)
    first = smallest_epsilon(frame, 0.05)[0]
    assert first.epsilon is not None
    wanted = decide_view.rounded_up(first.epsilon)
    assert wanted not in fields.EPSILON_GRID  # the slider alone could not give it
    button = app.button(key=K.DECIDE_TO_RELEASE)
    assert button.label == f"Use ε = {wanted:g} on the Release page"
    button.click().run()
    assert_clean(app)
    app.switch_page(PAGE)  # AppTest reruns the page it was given; the browser follows the switch
    # on the Release page, with the configuration that met the target there
    assert app.title[0].value == "Release"
    assert app.selectbox(key="release_algorithm").value == first.algorithm
    assert app.selectbox(key="release_truncation").value == first.truncation
    said = " ".join(i.value for i in app.info)
    assert f"ε = {wanted:g} is the one Decide gave" in said and "true answers" in said
    assert "met the target (median relative error ≤ 5 % on the queries from the 10th" in said
    confirm = app.checkbox(key="release_confirm")
    assert f"this spends ε = {wanted:g} of this dataset's budget" in confirm.label
    # the release spends exactly that ε
    app.number_input(key="release_total").set_value(1.0).run()
    app.checkbox(key="release_unit_confirm").check().run()
    app.checkbox(key="release_confirm").check().run()
    app.button(key="release_go").click().run()
    assert_clean(app)
    state = kept(app, ReleaseState)
    assert state.last is not None and state.last.budget["total"] == wanted
    assert [r["epsilon"] for r in state.ledger.releases] == [wanted]
    # later choices are the user's: another algorithm stays chosen, and the note goes when
    # the ε is no longer Decide's
    app.selectbox(key="release_algorithm").set_value("tamm").run()
    assert app.selectbox(key="release_algorithm").value == "tamm"
    assert "not for the algorithm chosen here" in " ".join(i.value for i in app.info)
    # the explorer shows the ε it now holds, off its 1-2-5 grid
    app.switch_page("app_pages/explorer.py").run()
    assert_clean(app)
    assert app.select_slider(key=K.EPSILON).value == wanted
