"""A little CSS so that settings and the first figure fit a 1280×800 screen or a projector."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

# The tab's icon, served by the dashboard itself: a Material icon as page_icon made every
# student's browser fetch it from fonts.gstatic.com (and fail on an offline school network).
FAVICON = Path(__file__).parent / "assets" / "favicon.png"

_CSS = """
<style>
[data-testid="stMainBlockContainer"] {
  padding-top: 4.5rem; padding-bottom: 3rem; padding-left: 2.5rem; padding-right: 2.5rem;
}
[data-testid="stMainBlockContainer"] h1 { font-size: 2.1rem; padding-top: 0.2rem; }
/* Sections are h2 under the page's h1 (axe heading-order), drawn at the size of an h3. */
[data-testid="stMainBlockContainer"] h2 { font-size: 1.5rem; }
[data-testid="stSidebarContent"] h3 { padding-top: 0; }
.st-key-teach_texts h2 { font-size: 1.25rem; }
/* Captions are faded with opacity 0.6, and inline code in them (green by default) fell to
   4.3:1 on its background, below the 4.5:1 of WCAG 1.4.3 (axe color-contrast). Opacity 0.75
   and body-coloured code still read as secondary text, at about 7:1. */
div[data-testid="stCaptionContainer"] { opacity: 0.75; }
div[data-testid="stCaptionContainer"] code { color: #1A1A1A; }
/* Single query (a projector, a class at the back of the room): every control label, slider
   value and metric label at 16 px or more (Streamlit draws them at 14 px). */
.st-key-teach_panel [data-testid="stWidgetLabel"] p,
.st-key-teach_panel [data-testid="stMetricLabel"] p,
.st-key-teach_panel [data-testid="stSliderThumbValue"],
.st-key-teach_panel [data-testid="stSliderTickBar"],
.st-key-teach_panel [data-testid="stCaptionContainer"],
.st-key-teach_panel button p { font-size: 1rem; }
/* The ε slider's ends say what they mean ("0.001 · more privacy", "10 · more accuracy"):
   keep them shown (Streamlit shows a slider's end labels only on hover or focus). */
.st-key-epsilon [data-testid="stSliderTickBar"] { opacity: 1 !important; }
.st-key-epsilon { padding-bottom: 1.6rem; }  /* room for the ends when they wrap */
/* warmup.py: the chart library's import script, and unsaved.py's "Leave site?" script, run
   at once, shown nowhere: the slot and its wrapper (else the sidebar's gap shows). */
.st-key-chart_library_slot, div:has(> .st-key-chart_library_slot) { display: none; }
/* A selected pill or segment under the pointer: Streamlit draws the primary blue (#0072B2) on
   its light-blue hover fill (#CCE3F0), 3.9:1 (axe color-contrast, the ★ algorithm's pill); a
   darker blue of the same hue reads at about 7:1. */
button[data-variant="pills"][data-selected="true"]:hover p,
button[data-variant="pills"][data-selected="true"][data-hovered="true"] p,
button[data-variant="segmented_control"][data-selected="true"]:hover p,
button[data-variant="segmented_control"][data-selected="true"][data-hovered="true"] p {
  color: #00466E;
}
/* oversize.py: the hidden buttons its script presses when the browser refuses a file above
   the upload limit, shown nowhere. */
[class*="_too_big_slot"], div:has(> [class*="_too_big_slot"]) { display: none; }
</style>
"""


# Streamlit's file uploader draws its drop zone as <section role="presentation"> with an
# aria-label: a presentational element with global ARIA attributes (axe
# presentation-role-conflict). It is a labelled group of controls, so say so; the observer
# catches drop zones drawn later (another page, a rerun). Nothing else is touched.
_UPLOADER_ROLE = """
<script>
(() => {
  const fix = () => document
    .querySelectorAll('[data-testid="stFileUploaderDropzone"][role="presentation"]')
    .forEach((zone) => zone.setAttribute("role", "group"));
  fix();
  if (!window.__dpsumUploaderRole) {
    window.__dpsumUploaderRole = new MutationObserver(fix);
    window.__dpsumUploaderRole.observe(document.body, { childList: true, subtree: true });
  }
})();
</script>
"""


def apply() -> None:
    """Inject the app's CSS and the uploader's ARIA role fix (no space taken on the page)."""
    st.html(_CSS)
    st.html(_UPLOADER_ROLE, unsafe_allow_javascript=True)
