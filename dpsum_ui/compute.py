"""Cached calls into the engine: runs (with a progress bar), sweeps, θ curves, figures, images.

Everything is memoised per session by plain keys (data fingerprint + config JSON, which holds
the seed), so a rerun that is not a Run click never draws noise or recomputes anything. Every
engine call runs with this session's cache of θ-dependent strategies (:func:`_engine`) and, on a
server dataset's summary, with second passes for what the summary lacks (``with_passes``).

Every engine call is also stoppable: at each engine checkpoint (between θ groups, design stages,
sweep points: :mod:`dpsum_core.checkpoint`) it checks this script's stop and rerun requests, so
a run whose tab was closed (Streamlit asks the session's script to stop) or whose user clicked
again (a rerun) ends there with Streamlit's StopException / RerunException instead of running
to the end; the memo stores only finished results, and the settings are widgets' state, so
nothing the user configured is lost. Heavy clicks wait for a turn on the cores
(:mod:`dpsum_ui.turns`).

Every engine call of every page is priced before it runs (:mod:`dpsum_core.simulate.cost`):
runs, sweeps and simulations on their button; the analytic views (Decide's curves, Single
query's θ curves, the Release estimate) through :func:`analytic`, which computes by itself only
what is estimated within a link's budget, asks for a button above it, and refuses above a
click's budget.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from dpsum_core import limits
from dpsum_core.checkpoint import checkpoints
from dpsum_core.data.dataset import Statistics
from dpsum_core.data.domain import Domain, histogram
from dpsum_core.mechanisms import error as expected
from dpsum_core.mechanisms import greedy_h as strategies
from dpsum_core.mechanisms.clampshells import clampshells_bias_parts
from dpsum_core.mechanisms.error import components_frame
from dpsum_core.mechanisms.matrix import tamm_public_grid
from dpsum_core.mechanisms.measurement import Inputs
from dpsum_core.mechanisms.workloads import make_workload
from dpsum_core.plots.data import data_histogram_figure
from dpsum_core.plots.export import browser_available, start_image_server, to_image
from dpsum_core.publish.planned import RELEASES, relative_halfwidths
from dpsum_core.simulate.analytics import theta_error_components
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.cost import (
    Cost,
    check_click,
    curves_cost,
    decision_cost,
    duration,
    interval_cost,
)
from dpsum_core.simulate.decision import Curves, relative_error_curves, simulated_error_vs_epsilon
from dpsum_core.simulate.experiment import (
    epsilon_sweep,
    inputs_for,
    run_experiment,
    threshold_samples,
)
from dpsum_core.simulate.results import ExperimentResult
from dpsum_core.text import counted

from . import keys as K
from . import memo, present, state
from .passes import with_passes
from .stopping import stop_check as _stop_check
from .turns import QUEUE

# Seconds between two redraws of a progress bar: the engine reports at every checkpoint (up to
# thousands a second), a browser needs a few.
_REDRAW_SECONDS = 0.2


@contextmanager
def _engine() -> Iterator[None]:
    """Bind this session's strategy cache — TaMM's GreedyH(W·T_θ) depends on a private θ, and a
    cache shared with other sessions would be a timing channel (dpsum_core.mechanisms.greedy_h)
    — and its stop check at every engine checkpoint (a run with a progress bar reports there
    instead, which checks too)."""
    with strategies.session_cache(state.strategy_cache()), checkpoints(_stop_check()):
        yield


class _Bar:
    """A run's progress bar: the engine's ``progress(fraction, message)`` callback (a stop check
    at every call, a redraw at most every ``_REDRAW_SECONDS``) and, while the run waits for a
    turn on the cores, ``wait(ahead)``."""

    def __init__(self, label: str) -> None:
        self.label = label
        self._bar = st.progress(0.0, text=label)
        self._check = _stop_check()
        self._drawn = (-1.0, "")
        self._at = 0.0
        self._ahead = -1

    def __call__(self, fraction: float, message: str) -> None:
        self._check()
        now = time.monotonic()
        if message != self._drawn[1] or now - self._at >= _REDRAW_SECONDS:
            fraction = min(max(float(fraction), 0.0), 1.0)
            self._bar.progress(fraction, text=f"{self.label}: {message}")
            self._drawn, self._at = (fraction, message), now

    def wait(self, ahead: int) -> None:
        """Show the queue position (when it changed) and check for a stop."""
        self._check()
        if ahead != self._ahead:
            self._bar.progress(
                0.0,
                text=f"Queued: {counted(ahead, 'run')} ahead. {self.label} starts when a core is free "
                "(heavy runs of all users take turns); your settings are kept meanwhile",
            )
            self._ahead = ahead

    def done(self) -> None:
        self._bar.empty()


def _who() -> tuple[str | None, str | None]:
    """(session, client) of this script run for the queue's fairness: the client is the
    browser (every tab sends the same XSRF cookie, hashed here), else the session. A person
    with several browsers counts as several: fairness, not a security boundary."""
    ctx = get_script_run_ctx(suppress_warning=True)
    session = getattr(ctx, "session_id", None)
    try:
        token = st.context.cookies.get("_streamlit_xsrf")
    except Exception:  # no browser context (tests, bare mode)
        token = None
    client = hashlib.sha256(token.encode()).hexdigest() if isinstance(token, str) else session
    return session, client


def _compute(
    kind: str, key: tuple, cost: Cost, label: str, work: Callable[[_Bar], object], data: object
) -> None:
    """Memoise ``work(bar)`` under (kind, key) with a progress bar, after waiting for a turn
    when the click is heavy; a stop or a new click ends it with nothing stored. On public
    ``data`` the result is shared by every session (:mod:`dpsum_ui.memo`): one that another
    session holds or is computing is read or awaited, without a turn."""
    bar = _Bar(label)
    session, client = _who()

    def build() -> object:
        with QUEUE.turn(cost.seconds, bar.wait, session=session, client=client), _engine():
            return work(bar)

    try:
        state.memo(kind, key, lambda: memo.shared(data, (kind, key), build, lambda: bar.wait(1)))
    finally:
        bar.done()


def analytic(
    kind: str,
    key: tuple,
    cost: Cost,
    what: str,
    button: str,
    work: Callable[[], Any],
    data: object = None,
) -> Any:
    """The memoised value of (kind, key), or ``work()`` computed as a click: by itself when its
    estimate is within a link's budget (``limits.MAX_LINK_SECONDS``), otherwise only when the
    user presses the ``button`` drawn here with the estimate; waiting for a turn above
    ``limits.QUEUE_ABOVE_SECONDS`` and stoppable at every engine checkpoint. Returns None while
    it waits for the button.

    Raises
    ------
    dpsum_core.simulate.cost.TooHeavy
        Estimated above ``limits.MAX_CLICK_SECONDS``: nothing runs (the message says what to
        lower).
    """
    value = state.memo_get(kind, key)
    if value is None and (held := memo.held(data, (kind, key))) is not None:
        value = state.memo(kind, key, lambda: held)  # another session computed it: free
    if value is not None:
        return value
    cost.check(limits.MAX_CLICK_SECONDS)
    if cost.seconds > limits.MAX_LINK_SECONDS:
        waiting = st.empty()  # cleared once pressed: the results replace the wait message
        with waiting.container():
            st.info(
                f"Computing {what} for these settings would take about {duration(cost.seconds)} "
                f"({cost.why()}), so it waits for you: press **Compute {what}**. Your settings "
                "are kept; lighter settings are computed as soon as they are chosen."
            )
            pressed = st.button(f"Compute {what}", key=button, icon=":material/play_arrow:")
        if not pressed:
            return None
        waiting.empty()
    _compute(kind, key, cost, f"Computing {what}", lambda bar: work(), data)
    return state.memo_get(kind, key)


def run(
    data: Statistics,
    config: ExperimentConfig,
    *,
    label: str = "Running",
    kind: str = "result",
) -> tuple:
    """Run (or fetch) one experiment; returns its memo key. Shows a progress bar if it runs.

    ``kind`` selects the memo shelf (``"compare"`` keeps the big 15-configuration grids apart).
    """
    key = state.result_key(data, config)
    if state.memo_get(kind, key) is None:
        cost = check_click(config)  # refused before anything runs when too heavy for a server
        _compute(kind, key, cost, label, lambda bar: with_passes(
            data, lambda d: run_experiment(d, config, progress=bar)), data)  # fmt: skip
    return key


def result(key: tuple | None, *, kind: str = "result") -> ExperimentResult | None:
    """A memoised run, or None."""
    return state.memo_get(kind, key)


def sweep(data: Statistics, config: ExperimentConfig, epsilons: list[float]) -> tuple:
    """Run (or fetch) an ε sweep; returns its memo key."""
    eps = tuple(sorted(float(e) for e in epsilons))
    key = (*state.result_key(data, config), eps)
    if state.memo_get("sweep", key) is None:
        cost = check_click(config, runs=len(eps))
        _compute("sweep", key, cost, "ε sweep", lambda bar: with_passes(
            data, lambda d: epsilon_sweep(d, config, list(eps), progress=bar)), data)  # fmt: skip
    return key


def sweep_frame(key: tuple | None) -> pd.DataFrame | None:
    """A memoised sweep, or None."""
    return state.memo_get("sweep", key)


def curves(
    data: Statistics,
    config: ExperimentConfig,
    *,
    query: int,
    thetas: np.ndarray,
    private: bool,
) -> pd.DataFrame | None:
    """θ curves (bias², variance, total) of one query for every algorithm (deterministic);
    None while waiting for the user to ask for them (:func:`analytic`).

    The engine computes every query of the workload at once; that is cached, so moving the
    query slider only slices it. TaMM's strategies at the θ of the page's grid are shared by
    every session (a new session's first visit does not rebuild ~60 of them) only when
    ``thetas`` is exactly :func:`present.theta_grid` of the public domain: a function of U, n
    and the weights, never of the data. Any other grid (one a caller derived from the data)
    and every private θ stay in the session's own cache.
    """
    grid = tuple(float(t) for t in thetas)
    key = (*state.result_key(data, config.with_(seed=0, trials=1)), grid, private)
    domain = config.domain
    public = grid == tuple(present.theta_grid(domain))
    shared = (
        tamm_public_grid(make_workload(config.workload, domain), domain, np.asarray(grid))
        if public
        else nullcontext()
    )

    def work() -> object:
        with shared:
            return with_passes(data, lambda d: theta_error_components(
                d, config, thetas=np.asarray(grid), private_theta=private))  # fmt: skip

    cost = curves_cost(config, len(grid), private=private)
    parts = analytic("curves", key, cost, "the θ curves", K.TEACH_COMPUTE, work, data)
    return None if parts is None else components_frame(parts, np.asarray(grid), query)


def bias_parts(
    data: Statistics, domain: Domain, tau: float, thetas: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Truncation and binning bias of the query q_τ at each θ (deterministic, memoised)."""
    grid = tuple(float(t) for t in thetas)
    key = (data.fingerprint, data.name, data.column, str(domain), tau, grid)

    def build(d: Statistics) -> tuple[np.ndarray, np.ndarray]:
        single = make_workload(f"values:{tau!r}", domain)
        inputs = Inputs(d, histogram(d, domain), single, domain,
                        d.sum_at_most(single.thresholds))  # fmt: skip
        truncation, binning = expected.bias_parts(inputs, np.asarray(grid))
        return truncation[:, 0], binning[:, 0]

    return state.memo("curves", key, lambda: memo.shared(
        data, ("bias", key), lambda: with_passes(data, build), _stop_check()))  # fmt: skip


def shell_parts(data: Statistics, config: ExperimentConfig, query: int,
                thetas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ClampShells' bias of query ``query`` at each θ, split into its clamping (truncation)
    bias and its shell (interpolation) bias (deterministic, memoised):
    :func:`dpsum_core.mechanisms.clampshells.clampshells_bias_parts` at the whole ε, as its
    error curves are (its θ costs no ρ)."""
    grid = tuple(float(t) for t in thetas)
    key = (*state.result_key(data, config), "shells", query, grid)

    def build(d: Statistics) -> tuple[np.ndarray, np.ndarray]:
        clamp, shell = clampshells_bias_parts(inputs_for(d, config), np.asarray(grid),
                                              config.epsilon)  # fmt: skip
        return clamp[:, query], shell[:, query]

    return state.memo("curves", key, lambda: memo.shared(
        data, ("shells", key), lambda: with_passes(data, build), _stop_check()))  # fmt: skip


def decision_curves(
    data: Statistics, config: ExperimentConfig, epsilons: np.ndarray
) -> Curves | None:
    """Expected relative error of every query at each ε (deterministic, memoised): they do
    not depend on the configured ε, trials or seed, so changing those recomputes nothing.
    None while waiting for the user to ask for them (:func:`analytic`)."""
    grid = tuple(float(e) for e in epsilons)
    base = config.with_(epsilon=ExperimentConfig().epsilon, seed=0, trials=1)
    key = (*state.result_key(data, base), grid)
    return analytic(
        "decide", key, decision_cost(config, grid), "the curves", K.DECIDE_COMPUTE,
        lambda: with_passes(data, lambda d: relative_error_curves(d, config, np.asarray(grid))),
        data,
    )  # fmt: skip


def decision_simulation_key(
    data: Statistics, config: ExperimentConfig, epsilons: np.ndarray, above: float
) -> tuple:
    """Memo key of a simulation check (its seed and trials included)."""
    return (*state.result_key(data, config), tuple(float(e) for e in epsilons), float(above))


def decision_simulation(
    data: Statistics, config: ExperimentConfig, epsilons: np.ndarray, above: float
) -> pd.DataFrame:
    """Run (or fetch) the simulation check of the decision view, with a progress bar."""
    key = decision_simulation_key(data, config, epsilons, above)
    if state.memo_get("decide_sim", key) is None:
        cost = check_click(config, runs=len(epsilons))
        _compute("decide_sim", key, cost, "Simulating", lambda bar: with_passes(
            data, lambda d: simulated_error_vs_epsilon(d, config, epsilons, above=above,
                                                       progress=bar)), data)  # fmt: skip
    return state.memo_get("decide_sim", key)


def _widths_key(
    data: Statistics, config: ExperimentConfig, algorithm: str, truncation: str, epsilon: float
) -> tuple[ExperimentConfig, tuple]:
    base = config.with_(epsilon=float(epsilon), seed=0, trials=1)
    return base, (*state.result_key(data, base), algorithm, truncation)


def published_widths(
    data: Statistics, config: ExperimentConfig, algorithm: str, truncation: str, epsilon: float
) -> np.ndarray:
    """Relative half-widths of the published intervals of a few simulated releases at
    ``epsilon`` (:func:`~dpsum_core.publish.planned.relative_halfwidths`; seeded, so memoised
    per data, settings, configuration and ε: a new target or query percentile reuses them)."""
    base, key = _widths_key(data, config, algorithm, truncation, epsilon)
    with _engine():
        return state.memo("widths", key, lambda: with_passes(
            data, lambda d: relative_halfwidths(d, base, algorithm, truncation)))  # fmt: skip


def priced_widths(
    data: Statistics, config: ExperimentConfig, algorithm: str, truncation: str, epsilon: float
) -> np.ndarray | None:
    """:func:`published_widths`, priced first (:func:`analytic`): None while a measurement
    estimated above a link's budget waits for its button."""
    base, key = _widths_key(data, config, algorithm, truncation, epsilon)
    cost = interval_cost(config, [(algorithm, truncation, epsilon)], RELEASES)
    return analytic(
        "widths", key, cost, "the published intervals", K.DECIDE_WIDTH,
        lambda: with_passes(data, lambda d: relative_halfwidths(d, base, algorithm, truncation)),
        data,
    )  # fmt: skip


def samples(data: Statistics, config: ExperimentConfig, truncation: str) -> np.ndarray:
    """θ drawn in each trial by SVT or the recursive mechanism (seeded, so deterministic)."""
    key = (*state.result_key(data, config), truncation)
    with _engine():
        return state.memo("samples", key, lambda: memo.shared(data, ("samples", key), lambda: (
            with_passes(data, lambda d: threshold_samples(d, config, truncation))),
            _stop_check()))  # fmt: skip


def figure(key: tuple, build: Callable[[], go.Figure], data: object = None) -> go.Figure:
    """A figure built once per key in this session (figures are never mutated after), and
    once for every session when it draws a result on public ``data`` (:mod:`dpsum_ui.memo`)."""
    return state.memo("figure", key, lambda: memo.shared(data, ("figure", key), build))


def data_histogram(
    data: Statistics, domain: Domain, marks: Sequence[tuple[str, float]] = ()
) -> go.Figure:
    """The data on the domain's bins with the θ ``marks`` (built once per data, domain, marks)."""
    return figure(
        ("data_histogram", data.fingerprint, str(domain), tuple(marks)),
        lambda: data_histogram_figure(data, domain, thetas=marks),
    )


# --------------------------------------------------------------------------------------------
# Static image export (kaleido + the system Chromium): started lazily, shared, one at a time
# --------------------------------------------------------------------------------------------
@st.cache_resource(show_spinner=False)
def _image_server() -> threading.Lock:
    """Start kaleido's browser once per process (≈4 s), then ≈0.3 s per image."""
    start_image_server()
    return threading.Lock()


@st.cache_data(show_spinner=False)
def images_available() -> bool:
    """Whether server-side PNG/SVG export can work here (a Chromium is installed)."""
    return browser_available()


def image_bytes(fig: go.Figure, fmt: str) -> bytes:
    """PNG or SVG bytes of a figure (called only when the user clicks a download)."""
    with _image_server():
        return to_image(fig, fmt)
