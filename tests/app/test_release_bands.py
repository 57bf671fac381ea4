"""Totals by band on the Release page (review 10 P2-2: the app could not publish them; its
report sent the reader to ``dpsum release --bands``): an optional field, checked against the
workload's thresholds before anything is spent, its table under the answers and in the files
as the command line writes them."""

from __future__ import annotations

import html
import json

import pytest
from app_helpers import assert_clean, errors, kept, new_app
from streamlit.delta_generator import DeltaGenerator
from streamlit.testing.v1 import AppTest

from dpsum_core.mechanisms.workloads import make_workload
from dpsum_core.publish.bands import band_total
from dpsum_ui import keys as K
from dpsum_ui import release
from dpsum_ui.page_state import ReleaseState

PAGE = "app_pages/release.py"


@pytest.fixture
def files(monkeypatch) -> dict[str, bytes]:
    """What each download button of the page offers, by key (its latest run)."""
    offered: dict[str, bytes] = {}
    original = DeltaGenerator.download_button

    def record(self, label, data, *args, **kwargs):
        offered[kwargs.get("key")] = data if isinstance(data, bytes) else str(data).encode()
        return original(self, label, data, *args, **kwargs)

    monkeypatch.setattr(DeltaGenerator, "download_button", record)
    return offered


def _ready() -> tuple[AppTest, list[float]]:
    """The Release page of Q3 on the sample, total ε set and the unit confirmed, and the
    workload's thresholds."""
    at = new_app()
    at.run()
    at.selectbox(key="workload_kind").select("Q3").run()
    at.switch_page(PAGE).run()
    at.number_input(key="release_total").set_value(0.05).run()
    at.checkbox(key="release_unit_confirm").check().run()
    plan = kept(at, ReleaseState).plan
    assert plan is not None
    return at, list(make_workload(plan.config.workload, plan.config.domain).thresholds)


def test_a_bad_band_is_refused_before_anything_is_spent() -> None:
    at, thresholds = _ready()
    for text, said in (
        ("500-abc", "'500-abc' is not LOW-HIGH"),
        (f"{thresholds[1]:g}-{thresholds[0]:g}", "needs LOW < HIGH"),
        (f"0-{thresholds[0] + 1:g}", f"band edge {thresholds[0] + 1:g} is not a threshold"),
    ):
        at.text_input(key=K.RELEASE_BANDS).input(text).run()
        assert not at.exception
        (error,) = errors(at)
        assert error.startswith("Totals by band: ") and said in error, error
        assert "--bands" not in error  # the page's field, not the command line's flag
        assert at.checkbox(key=K.RELEASE_CONFIRM).disabled  # nothing can be spent
        assert at.button(key=K.RELEASE_GO).disabled
    state = kept(at, ReleaseState)
    assert state.last is None and (state.ledger is None or not state.ledger.releases)
    at.text_input(key=K.RELEASE_BANDS).input("").run()  # cleared: the release can go on
    assert_clean(at)
    assert not at.checkbox(key=K.RELEASE_CONFIRM).disabled


def test_good_bands_are_in_the_table_and_in_the_files(files) -> None:
    at, thresholds = _ready()
    t1, t2 = thresholds[0], thresholds[1]
    at.text_input(key=K.RELEASE_BANDS).input(f" 0-{t1:g}, {t1:g}-{t2:g} ").run()
    assert_clean(at)
    (command,) = [c.value for c in at.code if c.value.startswith("dpsum release")]
    assert f"--bands 0-{t1:g},{t1:g}-{t2:g}" in command  # the reproduce box's command too
    at.checkbox(key=K.RELEASE_CONFIRM).check().run()
    at.button(key=K.RELEASE_GO).click().run()
    assert_clean(at)
    state = kept(at, ReleaseState)
    rel = state.last
    assert rel is not None and state.last_bands == ((0.0, t1), (t1, t2))
    assert "Totals by band" in [h.value for h in at.subheader]
    table = " ".join(m.value for m in at.markdown)
    assert "95 % interval for the true total" in table
    record = json.loads(files[K.RELEASE_RECORD_JSON])
    assert [(b["low"], b["high"]) for b in record["bands"]] == [(0.0, t1), (t1, t2)]
    second = band_total(rel, t1, t2)
    assert record["bands"][1]["total"] == pytest.approx(second.total, rel=1e-9)
    assert record["bands"][1]["lower_95"] == pytest.approx(second.lower, rel=1e-9)
    # bands.csv, as the command line writes it beside answers.csv (review 11: the report's notes
    # name it; the page offered no such file)
    rows = files[K.RELEASE_BANDS_CSV].decode().splitlines()
    assert rows[0].startswith("low,high,total,lower_95,upper_95") and len(rows) == 3
    for key in (K.RELEASE_REPORT_MD, K.RELEASE_REPORT_HTML):
        text = html.unescape(files[key].decode()).replace("\xa0", " ")  # "95&nbsp;%" in HTML
        assert "Totals by band" in text and "95 % interval for the true total" in text
        assert f"--bands 0-{t1:g},{t1:g}-{t2:g}" in text.replace("\\\n", "")
    # kept when the user leaves the page and comes back
    at.switch_page("app_pages/explorer.py").run()
    at.switch_page(PAGE).run()
    assert (at.text_input(key=K.RELEASE_BANDS).value or "").strip() == f"0-{t1:g}, {t1:g}-{t2:g}"


def _after_section_3(at: AppTest) -> list[str]:
    """The page's texts in order from section 3's header (Confirm and release) on."""
    texts = [str(getattr(node, "value", "")) for node in at.main]
    return texts[texts.index("3. Confirm and release"):]


def test_a_bad_band_is_said_next_to_the_greyed_release_button() -> None:
    """Review 11 P2-2: with the unit confirmed the blocker list is gone, and the confirm box
    and Release were greyed with no reason near them (the error is up in section 1)."""
    at, _ = _ready()
    at.text_input(key=K.RELEASE_BANDS).input("15–20,20-30").run()  # an en dash
    assert at.button(key=K.RELEASE_GO).disabled
    assert release.BAND_BLOCKS in _after_section_3(at)
    at.text_input(key=K.RELEASE_BANDS).input("").run()
    assert_clean(at)
    assert release.BAND_BLOCKS not in _after_section_3(at)


def test_without_bands_no_bands_csv_is_offered(files) -> None:
    at, _ = _ready()
    at.checkbox(key=K.RELEASE_CONFIRM).check().run()
    at.button(key=K.RELEASE_GO).click().run()
    assert_clean(at)
    assert K.RELEASE_ANSWERS_CSV in files and K.RELEASE_BANDS_CSV not in files
