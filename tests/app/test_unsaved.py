"""The browser's warning before leaving while the release or the ledger exists only in this
session (researcher's review P2-5); the warning itself is checked in Chromium
(tests/e2e/test_unsaved.py)."""

from __future__ import annotations

import json
import re
from typing import cast

from app_helpers import assert_clean, new_app
from streamlit.testing.v1 import AppTest

from dpsum_core.publish.ledger import Ledger
from dpsum_core.publish.release import Release
from dpsum_ui.unsaved import Held, step, unsaved

PAGE = "app_pages/release.py"


def armed(at: AppTest) -> bool:
    """The flag the page's script sets in the top window (the one st.html holding it)."""
    (flag,) = [m.group(1) for h in at.get("html")
               if (m := re.search(r"__dpsumUnsaved = (true|false);", h.proto.body))]  # fmt: skip
    return json.loads(flag)


def _released() -> AppTest:
    at = new_app()
    at.run()
    at.selectbox(key="workload_kind").select("Q3")
    at.run()
    at.switch_page(PAGE).run()
    assert not armed(at)  # nothing released: nothing to lose
    at.number_input(key="release_total").set_value(0.05).run()
    at.checkbox(key="release_unit_confirm").check().run()
    at.checkbox(key="release_confirm").check().run()
    at.button(key="release_go").click().run()
    assert_clean(at)
    assert any("Released: ε = 0.01 spent" in s.value for s in at.success), at.success
    return at


def test_a_release_arms_the_warning_until_the_ledger_and_the_release_are_downloaded() -> None:
    at = _released()
    assert armed(at)
    at.download_button(key="release_ledger_download").click().run()
    assert armed(at)  # the release itself is still only here
    at.download_button(key="release_answers_csv").click().run()
    assert not armed(at)
    at.switch_page("app_pages/explorer.py").run()
    assert not armed(at)  # on every page


def test_the_release_first_then_the_ledger_disarms_too() -> None:
    at = _released()
    at.download_button(key="release_report_html").click().run()
    assert armed(at)  # the ledger holds the spend: still only here
    at.download_button(key="release_ledger_download").click().run()
    assert not armed(at)


def test_another_release_arms_it_again() -> None:
    at = _released()
    at.download_button(key="release_ledger_download").click().run()
    at.download_button(key="release_record_json").click().run()
    assert not armed(at)
    at.checkbox(key="release_confirm").check().run()
    at.button(key="release_go").click().run()
    assert armed(at)


def test_the_rule_a_ledger_uploaded_is_held_a_ledger_changed_by_a_release_is_not() -> None:
    book, later = Ledger(), Ledger(total=1.0)
    release = cast(Release, object())  # the rule reads only which object it is
    held = step(Held(), None, None)
    assert not unsaved(held, None, None)
    held = step(held, book, None)  # uploaded: the ledger changed, no release made it
    assert not unsaved(held, book, None)
    held = step(held, later, release)  # a release: a new ledger and a release
    assert unsaved(held, later, release)
    held = step(held, later, release, ledger_downloaded=True)
    assert unsaved(held, later, release)
    held = step(held, later, release, release_downloaded=True)
    assert not unsaved(held, later, release)
