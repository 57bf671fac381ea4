"""Import what the first Run needs in the background, once per server process.

scipy (isotonic regression, sparse strategy matrices) is imported lazily by the engine so that
the dashboard's first page does not wait for it; this thread imports it right after the first
page is drawn, so that the first press of Run does not wait for it either.
"""

from __future__ import annotations

import importlib
import threading

import streamlit as st

MODULES = ("scipy.sparse", "scipy.optimize")  # the order the engine needs them


def _import_all() -> None:
    for name in MODULES:
        importlib.import_module(name)


@st.cache_resource(show_spinner=False)
def start() -> threading.Thread:
    """Start the import thread (the first call in this process; later calls return it)."""
    thread = threading.Thread(target=_import_all, name="dpsum-warmup", daemon=True)
    thread.start()
    return thread
