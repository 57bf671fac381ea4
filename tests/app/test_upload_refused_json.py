"""The settings-file and ledger uploaders, watched as the data uploaders are (polish6's
dpsum_ui.oversize): a file above the upload limit, which the browser refuses without telling
the app, is said with what to do, the box is reset, and the settings or the ledger in use stay.
The page's script presses each uploader's hidden button (tests/e2e/test_upload_refused.py for
the data uploader); here the button is pressed as the script would."""

from __future__ import annotations

from app_helpers import assert_clean, errors, kept, new_app
from streamlit.testing.v1 import AppTest

from dpsum_core.publish.ledger import Ledger
from dpsum_ui import oversize
from dpsum_ui.page_state import ExplorerState, ReleaseState


def _box(at: AppTest, key: str) -> str:
    """The uploader's widget id: a new one is a new, empty box in the browser."""
    return at.file_uploader(key=key).id


def test_a_settings_file_above_the_limit_is_said_and_the_settings_stay() -> None:
    at = new_app()
    at.run()
    at.number_input(key="seed").set_value(7).run()
    first = _box(at, "share_config_upload")
    for refused in range(2):  # each refusal resets the box again (its limit changes)
        at.button(key="share_config_upload_too_big").click().run()  # old: no such button
        assert not at.exception
        (error,) = errors(at)
        assert error.startswith("That file is larger than the 200 MB upload limit"), error
        assert "your current settings are unchanged" in error and "Download settings" in error
        assert kept(at, ExplorerState).config_refused == refused + 1
        assert (_box(at, "share_config_upload") == first) is (refused == 1)  # reset, then back
        assert at.number_input(key="seed").value == 7
    # a settings file that fits is restored as before, and the error goes
    at.file_uploader(key="share_config_upload").set_value(
        ("settings.json", b'{"epsilon": 0.5, "workload": "Q3"}', "application/json")
    ).run()
    assert_clean(at)


def _with_ledger() -> AppTest:
    """The Release page with an earlier ledger loaded (ε = 0.015 of 0.02 spent)."""
    at = new_app()
    at.run()
    at.switch_page("app_pages/release.py").run()
    earlier = Ledger(total=0.02).with_release({"epsilon": 0.015, "algorithm": "tamm"})
    at.file_uploader(key="release_ledger_upload").set_value(
        ("dpsum_ledger.json", earlier.to_json().encode(), "application/json")
    ).run()
    assert_clean(at)
    return at


def test_a_ledger_above_the_limit_is_said_and_the_ledger_in_use_stays() -> None:
    at = _with_ledger()
    book = kept(at, ReleaseState).ledger
    assert book is not None and book.spent == 0.015
    first = _box(at, "release_ledger_upload")
    at.button(key="release_ledger_upload_too_big").click().run()  # old: no such button
    assert not at.exception
    (error,) = [e for e in errors(at) if "upload limit" in e]
    assert error.startswith("That file is larger than the 200 MB upload limit"), error
    assert "the ledger in use is unchanged" in error and "dpsum_ledger.json" in error
    assert kept(at, ReleaseState).ledger == book  # the ledger in use stays
    assert kept(at, ReleaseState).ledger_refused == 1
    assert _box(at, "release_ledger_upload") != first  # the box is reset


def test_every_watched_uploader_has_its_hidden_button() -> None:
    """The script finds an uploader's button by the uploader's key and the suffix."""
    assert set(oversize.BUTTONS) >= {"share_config_upload", "release_ledger_upload"}
    assert oversize.file_message(50, "settings").startswith(
        "That file is larger than the 50 MB upload limit")
    assert "ledger" in oversize.file_message(50, "ledger")


def test_a_settings_file_that_is_not_json_is_said_and_the_box_is_reset() -> None:
    """A settings file within the limit that cannot be read (fix9): the error says what was
    wrong and what to do, and the box no longer lists it as if it were restored (old: it stayed
    listed beside the error); the settings typed stay."""
    at = new_app()
    at.run()
    at.number_input(key="seed").set_value(7).run()
    for refused, name in enumerate(("broken.json", "neg.json")):
        first = _box(at, "share_config_upload")
        body = b"{oops" if name == "broken.json" else b'{"epsilon": -1}'
        at.file_uploader(key="share_config_upload").set_value(
            (name, body, "application/json")).run()  # fmt: skip
        assert not at.exception
        (error,) = errors(at)
        assert error.startswith(f"Could not restore settings from {name}: "), error
        assert error.endswith("Your current settings are unchanged.")
        assert kept(at, ExplorerState).config_refused == refused + 1
        assert _box(at, "share_config_upload") != first  # old: the same box, the file listed
        assert at.file_uploader(key="share_config_upload").value is None
        assert at.number_input(key="seed").value == 7
    at.file_uploader(key="share_config_upload").set_value(
        ("settings.json", b'{"epsilon": 0.5, "workload": "Q3"}', "application/json")
    ).run()
    assert_clean(at)
    assert kept(at, ExplorerState).config_refused == 2  # an accepted file stays in its box


def test_a_ledger_that_is_not_json_is_said_and_the_box_is_reset() -> None:
    """A ledger within the limit that is not loaded (not JSON, fix9): said, the box reset (old:
    the file stayed listed as if loaded), the ledger in use and the total typed kept."""
    at = _with_ledger()
    book = kept(at, ReleaseState).ledger
    assert book is not None and kept(at, ReleaseState).ledger_refused == 0
    at.number_input(key="release_total").set_value(0.05).run()
    first = _box(at, "release_ledger_upload")
    at.file_uploader(key="release_ledger_upload").set_value(
        ("notes.json", b"{not json", "application/json")
    ).run()
    assert not at.exception
    (error,) = [e for e in errors(at) if "not valid JSON" in e]
    assert error.endswith("Upload the ledger this page gave you."), error
    assert kept(at, ReleaseState).ledger == book  # the ledger in use stays
    assert kept(at, ReleaseState).ledger_refused == 1
    assert _box(at, "release_ledger_upload") != first  # old: the same box, the file listed
    assert at.file_uploader(key="release_ledger_upload").value is None
    assert at.number_input(key="release_total").value == 0.05
