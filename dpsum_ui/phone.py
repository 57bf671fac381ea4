"""On a phone, the sidebar closes after a page is chosen in it (review 9).

Streamlit draws the pages' menu (``st.navigation(position="top")``) in the sidebar below its
mobile breakpoint, where the sidebar opens over the page; in Streamlit 1.67 it stays open after
a page is chosen there, covering the page just opened, and no Python call closes it
(``st.set_page_config(initial_sidebar_state=…)`` applies to a session's first page only). A
script in the top window (``st.html`` runs its scripts there, as :mod:`dpsum_ui.unsaved`
does) presses the sidebar's own close button after a click on one of its page links, when the
window is narrower than :data:`NARROW_PX`; a wider window keeps its sidebar as it was.
"""

from __future__ import annotations

import streamlit as st

NARROW_PX = 736  # below this width Streamlit's sidebar opens over the page (its mobile layout)

_SCRIPT = """<script>
(() => {
  if (window.__dpsumPhoneNav) return;
  window.__dpsumPhoneNav = (event) => {
    if (!event.target.closest('[data-testid="stSidebarNavLink"]')) return;
    if (window.innerWidth >= %d) return;
    setTimeout(() => {
      const bar = document.querySelector('[data-testid="stSidebar"]');
      const close = document.querySelector('[data-testid="stSidebarCollapseButton"] button');
      if (bar && close && bar.getBoundingClientRect().right > 0) close.click();
    }, 0);
  };
  document.addEventListener("click", window.__dpsumPhoneNav, true);
})();
</script>"""


def close_sidebar_after_navigation() -> None:
    """Install the script (once per browser tab: it checks that it is not there yet). Draw
    it where nothing is shown (app.py: warmup's hidden sidebar slot): it takes no room."""
    st.html(_SCRIPT % NARROW_PX, unsafe_allow_javascript=True)
