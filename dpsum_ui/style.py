"""A little CSS so that settings and the first figure fit a 1280×800 screen or a projector."""

from __future__ import annotations

import streamlit as st

_CSS = """
<style>
[data-testid="stMainBlockContainer"] {
  padding-top: 4.5rem; padding-bottom: 3rem; padding-left: 2.5rem; padding-right: 2.5rem;
}
[data-testid="stMainBlockContainer"] h1 { font-size: 2.1rem; padding-top: 0.2rem; }
[data-testid="stSidebarContent"] h3 { padding-top: 0; }
</style>
"""


def apply() -> None:
    """Inject the app's CSS (style only: it takes no space on the page)."""
    st.html(_CSS)
