"""Fixtures for the dashboard tests (streamlit.testing.v1.AppTest)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import streamlit as st
from app_helpers import assert_clean, new_app
from streamlit.testing.v1 import AppTest

from dpsum_ui.memo import SHARED


@pytest.fixture(autouse=True)
def _clear_caches() -> Iterator[None]:
    st.cache_data.clear()
    st.cache_resource.clear()
    SHARED.clear()  # results shared by sessions (dpsum_ui.memo): each test starts cold
    yield
    st.cache_data.clear()
    st.cache_resource.clear()
    SHARED.clear()


@pytest.fixture
def app() -> AppTest:
    """The app after its first run on the default page (Workload explorer)."""
    at = new_app()
    at.run()
    assert_clean(at)
    return at


@pytest.fixture
def small(app: AppTest) -> AppTest:
    """The app set to a quick experiment: Q3 (10 queries), 20 trials."""
    app.selectbox(key="workload_kind").select("Q3")
    app.number_input(key="trials").set_value(20)
    app.run()
    assert_clean(app)
    return app


@pytest.fixture
def decide(app: AppTest) -> AppTest:
    """The Decide page on Q3 (10 queries), 10 trials."""
    app.selectbox(key="workload_kind").select("Q3")
    app.number_input(key="trials").set_value(10)
    app.run()
    app.switch_page("app_pages/decide.py").run()
    assert_clean(app)
    return app
