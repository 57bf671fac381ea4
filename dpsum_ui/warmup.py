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
# chart, and evaluating it takes about 0.4 s of the browser's main thread (more on a busy
# machine). The first page shows no chart, so that the app opens fast; this evaluates the chunk
# when the browser is idle after that, so that the first chart (a Run, the Data page) does not
# wait for it. If a Streamlit release names the chunk otherwise, nothing is preloaded.
# --------------------------------------------------------------------------------------------
_PRELOADED = "_chart_library_preloaded"
_PRELOAD = """<script>
(() => {
  const main = document.querySelector('script[type="module"][src*="/static/js/index."]');
  if (!main) return;
  const url = main.src.replace(/[^/]*$/, %s);
  const idle = window.requestIdleCallback || ((f) => setTimeout(f, 500));
  idle(() => import(url).catch(() => {}), {timeout: 3000});
})();
</script>"""


@st.cache_resource(show_spinner=False)
def chart_chunk() -> str | None:
    """File name of the installed Streamlit's plotly.js chunk, or None if there is not one."""
    folder = Path(st.__file__).parent / "static" / "static" / "js"
    found = sorted(folder.glob("PlotlyChart.*.js"))
    return found[0].name if len(found) == 1 else None


def preload_chart_library() -> None:
    """Once per session: let the browser load the chart library while it is idle."""
    name = chart_chunk()
    if name is None or st.session_state.get(_PRELOADED):
        return
    st.session_state[_PRELOADED] = True
    st.html(_PRELOAD % json.dumps(name), unsafe_allow_javascript=True)
