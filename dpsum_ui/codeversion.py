"""Whether the code on disk is still the code this server runs.

The server does not reload its code (``fileWatcherType = "none"``: a reload under running
sessions lost their uploads), but Streamlit reads the page scripts afresh on every run while the
modules they import stay as first imported: after an update on disk (a ``git pull``, a new
wheel) a page could call a function its old module lacks and fail with a traceback, for every
session. The frame (``app.py``) asks :func:`changed` first and, if so, says to restart the
server and runs no page.
"""

from __future__ import annotations

import time
from pathlib import Path

import streamlit as st

_PACKAGES = Path(__file__).resolve().parent.parent  # the repository, or site-packages
# The engine, the dashboard and the page scripts (in the repository, and in the wheel's
# dpsum_dashboard package).
ROOTS = tuple(
    _PACKAGES / name for name in ("dpsum_core", "dpsum_ui", "app_pages", "dpsum_dashboard/app_pages")
)
CHECK_SECONDS = 2.0  # at most one look at the files per interval, per server process


def fingerprint(roots: tuple[Path, ...] = ROOTS) -> tuple[int, int]:
    """(number of Python files, their latest modification time in ns) under ``roots``."""
    times = [p.stat().st_mtime_ns for root in roots if root.is_dir() for p in root.rglob("*.py")]
    return len(times), max(times, default=0)


_STARTED = fingerprint()


class _Look:
    """The last look at the files (process-wide: the code is the process's)."""

    at = float("-inf")  # time.monotonic() of the last look
    changed = False


def watching() -> bool:
    """Whether this server reloads changed code itself (a developer's
    ``--server.fileWatcherType auto``): then there is nothing to say."""
    return st.get_option("server.fileWatcherType") != "none"


def changed() -> bool:
    """Whether the code on disk differs from the code this server started with (looked at
    once every :data:`CHECK_SECONDS`; once changed, always changed)."""
    if watching():
        return False
    now = time.monotonic()
    if not _Look.changed and now - _Look.at >= CHECK_SECONDS:
        _Look.at, _Look.changed = now, fingerprint() != _STARTED
    return _Look.changed


RESTART = (
    "dpsum's code on this server changed on disk after the server started (an update?). "
    "Pages would now mix old and new code, so none runs until the server is restarted: "
    "ask whoever runs it to stop it and start it again (`dpsum app`, or `streamlit run app.py`), "
    "then reload this tab. Uploads are not kept across a restart."
)
