"""Review 9 P1-1: the Single query lesson shows an upload's exact statistics (true answer,
people between θ and τ, histogram) under "for teaching, not for publication", read by a
teacher as leave to show them to a class. On data other than a bundled sample, the caption,
the lesson button's help and the downloaded file's top and footer now say that showing them
discloses them; on a sample the words are today's."""

from __future__ import annotations

import re

import pandas as pd
from app_helpers import assert_clean, lesson, new_app
from streamlit.testing.v1 import AppTest
from test_data_people import _jobs, _upload

from dpsum_core.data.samples import resolve
from dpsum_ui.teaching import LESSON_PRIVATE, UNNOISED, UNNOISED_PRIVATE

OLD_FOOTER = "not for publication unless the data are public."


def _frame(at: AppTest) -> str:
    at.switch_page("app_pages/single_query.py").run()
    assert_clean(at)
    (frame,) = [f.proto.srcdoc for f in at.get("iframe") if 'id="lesson-data"' in f.proto.srcdoc]
    return frame


def _caption(frame: str) -> str:
    found = re.search(r'<p class="hint" id="unnoised">(.*?)</p>', frame)
    assert found
    return found.group(1)


def test_an_upload_s_lesson_says_that_showing_it_discloses_the_data() -> None:
    at = _upload("jobs.csv", _jobs())
    frame = _frame(at)
    assert _caption(frame) == UNNOISED_PRIVATE  # old: UNNOISED ("for teaching")
    assert "for teaching" not in UNNOISED_PRIVATE
    assert "discloses" in UNNOISED_PRIVATE and "sample or a synthetic file" in UNNOISED_PRIVATE
    # the button's help
    assert f'data-kind="lesson" title="{LESSON_PRIVATE}">Download this lesson' in frame
    # the downloaded file: its caption, a notice under its title and its footer
    shell = lesson(at)["export"]["lesson"]["shell"]
    assert _caption(shell) == UNNOISED_PRIVATE
    top = shell.index("</h1>")
    assert shell.index(f'<p class="hint" id="notice">{LESSON_PRIVATE}</p>') == top + len("</h1>")
    footer = re.findall(r'<p class="hint">(.*?)</p></div>', shell)[-1]
    assert footer.endswith(LESSON_PRIVATE) and OLD_FOOTER not in footer


def test_a_sample_s_lesson_keeps_its_words() -> None:
    at = new_app()
    at.run()
    frame = _frame(at)
    assert _caption(frame) == UNNOISED
    assert 'data-kind="lesson">Download this lesson' in frame  # no help added
    shell = lesson(at)["export"]["lesson"]["shell"]
    assert _caption(shell) == UNNOISED
    assert 'id="notice"' not in shell and LESSON_PRIVATE not in shell
    footer = re.findall(r'<p class="hint">(.*?)</p></div>', shell)[-1]
    assert footer.endswith(OLD_FOOTER)


def test_a_server_dataset_s_lesson_says_it_too(tmp_path, monkeypatch) -> None:
    """A server dataset is offered to every user of this server, but it is not public: not a
    sample (its results are shared between sessions, its numbers are still the data's)."""
    root = tmp_path / "data"
    root.mkdir()
    pd.read_csv(resolve("sample:incomes_small.csv")).to_parquet(root / "wages.parquet")
    monkeypatch.setenv("DPSUM_DATA_DIR", str(root))
    at = new_app()
    at.run()
    at.switch_page("app_pages/data.py").run()
    at.radio(key="data_source").set_value("server").run()
    at.selectbox(key="data_server").select("wages.parquet").run()
    at.button(key="domain_keep").click().run()  # U as offered (public)
    frame = _frame(at)
    assert _caption(frame) == UNNOISED_PRIVATE
    assert LESSON_PRIVATE in lesson(at)["export"]["lesson"]["shell"]
