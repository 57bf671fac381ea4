"""The Release page never shows an answer ClampShells' onset gate published as 0 as a bare 0
(review 9 P2-4): its table reads "≤ upper end (not distinguishable from 0)", as the report's,
and the caption above it says why; its answers.csv download keeps 0 with ``gated`` true."""

from __future__ import annotations

import io
from dataclasses import replace

import numpy as np
import pandas as pd
from app_helpers import assert_clean, keep, kept, new_app
from streamlit.testing.v1 import AppTest

from dpsum_core.publish.above_theta import MARK
from dpsum_core.publish.report import answer_cells
from dpsum_core.text import NOT_TOLD_FROM_ZERO
from dpsum_ui import release
from dpsum_ui.page_state import ReleaseState

PAGE = "app_pages/release.py"


def _released() -> AppTest:
    at = new_app()
    at.run()
    at.selectbox(key="workload_kind").select("Q3")
    at.run()
    at.switch_page(PAGE).run()
    at.number_input(key="release_total").set_value(0.05).run()
    at.checkbox(key="release_unit_confirm").check().run()
    at.checkbox(key="release_confirm").check().run()
    at.button(key="release_go").click().run()
    assert_clean(at)
    return at


def test_gated_answers_on_the_release_page_are_not_a_bare_zero():
    at = _released()
    state = kept(at, ReleaseState)
    rel = state.last
    assert rel is not None and rel.config["algorithm"] == "clampshells"
    # the gate's outcome is the noise's: the two first answers as the gate publishes them
    gated = np.zeros(rel.thresholds.size, bool)
    gated[:2] = True
    answers = np.where(gated, 0.0, np.maximum(rel.private_answers, 1.0))
    rel = replace(rel, private_answers=answers, gated=gated)
    keep(at, replace(state, last=rel))
    at.run()
    assert_clean(at)
    (table,) = [df.value for df in at.dataframe if "Private answer" in df.value.columns]
    shown = list(table["Private answer"])
    uppers = [cell.strip("[])").split(", ")[1] for cell in table["95 % interval"]]
    assert shown[:2] == [f"≤ {u} ({NOT_TOLD_FROM_ZERO})" for u in uppers[:2]]
    marks = [f" {MARK}" if above else "" for above in rel.above_theta]  # the report's †
    cells = [c[1] + m for c, m in zip(answer_cells(rel), marks, strict=True)]
    assert "0" not in shown and shown == cells
    captions = " ".join(c.value for c in at.caption)
    assert f"Answers {NOT_TOLD_FROM_ZERO}" in captions and "2 queries" in captions
    assert "flags these rows" in captions
    for internal in ("gated_thresholds", "gated = true", "private_answer", "lower_97_5"):
        assert internal not in captions  # the page names no file field
    frame = pd.read_csv(io.BytesIO(release.answers_csv(rel)))
    assert list(frame["gated"]) == list(gated) and list(frame["private_answer"][:2]) == [0.0, 0.0]
