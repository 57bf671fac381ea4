"""Long names on screen (review 10 P3): a 227-character file name filled six or seven lines of
the sidebar, the "Set U for …" box and "Made on …"; a workload list broke mid-number in the
Release page's sidebar ("10 / 000"). Names are cut in the middle to 60 characters on screen
(the whole name in a tooltip), lists break after their commas only."""

from __future__ import annotations

import numpy as np
import pandas as pd
from app_helpers import assert_clean, new_app

from dpsum_ui.names import NAME_SHOWN, name_help, short_name, shown_name
from dpsum_ui.release_words import BREAK
from dpsum_ui.shell import plain

LONG = "weekly_earnings_survey_" + "x" * 200 + ".csv"  # the reviewer's 227 characters
SHORT = short_name(LONG)


def test_a_long_name_is_cut_in_the_middle_and_a_short_one_kept() -> None:
    assert len(LONG) == 227
    assert len(SHORT) == NAME_SHOWN and "…" in SHORT
    assert SHORT.startswith("weekly_earnings_survey_x") and SHORT.endswith("xx.csv")
    assert short_name("incomes.csv") == "incomes.csv" and name_help("incomes.csv") is None
    assert name_help(LONG) == LONG
    assert shown_name("a*b.csv") == "a\\*b.csv"  # still escaped
    assert short_name("a\nb") == "a\\nb"  # still one line


def _earnings() -> bytes:
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"weekly_earnings": rng.uniform(0, 2_000, 300)})
    return frame.to_csv(index=False).encode()


def test_a_long_file_name_is_shown_short_with_its_whole_name_in_a_tooltip() -> None:
    at = new_app()
    at.run()
    at.switch_page("app_pages/data.py").run()
    at.radio(key="data_source").set_value("upload").run()
    at.file_uploader(key="data_upload").set_value((LONG, _earnings(), "text/csv")).run()
    assert_clean(at)
    (set_u,) = [w.value for w in at.warning if "Set U for" in w.value]
    assert f"Set U for {SHORT}." in set_u and LONG not in set_u
    (line,) = [m for m in at.sidebar.markdown if plain(SHORT) in m.value]  # as escaped there
    assert LONG not in line.value and line.help == LONG
    at.number_input(key="domain_upper").set_value(2_000).run()
    at.switch_page("app_pages/explorer.py").run()
    at.selectbox(key="workload_kind").select("values").run()
    at.text_input(key="workload_values").input("500,1000,1500,2000").run()
    at.switch_page("app_pages/release.py").run()
    shown = " ".join(c.value for c in at.sidebar.caption)
    assert f"values:500,{BREAK}1000,{BREAK}1500,{BREAK}2000" in shown  # breaks after commas
    at.number_input(key="release_total").set_value(1.0).run()
    at.checkbox(key="release_unit_confirm").check().run()
    at.checkbox(key="release_confirm").check().run()
    at.button(key="release_go").click().run()
    assert_clean(at)
    (made,) = [m for m in at.markdown if m.value.startswith("Made on")]
    assert f"Made on **{SHORT}**" in made.value and LONG not in made.value
    assert made.help == LONG
    assert not [m for m in at.sidebar.markdown if LONG in m.value]
