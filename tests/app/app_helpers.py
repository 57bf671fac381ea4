"""Helpers for the dashboard tests: a fresh AppTest, errors, plotly specs."""

from __future__ import annotations

import base64
import json
import re

import numpy as np
from streamlit.testing.v1 import AppTest

APP = "../../app.py"  # relative to this folder, as AppTest.from_file expects
TIMEOUT = 60


def new_app(**query: str) -> AppTest:
    """A fresh app (a new session), optionally opened with a query string."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    if query:
        at.query_params.update(query)
    return at


def assert_clean(at: AppTest) -> None:
    """No exception and no error message on screen."""
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def errors(at: AppTest) -> list[str]:
    """Texts of the st.error messages."""
    return [e.value for e in at.error]


def charts(at: AppTest) -> list[dict]:
    """Plotly figure specs (dicts) of every chart on the page."""
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def lesson(at: AppTest) -> dict:
    """What the Single query page's lesson frame shows at every grid θ (its JSON payload)."""
    (frame,) = at.get("iframe")
    found = re.search(
        r'<script type="application/json" id="lesson-data">(.*?)</script>', frame.proto.srcdoc
    )
    assert found, "no lesson data in the frame"
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
