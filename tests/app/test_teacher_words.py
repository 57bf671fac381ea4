"""Words a statistics teacher found contradicting the app (teacher's review P2-5 to P2-7): the
guide's Decide step, the About glossary and the FAQ on one row per person."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from app_helpers import assert_clean, lesson, new_app

from dpsum_core.simulate.config import ExperimentConfig
from dpsum_ui.guide import TEXTS
from dpsum_ui.present import money, teaching_text


def test_the_guides_decide_step_does_not_choose_from_true_errors() -> None:
    """Decide's own warning: choosing from these curves is not covered by the guarantee; About:
    the recommendation reads public inputs only. The guide said 'the line that crosses first
    … is the one to choose' and 'decide before publishing'."""
    text = TEXTS["decide"]
    assert "is the one to choose" not in text
    assert "decide before publishing" not in text
    assert "not covered by the privacy guarantee" in text
    assert "★" in text and "public inputs only" in text


def about_text() -> str:
    at = new_app()
    at.run()
    at.switch_page("app_pages/about.py").run()
    assert_clean(at)
    return "\n".join(str(m.value) for m in at.markdown) + "\n".join(
        str(e.label) for e in at.expander)


def test_the_glossary_defines_expected_error_as_the_pages_show_it_and_names_every_algorithm():
    text = about_text()
    assert "the exact bias² + variance of an algorithm" not in text
    assert "**Expected error (RMSE)**: √(bias² + variance)" in text
    for name in ("SQM", "Identity", "Workload", "TiMM / TaMM", "RawSum", "ClampShells"):
        assert f"- **{name}**:" in text, name


def test_the_faq_points_to_the_data_pages_unit_of_privacy() -> None:
    text = about_text()
    assert "Combine each person's rows into one before loading" not in text
    assert "On the Data page, choose the column that identifies a person (**Unit of privacy**)" \
        in text
    data_page = (Path(__file__).resolve().parents[2] / "app_pages" / "data.py").read_text(
        encoding="utf-8")
    assert '"Unit of privacy (who the guarantee protects)"' in data_page  # the label it names


def test_large_epsilon_is_written_without_exponents_on_single_query() -> None:
    """ε = 10 read "e^ε ≈ 2.2e+04 (2.2e+04 times)" and ε = 50 "5.18e+21", with a 22-digit
    factor in the warning under it (teacher's review P3-1)."""
    texts = {}
    for epsilon in ("10", "50"):
        at = new_app(epsilon=epsilon)
        at.run()
        at.switch_page("app_pages/single_query.py").run()
        texts[epsilon] = "\n".join(
            [str(c.value) for c in at.caption] + [str(w.value) for w in at.warning])
        assert not re.search(r"\de[+-]\d", texts[epsilon]), texts[epsilon]
        assert not re.search(r"\d{1,3}(,\d{3}){4,}", texts[epsilon]), texts[epsilon]
    assert "e^ε ≈ 22,026" in texts["10"] and "up to 22,026" in texts["10"]
    assert "e^ε = e^50, more than a billion" in texts["50"]  # dpsum_core.text.odds_factor
    assert "by a factor of up to e^50, more than a billion" in texts["50"]


def test_single_query_says_where_svt_starts_its_search() -> None:
    """SVT's marks all sat at θ ≥ 100,000 with nothing saying why (teacher's review P2-10)."""
    at = new_app()
    at.run()
    at.switch_page("app_pages/single_query.py").run()
    at.button_group(key="teach_algorithm").set_value("identity").run()  # SVT marks: not the ★'s
    assert_clean(at)
    (caption,) = [str(c.value) for c in at.caption if "SVT starts its search" in str(c.value)]
    c = ExperimentConfig().truncation_params.svt_c
    assert "s = 100,000" in caption and f"c = {c:g})" in caption, caption  # U/8, U = 800,000
    assert "simulated trials" in caption


def test_single_query_marks_the_recommended_algorithm_with_a_star() -> None:
    """About: the ★ rule is 'the same on every page'; Single query showed none (P3-6)."""
    at = new_app()
    at.run()
    at.switch_page("app_pages/single_query.py").run()
    assert_clean(at)
    control = at.button_group(key="teach_algorithm")
    starred = [o.content for o in control.proto.options if o.content.startswith("★")]
    assert starred == ["★ ClampShells"], starred  # ε = 0.01, 1,000 bins: the rule's choice


def test_the_noisy_answers_centre_is_called_expected_and_their_mean_is_given() -> None:
    """"they centre on 1.55 billion" while the five dots averaged 1.50 billion (P3-4)."""
    at = new_app()
    at.run()
    at.switch_page("app_pages/single_query.py").run()
    at.button_group(key="teach_algorithm").set_value("identity").run()  # at the slider's θ
    draws = lesson(at)["draws"]
    for centre, answers, text in zip(draws["centre"], draws["answers"], draws["centre_text"],
                                     strict=True):
        assert text.startswith(f"expected centre {money(centre)} (true answer + biases)"), text
        assert text.endswith(f"these 5 average {money(float(np.mean(answers)))}"), text


def test_the_truncation_and_binning_texts_fit_the_settings() -> None:
    """"the few large values" when more than half the records were truncated, and "midpoint
    weights shrink it" with midpoint weights already chosen (P3-3)."""
    upper, midpoint = (
        teaching_text(tau=100_000.0, theta=25_300.0, epsilon=0.01, eps_theta=0.001,
                      eps_m=0.009, scale=1.0, width=800.0, exact=False,
                      algorithm_label="Identity", weights=weights)
        for weights in ("upper", "midpoint"))
    assert "few large values" not in upper["truncation"]
    assert "midpoint weights (Data page)" in upper["binning"]
    assert "midpoint weights" not in midpoint["binning"]
    assert "Finer bins (Data page) shrink it." in midpoint["binning"]


def test_the_all_algorithms_caption_names_every_algorithm() -> None:
    """It explained five algorithms and not RawSum nor ClampShells (P3-5)."""
    at = new_app()
    at.run()
    at.switch_page("app_pages/single_query.py").run()
    at.session_state["teach_all_box"] = True  # the expander open
    at.run()
    (caption,) = [str(c.value) for c in at.caption if "Expected error (RMSE" in str(c.value)]
    for name in ("Identity", "TaMM", "SQM", "Workload", "TiMM", "RawSum", "ClampShells"):
        assert name in caption, name
