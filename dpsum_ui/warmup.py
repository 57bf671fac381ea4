"""Load in the background what the first Run and the first chart need.

Server side, once per process: scipy (isotonic regression, sparse strategy matrices) is imported
lazily by the engine so that the dashboard's first page does not wait for it; a thread imports
it right after the first page is drawn, so that the first press of Run does not wait either.
"""

from __future__ import annotations

import importlib
import json
import threading
from pathlib import Path

import streamlit as st

from . import state

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


# --------------------------------------------------------------------------------------------
# The browser side: Streamlit loads its plotly.js chunk (4.7 MB) only when a page first shows a
# chart, and evaluating it takes about 0.4 s of the browser's main thread (0.8–1 s on a busy
# machine). Explorer, Compare, Release and About show no chart when first opened, so they open
# without it and the chunk is evaluated when the browser is idle after that, so that the first
# chart (a Run, the Data page) does not wait for it. The pages that draw a chart as soon as
# they open (:func:`draws_chart_first`) start the import at the start of their script run
# instead: the browser then evaluates the chunk while the server computes the page, rather
# than after the chart's message arrived (measured: the chart drawn ~0.8 s sooner at load ~4
# on 2 cores). If a Streamlit release names the chunk otherwise, nothing is preloaded.
# --------------------------------------------------------------------------------------------
_PRELOADED = "_chart_library_preloaded"
_PRELOAD = """<script>
(() => {
  const main = document.querySelector('script[type="module"][src*="/static/js/index."]');
  if (!main) return;
  const url = main.src.replace(/[^/]*$/, %s);
  const load = () => import(url).catch(() => {});
  if (%s) { load(); return; }
  const idle = window.requestIdleCallback || ((f) => setTimeout(f, 500));
  idle(load, {timeout: 3000});
})();
</script>"""
# Pages (url paths) whose first draw holds a chart on the default data.
CHART_PAGES = frozenset({"data", "single-query", "decide"})
SLOT = "chart_library_slot"  # the hidden sidebar container of the eager import (style.py)


@st.cache_resource(show_spinner=False)
def chart_chunk() -> str | None:
    """File name of the installed Streamlit's plotly.js chunk, or None if there is not one."""
    folder = Path(st.__file__).parent / "static" / "static" / "js"
    found = sorted(folder.glob("PlotlyChart.*.js"))
    return found[0].name if len(found) == 1 else None


def draws_chart_first(url_path: str) -> bool:
    """Whether the page at ``url_path`` draws a chart in this script run: a chart page, or a
    shared link that runs the Explorer or Compare by itself (call after the link is read)."""
    ss = st.session_state
    autorun = bool(ss.get(state.AUTORUN) or ss.get(state.COMPARE_AUTORUN))
    return url_path in CHART_PAGES or (autorun and url_path in ("", "compare"))


def preload_chart_library(*, eager: bool = False) -> None:
    """Once per session: let the browser load the chart library, at once (``eager``: the page
    is about to draw a chart) or while it is idle."""
    name = chart_chunk()
    if name is None or st.session_state.get(_PRELOADED):
        return
    st.session_state[_PRELOADED] = True
    script = _PRELOAD % (json.dumps(name), "true" if eager else "false")
    st.html(script, unsafe_allow_javascript=True)
