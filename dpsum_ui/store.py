"""The session store: one stored value per widget key, a bounded memo, queued notices.

Everything per user lives in ``st.session_state`` (never in module globals). Settings are kept
under ``_settings`` so they survive page switches (Streamlit forgets a widget's state when its
page is not shown); :func:`widget` seeds a widget from the stored value and stores it back.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

import streamlit as st

from dpsum_core.mechanisms.greedy_h import SESSION_CACHE_SIZE, StrategyCache

from .fields import defaults

T = TypeVar("T")

_SETTINGS = "_settings"
_MEMO = "_memo"
_STRATEGIES = "_strategies"
EXPLORER_RESULT = "_explorer_result"  # memo key of the result shown on the explorer page
COMPARE_RESULT = "_compare_result"
NOTICE = "_notice"  # (kind, text) shown once on the page a link opened (link / config restored)
AUTORUN = "_autorun"  # set by a link: run the explorer once
COMPARE_AUTORUN = "_compare_autorun"  # set by a link: run the grid and/or the sweep once
DECIDE_AUTORUN = "_decide_autorun"  # set by a link: run the decision view's simulation once


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
_SIZES = {"result": 4, "compare": 2, "sweep": 4, "figure": 40, "curves": 12, "samples": 12}
_SIZES["server"] = 2  # each server dataset entry holds a DuckDB connection (datasets.py)
_SIZES["decoded"] = 2  # an upload's decoded columns, held against a process-wide budget


def memo(kind: str, key: tuple, compute: Callable[[], T]) -> T:
    """``compute()`` once per (kind, key) in this session; least recently used entries go."""
    store: OrderedDict = st.session_state.setdefault(_MEMO, {}).setdefault(kind, OrderedDict())
    if key in store:
        store.move_to_end(key)
        return store[key]
    value = compute()
    store[key] = value
    while len(store) > _SIZES.get(kind, 8):
        store.popitem(last=False)
    return value


def memo_get(kind: str, key: tuple | None) -> Any:
    """A memoised value, or ``None``."""
    if key is None:
        return None
    return st.session_state.get(_MEMO, {}).get(kind, {}).get(key)


def memo_values(kind: str) -> list:
    """The memoised values of one kind in this session."""
    return list(st.session_state.get(_MEMO, {}).get(kind, {}).values())


def notice(kind: str, text: str) -> None:
    """Queue a message for the explorer page (``kind``: success, info, warning, error)."""
    st.session_state[NOTICE] = (kind, text)


def strategy_cache() -> StrategyCache:
    """This session's cache of θ-dependent GreedyH strategies (see
    :func:`dpsum_core.mechanisms.greedy_h.cached_greedy_h`: a cache shared by sessions would let one
    session time another's private θ)."""
    cache = st.session_state.get(_STRATEGIES)
    if cache is None:
        cache = st.session_state[_STRATEGIES] = StrategyCache(SESSION_CACHE_SIZE)
    return cache
