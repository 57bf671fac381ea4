"""The small things seen in the browser, each with its test (issue 10, "Smaller things")."""

from __future__ import annotations

from app_helpers import assert_clean, charts, new_app, run_explorer, title
from streamlit.testing.v1 import AppTest

from dpsum_ui import share
from dpsum_ui.state import SAMPLE_NAMES


def _data_page(app: AppTest) -> AppTest:
    app.switch_page("app_pages/data.py").run()
    return app


def test_a_tiny_u_is_shown_as_it_is(app: AppTest) -> None:
    _data_page(app).number_input(key="domain_upper").set_value(0.0001).run()
    app.switch_page("app_pages/explorer.py").run()
    captions = " ".join(c.value for c in app.sidebar.caption)
    assert "Domain [0, 0.0001]" in captions and "[0, 0]" not in captions


def test_a_negative_u_is_reported_once(app: AppTest) -> None:
    _data_page(app).number_input(key="domain_upper").set_value(-5.0).run()
    assert not app.exception
    messages = [e.value for e in app.error]
    assert len(messages) == 1 and "U must be > 0" in messages[0], messages


def test_the_zero_bin_is_clear_of_the_y_axis_and_the_title_is_short(app: AppTest) -> None:
    spec = charts(_data_page(app))[-1]
    assert spec["layout"]["xaxis"]["range"][0] < 0  # the first bar is not on the axis line
    main_line = title(spec).split("<br>")[0]
    assert main_line == "incomes.csv: income"
    assert "U = 800,000, 1,000 bins (width 800)" in title(spec)


def test_no_truncation_shows_neither_rho_nor_an_infinite_theta(small: AppTest) -> None:
    small.segmented_control(key="truncation").set_value("none").run()
    run_explorer(small)
    assert_clean(small)
    header = next(m.value for m in small.markdown if "**Seed" in m.value)
    assert "ρ" not in header
    assert "ρ" not in title(charts(small)[0])
    small.session_state["explorer_tab"] = "Summary & budget"
    small.run()
    table = small.dataframe[0].value
    # RawSum and ClampShells choose their own θ, whatever the truncation method: theirs shows
    own = table["Algorithm"].isin(["RawSum", "ClampShells"])
    # θ = ∞ in the one phrase of every page and of the report (dpsum_core.text.NO_THETA): in
    # the table cell its first words (a long cell is cut at 1280 px), in full under the table
    assert set(table[~own]["Median θ"]) == {"none beyond U"}
    captions = " ".join(c.value for c in small.caption)
    assert "“none beyond U”: cleaning clips values above U to U (a public rule)" in captions
    assert "inf" not in table.to_string().lower()


def test_every_zero_in_a_link_is_refused_not_turned_into_one() -> None:
    import pytest

    from dpsum_core.errors import ParameterError

    with pytest.raises(ParameterError, match="every:0"):
        share.query_to_settings({"workload": "every:0"}, samples=SAMPLE_NAMES)
    at = new_app(data="incomes.csv", workload="every:0")
    at.run()
    assert not at.exception
    (message,) = [e.value for e in at.error]
    assert "could not be used" in message and "every:0" in message
    assert at.selectbox(key="workload_kind").value == "Q1"  # the defaults, not every:1
