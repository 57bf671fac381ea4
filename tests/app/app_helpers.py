"""Helpers for the dashboard tests: a fresh AppTest, errors, plotly specs."""

from __future__ import annotations

import base64
import json
import re
from typing import TypeVar

import numpy as np
from streamlit.testing.v1 import AppTest

APP = "../../app.py"  # relative to this folder, as AppTest.from_file expects
TIMEOUT = 60
T = TypeVar("T")


def new_app(**query: str) -> AppTest:
    """A fresh app (a new session), optionally opened with a query string."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    if query:
        at.query_params.update(query)
    return at


def open_link(page: str, params: dict[str, str]) -> AppTest:
    """A new session opened by a link to ``page``. (AppTest cannot switch to a page whose
    url_path differs from its file name before the first run, so the session runs once bare
    and the link is then read as on its first run; the browser tests open real URLs.)"""
    at = new_app()
    at.run()
    at.switch_page(page)
    at.query_params.update(params)
    at.session_state["_link_checked"] = False
    return at.run()


def assert_clean(at: AppTest) -> None:
    """No exception and no error message on screen."""
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def errors(at: AppTest) -> list[str]:
    """Texts of the st.error messages."""
    return [e.value for e in at.error]


def in_order(at: AppTest) -> list:
    """The main area's elements in the order the page shows them (containers walked)."""

    def walk(node) -> list:
        kids = getattr(node, "children", None)
        if not isinstance(kids, dict):
            return [node]
        return [el for k in sorted(kids) for el in walk(kids[k])]

    return walk(at.main)


def after(at: AppTest, first: str) -> str:
    """The text of the element shown right after the first markdown that starts with
    ``first``."""
    shown = in_order(at)
    i = next(i for i, el in enumerate(shown)
             if el.type == "markdown" and str(el.value).startswith(first))  # fmt: skip
    return f"{shown[i + 1].type}: {shown[i + 1].value}"


def charts(at: AppTest) -> list[dict]:
    """Plotly figure specs (dicts) of every chart on the page."""
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def lesson(at: AppTest) -> dict:
    """What the Single query page's lesson frame shows at every grid θ (its JSON payload)."""
    (found,) = [m for frame in at.get("iframe") if (m := re.search(
        r'<script type="application/json" id="lesson-data">(.*?)</script>', frame.proto.srcdoc
    ))]  # fmt: skip
    return json.loads(found.group(1))


def title(spec: dict) -> str:
    """A figure's title text."""
    t = spec.get("layout", {}).get("title", {})
    return t.get("text", "") if isinstance(t, dict) else str(t)


def array(value) -> np.ndarray:
    """Decode a plotly array (plain list or plotly ≥ 6 typed base64 array)."""
    if isinstance(value, dict) and "bdata" in value:
        data = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        return data.reshape(value["shape"]) if "shape" in value else data
    return np.asarray(value, dtype=float)


def run_explorer(at: AppTest) -> AppTest:
    """Click Run on the explorer and wait for the rerun."""
    at.button(key="explorer_run").click()
    at.run()
    return at


def kept(at: AppTest, cls: type[T]) -> T:
    """A page's typed state in this session (:mod:`dpsum_ui.page_state`; its defaults until
    the page keeps one)."""
    states = at.session_state["_pages"] if "_pages" in at.session_state else {}  # noqa: SIM401
    return states.get(cls.__name__, cls())


def keep(at: AppTest, value: object) -> None:
    """Set a page's typed state, as the page would keep it."""
    states = dict(at.session_state["_pages"]) if "_pages" in at.session_state else {}
    at.session_state["_pages"] = {**states, type(value).__name__: value}
