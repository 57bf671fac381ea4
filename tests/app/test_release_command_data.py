"""The report of a release made in the app names its data as the page's Reproduce box does
(a sample as ``sample:NAME``: the CLI reads ``incomes.csv`` alone as a missing file)."""

from __future__ import annotations

import re
import shlex

from app_helpers import assert_clean, kept, new_app

from dpsum_ui.page_state import ReleaseState
from dpsum_ui.release import report_files


def test_a_samples_report_command_names_it_as_the_reproduce_box_does():
    at = new_app()
    at.run()
    at.selectbox(key="workload_kind").select("Q3")
    at.run()
    at.switch_page("app_pages/release.py").run()
    at.number_input(key="release_total").set_value(0.05).run()
    at.checkbox(key="release_unit_confirm").check().run()
    at.checkbox(key="release_confirm").check().run()
    at.button(key="release_go").click().run()
    assert_clean(at)
    (box,) = [c.value for c in at.code if c.language == "bash"]
    shown = shlex.split(box.replace("\\\n", " "))
    rel = kept(at, ReleaseState).last
    _, markdown, _ = report_files(rel, "incomes.csv", "sample")  # as the page calls it
    command = re.search(r"^ {6}(dpsum release .*)$", markdown.decode(), re.M).group(1)
    written = shlex.split(command)
    assert shown[shown.index("--data") + 1] == "sample:incomes.csv"
    assert written[written.index("--data") + 1] == "sample:incomes.csv"  # was incomes.csv
    # an upload has no path: its file name, and words saying where --data must point
    _, uploaded, _ = report_files(rel, "mine.csv", "upload")
    text = uploaded.decode()
    assert "; --data must point to the uploaded file, mine.csv, wherever you keep it):" in text
    assert "dpsum release --data mine.csv " in text
