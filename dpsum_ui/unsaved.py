"""The browser's "Leave site?" warning while a release or a ledger exists only in this session
(researcher's review P2-5: one reload lost the release and the ledger without a word, and a
fresh session starts a fresh budget).

A session's release and ledger live in the server's memory only. Until the user has
downloaded them, a reload, a closed tab or a typed address would lose them: the page then asks
the browser to confirm leaving (``beforeunload``). A download of the ledger after the last
change saves the ledger; a download of any of the release's files (answers, record, reports)
saves the release; a ledger uploaded on the Release page is one the user already has.

The handler is set in the top window, where Streamlit draws its pages: ``st.html`` runs its
script there (a component would run in an iframe of its own). Moving between the app's pages
does not leave the page, so it never asks then.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields, replace

import streamlit as st

from dpsum_core.publish.ledger import Ledger
from dpsum_core.publish.release import Release

from . import keys as K
from . import store
from .page_state import ReleaseState, load

# The Release page's downloads: of the ledger, and of the release (any one of its files)
LEDGER_DOWNLOADS = (K.RELEASE_LEDGER_DOWNLOAD,)
RELEASE_DOWNLOADS = (
    K.RELEASE_ANSWERS_CSV, K.RELEASE_RECORD_JSON, K.RELEASE_REPORT_HTML, K.RELEASE_REPORT_MD,
)  # fmt: skip

_SCRIPT = """<script>
(() => {
  window.__dpsumUnsaved = %s;
  if (!window.__dpsumBeforeUnload) {
    window.__dpsumBeforeUnload = (event) => {
      if (!window.__dpsumUnsaved) return;
      event.preventDefault();  // the browser asks "Leave site?" (its own words)
      event.returnValue = "";  // for browsers that still read it
    };
    window.addEventListener("beforeunload", window.__dpsumBeforeUnload);
  }
})();
</script>"""


@dataclass(frozen=True)
class Held:
    """What the user holds outside the session, and what the session held at the last run.

    Attributes
    ----------
    ledger, release
        The ledger and the release the user last downloaded (the ledger also: uploaded).
    seen_ledger, seen_release
        This session's ledger and last release at the previous run: a ledger that changes
        while the release stays the same was uploaded, so the user holds it.
    """

    ledger: Ledger | None = None
    release: Release | None = None
    seen_ledger: Ledger | None = None
    seen_release: Release | None = None


def step(
    held: Held,
    ledger: Ledger | None,
    release: Release | None,
    *,
    ledger_downloaded: bool = False,
    release_downloaded: bool = False,
) -> Held:
    """What the user holds after a run in which the session holds ``ledger`` and ``release``
    and the user downloaded the ledger or the release (or neither)."""
    kept = held.ledger
    if ledger_downloaded or (ledger is not held.seen_ledger and release is held.seen_release):
        kept = ledger  # downloaded, or uploaded (no release made it)
    shown = release if release_downloaded else held.release
    return replace(held, ledger=kept, release=shown, seen_ledger=ledger, seen_release=release)


def unsaved(held: Held, ledger: Ledger | None, release: Release | None) -> bool:
    """Whether the session holds a ledger or a release the user has not downloaded."""
    return (ledger is not None and ledger is not held.ledger) or (
        release is not None and release is not held.release
    )


def warn_before_leaving() -> None:
    """Arm or disarm the browser's warning before leaving, for what the session holds now.
    Call once per run, before the page (which may stop early): a release of this run was made
    in its callback, and a download button clicked started this run. Draw it where nothing is
    shown (app.py: warmup's hidden sidebar slot), as its script takes no room."""
    state = load(ReleaseState)
    before = store.page_state(Held)
    held = step(
        before, state.ledger, state.last,
        ledger_downloaded=_clicked(LEDGER_DOWNLOADS),
        release_downloaded=_clicked(RELEASE_DOWNLOADS),
    )  # fmt: skip
    # by identity, as unsaved() compares; a session that holds nothing keeps nothing
    if any(getattr(held, f.name) is not getattr(before, f.name) for f in fields(Held)):
        store.save_page_state(held)
    armed = unsaved(held, state.ledger, state.last)
    st.html(_SCRIPT % json.dumps(armed), unsafe_allow_javascript=True)


def _clicked(keys: tuple[str, ...]) -> bool:
    """Whether one of the download buttons ``keys`` was clicked (it started this run)."""
    return any(store.live(k) is True for k in keys)
