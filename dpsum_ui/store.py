"""The session store: one stored value per widget key, a bounded memo, queued notices.

Everything per user lives in ``st.session_state`` (never in module globals). Settings are kept
under ``_settings`` so they survive page switches (Streamlit forgets a widget's state when its
page is not shown); :func:`widget` seeds a widget from the stored value and stores it back.

The memo is bounded per kind (a count) and per session in bytes
(``limits.MAX_SESSION_MEMO_BYTES``, every kind together): the least recently used entries go
first, the newest is kept even alone above the bound (its page is about to show it).

This is the only module that touches ``st.session_state`` (``tests/app/test_store_only.py``):
the Data page's state is one frozen :class:`DataState`, replaced as a whole, and so is each
analysis page's (:func:`page_state`, the classes of :mod:`dpsum_ui.page_state`); a widget's value
that Streamlit keeps by key is read and set through :func:`get`, :func:`put`, :func:`live`,
:func:`set_live` and :func:`offer`.
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dpsum_core import limits
from dpsum_core.mechanisms.greedy_h import SESSION_CACHE_SIZE, StrategyCache

from .fields import defaults
from .uploads import Upload

T = TypeVar("T")

_SETTINGS = "_settings"
_MEMO = "_memo"
_MEMO_BYTES = "_memo_bytes"  # (kind, key) → bytes, least recently used first
_STRATEGIES = "_strategies"
NOTICE = "_notice"  # (kind, text) shown once on the page a link opened (link / config restored)
LINK_VIEW = "_link_view"  # the view values a link set, until its page checks them


def settings() -> dict[str, Any]:
    """The stored settings of this session (created with the defaults)."""
    ss = st.session_state
    if _SETTINGS not in ss:
        ss[_SETTINGS] = defaults()
    return ss[_SETTINGS]


def get(key: str) -> Any:
    """Current value of a setting: the live widget value if its widget exists this run."""
    ss = st.session_state
    if key in ss:
        return ss[key]
    return settings()[key]


def put(key: str, value: Any) -> None:
    """Change a setting and its widget. Call only from a callback or before the widget is drawn."""
    settings()[key] = value
    st.session_state[key] = value


def widget(fn: Callable[..., T], key: str, *args: Any, **kwargs: Any) -> T:
    """Draw ``fn(*args, key=key, **kwargs)`` seeded from, and stored back to, the settings."""
    store = settings()
    ss = st.session_state
    # Re-assign even when the key exists: a widget of another page leaves its state under the
    # same key, and a new widget only adopts a value set through the Session State API.
    ss[key] = ss[key] if key in ss else store[key]
    value = fn(*args, key=key, **kwargs)
    store[key] = value
    return value


def ensure_option(key: str, options: list | tuple, fallback: Any = None) -> None:
    """Before drawing a choice widget: make sure its stored value is one of ``options``."""
    if not options:
        return
    current = get(key)
    if current not in options:
        put(key, fallback if fallback in options else options[0])


# --------------------------------------------------------------------------------------------
# Memo (per session, bounded): results and figures keyed by plain values
# --------------------------------------------------------------------------------------------
# Kept per session: the last 3 runs (a default run with 7 algorithms is 11.5 MiB: 20 sessions
# of 4 runs each held ≈ 0.9 GB in bench/load.py) and the figures drawn from them.
_SIZES = {"result": 3, "compare": 2, "sweep": 4, "figure": 40, "curves": 12, "samples": 12}
_SIZES["server"] = 2  # each server dataset entry holds a DuckDB connection (datasets.py)
_SIZES["decoded"] = 2  # an upload's decoded columns, held against a process-wide budget
_SIZES["widths"] = 200  # Decide's simulated release widths: ≈ 20 per search, 8 × m floats each


def memo(kind: str, key: tuple, compute: Callable[[], T]) -> T:
    """``compute()`` once per (kind, key) in this session; least recently used entries go
    (per kind by count, all kinds together by bytes)."""
    memos: dict = st.session_state.setdefault(_MEMO, {})
    sizes: OrderedDict = st.session_state.setdefault(_MEMO_BYTES, OrderedDict())
    store: OrderedDict = memos.setdefault(kind, OrderedDict())
    if key in store:
        store.move_to_end(key)
        if (kind, key) in sizes:
            sizes.move_to_end((kind, key))
        return store[key]
    value = compute()
    store[key] = value
    while len(store) > _SIZES.get(kind, 8):
        old, _ = store.popitem(last=False)
        sizes.pop((kind, old), None)
    sizes[(kind, key)] = nbytes(value)
    evict(memos, sizes, limits.MAX_SESSION_MEMO_BYTES)
    return value


def memo_get(kind: str, key: tuple | None) -> Any:
    """A memoised value, or ``None`` (a hit counts as a use for the byte bound)."""
    if key is None:
        return None
    value = st.session_state.get(_MEMO, {}).get(kind, {}).get(key)
    sizes = st.session_state.get(_MEMO_BYTES)
    if value is not None and sizes is not None and (kind, key) in sizes:
        sizes.move_to_end((kind, key))
    return value


def evict(memos: dict, sizes: OrderedDict, budget: int) -> None:
    """Drop the least recently used entries of ``memos`` ({kind: {key: value}}) until the
    ``sizes`` ({(kind, key): bytes}, least recent first) sum to at most ``budget``; the most
    recent entry stays even alone above it."""
    total = sum(sizes.values())
    while total > budget and len(sizes) > 1:
        (kind, key), size = sizes.popitem(last=False)
        memos.get(kind, {}).pop(key, None)
        total -= size


def nbytes(value: object, depth: int = 0) -> int:
    """The bytes held by a memoised value: its arrays, frames, texts and figure data, through
    containers and dataclasses (what dominates a result; small objects count as 0)."""
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    if isinstance(value, pd.DataFrame):
        return int(value.memory_usage(index=True).sum())
    if isinstance(value, pd.Series):
        return int(value.memory_usage(index=True))
    if isinstance(value, (bytes, str)):
        return len(value)
    if isinstance(value, (int, float)):
        return 8
    if depth > 6:
        return 0
    if isinstance(value, go.Figure):
        return sum(nbytes(trace.to_plotly_json(), depth + 1) for trace in value.data)
    if isinstance(value, Mapping):
        return sum(nbytes(v, depth + 1) for v in value.values())
    if isinstance(value, (list, tuple, set, frozenset)):
        return sum(nbytes(v, depth + 1) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return sum(nbytes(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value))
    return 0


def memo_values(kind: str) -> list:
    """The memoised values of one kind in this session."""
    return list(st.session_state.get(_MEMO, {}).get(kind, {}).values())


def notice(kind: str, text: str) -> None:
    """Queue a message for the explorer page (``kind``: success, info, warning, error)."""
    st.session_state[NOTICE] = (kind, text)


def remember_link_view(values: dict[str, Any]) -> None:
    """Keep the view values a link set (widget key → value), for the page that fits them to
    its options to say which it could not use as given (:func:`take_link_value`)."""
    st.session_state[LINK_VIEW] = dict(values)


def take_link_value(key: str) -> Any:
    """The value a link set for the widget ``key`` (None if none), once: taken, it is gone."""
    return st.session_state.get(LINK_VIEW, {}).pop(key, None)


def strategy_cache() -> StrategyCache:
    """This session's cache of θ-dependent GreedyH strategies (see
    :func:`dpsum_core.mechanisms.greedy_h.cached_greedy_h`: a cache shared by sessions would let one
    session time another's private θ)."""
    cache = st.session_state.get(_STRATEGIES)
    if cache is None:
        cache = st.session_state[_STRATEGIES] = StrategyCache(SESSION_CACHE_SIZE)
    return cache


# ============================================================================================
# The Data page and the frame (typed): every other module reads and writes these through the
# functions below, never through ``st.session_state`` and its key strings.
# ============================================================================================
_DATA = "_data"  # the Data page's DataState
LINK_CHECKED = "_link_checked"  # the link of this session's first page was read (tests reset it)
CHART_PRELOADED = "_chart_library_preloaded"  # the browser was told to load plotly.js
UOrigin = Literal["link", "user"]


@dataclass(frozen=True)
class DataState:
    """What the Data page keeps besides its widgets' values (those are settings, by key).

    Replaced as a whole (:func:`put_data` with :func:`dataclasses.replace`), never mutated.

    Attributes
    ----------
    upload, release_upload
        The planning and the release file uploaded in this session (in memory only), or None.
    upload_error, release_upload_error
        Why the last file given to that uploader could not be used (Markdown, the file's name
        escaped), or None; the data read before stays in use.
    pending
        The uploaded file or server dataset whose public U is still to be set (None once it is
        set or kept).
    pending_from
        (where U came from, the dataset it was set for) when a new dataset asked for U: what
        the "U is still …" prompt credits.
    u_origin
        Where the current U came from: a link's settings, the user, or None (a default).
    u_set_for
        The last planning dataset shown with a confirmed U.
    release_unit_for
        The release file the release's unit of privacy was chosen for (("upload", its
        fingerprint) or ("sample", its name)): another file asks again.
    one_row_sure_for
        The (file, column) for which "one row is one person" was ticked explicitly.
    refused
        How many files the planning and the release uploader refused: each refusal resets
        that uploader (:func:`dpsum_ui.uploads.uploader_size`), which lists the file no more.

    Privacy
    -------
    The uploads are private data, kept in this session only; everything else is names and
    choices.
    """

    upload: Upload | None = None
    upload_error: str | None = None
    release_upload: Upload | None = None
    release_upload_error: str | None = None
    pending: str | None = None
    pending_from: tuple[UOrigin | None, str | None] | None = None
    u_origin: UOrigin | None = None
    u_set_for: str | None = None
    release_unit_for: tuple[str, str] | None = None
    one_row_sure_for: tuple[str, str | None] | None = None
    refused: tuple[int, int] = (0, 0)


def data_state() -> DataState:
    """The Data page's state in this session (the defaults until something is chosen)."""
    found = st.session_state.get(_DATA)
    return found if isinstance(found, DataState) else DataState()


def put_data(new: DataState) -> None:
    """Replace the Data page's state (build ``new`` with :func:`dataclasses.replace`)."""
    st.session_state[_DATA] = new


def live(key: str) -> Any:
    """The value Streamlit holds for the widget ``key`` (None while it holds none): for a widget
    whose value is not a stored setting (an uploader, a checkbox, the guide's switch)."""
    return st.session_state.get(key)


def set_live(key: str, value: Any) -> None:
    """Set the widget ``key`` to ``value``; call from a callback or before it is drawn."""
    st.session_state[key] = value


def seed_live(key: str, value: Any) -> None:
    """Give the widget ``key`` the value ``value`` unless it already holds one."""
    st.session_state.setdefault(key, value)


def offer(key: str, value: Any) -> None:
    """Set the widget ``key`` to ``value`` when ``value`` is not the one offered last: a new
    value replaces the field's text, while what the user typed over the same value stays."""
    ss = st.session_state
    offered = f"{key}_for"
    if ss.get(offered) != value:
        ss[key] = ss[offered] = value


def first_time(flag: str) -> bool:
    """True the first time ``flag`` (:data:`LINK_CHECKED`, :data:`CHART_PRELOADED`) is asked
    in this session, and from then on False."""
    if st.session_state.get(flag):
        return False
    st.session_state[flag] = True
    return True


def take_notice() -> tuple[str, str] | None:
    """The queued (kind, text) message (:func:`notice`), once: taken, it is gone."""
    return st.session_state.pop(NOTICE, None)


# ============================================================================================
# Typed page state of the analysis pages (Explorer, Compare, Decide, Release)
# ============================================================================================
# One frozen dataclass per page (dpsum_ui.page_state), kept under one session key and replaced
# whole; their widgets that are not settings go through live, set_live and seed_live above.
_PAGES = "_pages"
S = TypeVar("S")


def page_state(cls: type[S]) -> S:
    """This session's state of one page (``cls()``, its defaults, until a page saves one)."""
    value = st.session_state.get(_PAGES, {}).get(cls.__name__)
    return value if isinstance(value, cls) else cls()


def save_page_state(value: object) -> None:
    """Keep ``value`` as this session's state of its page (one frozen dataclass per page)."""
    st.session_state.setdefault(_PAGES, {})[type(value).__name__] = value
