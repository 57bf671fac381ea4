"""Load in the background what the first Run and the first chart need.

Server side, once per process: scipy (isotonic regression, sparse strategy matrices) is imported
lazily by the engine so that the dashboard's first page does not wait for it; a thread imports
it right after the first page is drawn, so that the first press of Run does not wait either.
The same thread then builds RawSum's design for the default domain and workload (a Cholesky
factorisation, about 1.3 s at 1 000 bins), which every page showing RawSum needs: the first
shared link or Single query visit in a new process no longer waits for it. The design is a
function of public inputs only (U, n, the workload) and is cached process-wide in any case
(:func:`dpsum_core.mechanisms.rawsum.design`). Likewise TaMM's strategies on the Single query
page's θ grid for the default domain (:func:`dpsum_ui.compute.curves`: a grid that is a
function of U, n and the weights only, shared process-wide by design).
"""

from __future__ import annotations

import importlib
import json
import threading
from pathlib import Path

import numpy as np
import streamlit as st

from dpsum_core.mechanisms import rawsum
from dpsum_core.mechanisms.matrix import tamm_public_grid, tamm_strategy
from dpsum_core.mechanisms.workloads import make_workload
from dpsum_core.simulate.config import ExperimentConfig

from . import page_state, present
from .page import Page
from .store import CHART_PRELOADED, first_time

MODULES = ("scipy.sparse", "scipy.optimize")  # the order the engine needs them


def _import_all() -> None:
    for name in MODULES:
        importlib.import_module(name)
    default_design()
    default_theta_grid()


def default_design() -> None:
    """Build (and cache) RawSum's design for the default, public domain and workload."""
    config = ExperimentConfig()
    rawsum.design(config.domain, make_workload(config.workload, config.domain))


def default_theta_grid() -> None:
    """Build (and share) TaMM's strategies on the Single query page's θ grid of the default,
    public domain and workload: no data is read."""
    config = ExperimentConfig()
    domain = config.domain
    workload = make_workload(config.workload, domain)
    grid = present.theta_grid(domain)
    with tamm_public_grid(workload, domain, np.asarray(grid)):
        for theta in grid:
            tamm_strategy(workload, domain, theta)


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
# without it, and the chunk is evaluated when the browser is idle after they are drawn (at
# most 10 s later), so that the first chart (a Run, the Data page) does not wait for it. The
# pages that draw a chart as soon as they open (:func:`draws_chart_first`) start the import at
# the start of their script run instead, so that the browser fetches and evaluates the chunk
# while the server computes the page rather than after the chart's message arrived (Decide,
# load ~5 on 2 cores: the fetch started 0.3–0.5 s sooner). If a Streamlit release names the
# chunk otherwise, nothing is preloaded.
# --------------------------------------------------------------------------------------------
_PRELOAD = """<script>
(() => {
  const main = document.querySelector('script[type="module"][src*="/static/js/index."]');
  if (!main) return;
  const url = main.src.replace(/[^/]*$/, %s);
  const load = () => import(url).catch(() => {});
  if (%s) { load(); return; }
  // Idle: only once the page is drawn (its run over, no element still loading its own code),
  // so that the 0.8 s evaluation does not hold up the page's tables and code blocks.
  const idle = window.requestIdleCallback || ((f) => setTimeout(f, 500));
  const drawn = () => !document.querySelector('[data-testid="stSkeleton"]')
    && document.querySelector('[data-testid="stApp"][data-test-script-state="notRunning"]');
  const wait = (tries) => (drawn() || tries <= 0)
    ? idle(load, {timeout: 3000}) : setTimeout(() => wait(tries - 1), 250);
  wait(40);
})();
</script>"""
SLOT = "chart_library_slot"  # the hidden sidebar container of the eager import (style.py)


@st.cache_resource(show_spinner=False)
def chart_chunk() -> str | None:
    """File name of the installed Streamlit's plotly.js chunk, or None if there is not one."""
    folder = Path(st.__file__).parent / "static" / "static" / "js"
    found = sorted(folder.glob("PlotlyChart.*.js"))
    return found[0].name if len(found) == 1 else None


def draws_chart_first(page: Page) -> bool:
    """Whether ``page`` draws a chart in this script run: a page whose first draw holds one
    (:attr:`Page.chart_first`; Single query's chart is in its lesson frame, which loads
    plotly.js itself: dpsum_ui.lesson), or a shared link that runs a chart page by itself
    (call after the link is read)."""
    return page.chart_first or (page_state.link_run_queued() and page.chart_on_link)


def preload_chart_library(*, eager: bool = False) -> None:
    """Once per session: let the browser load the chart library, at once (``eager``: the page
    is about to draw a chart) or while it is idle."""
    name = chart_chunk()
    if name is None or not first_time(CHART_PRELOADED):
        return
    script = _PRELOAD % (json.dumps(name), "true" if eager else "false")
    st.html(script, unsafe_allow_javascript=True)
