"""Typed state (issue 23 §1.3): the Data page keeps what is not a widget's value in one frozen
record under one session key, and a plan is either Ready (a configuration and its workload)
or Blocked (why not)."""

from __future__ import annotations

import dataclasses

import pytest
from app_helpers import TIMEOUT, assert_clean, new_app
from streamlit.testing.v1 import AppTest
from test_data_page import CSV, upload

from dpsum_ui.store import DataState

# What the frame and the store keep besides the widgets' values, whatever the pages do.
STORE_KEYS = {"_settings", "_memo", "_memo_bytes", "_link_checked", "_chart_library_preloaded"}


def test_the_data_page_keeps_one_frozen_record_under_one_key() -> None:
    at = new_app()
    at.run()
    at.switch_page("app_pages/data.py").run()
    upload(at, "mydata.csv", CSV)
    at.button(key="domain_keep").click().run()
    assert_clean(at)
    kept = {key for key in at.session_state if key.startswith("_")}
    assert kept == STORE_KEYS | {"_data"}  # no _upload, _domain_pending_from, _u_set_for…
    record = at.session_state["_data"]
    assert isinstance(record, DataState)
    assert record.upload is not None and record.upload.name == "mydata.csv"
    assert record.pending is None  # U was kept
    assert record.pending_from == (None, "incomes.csv")  # the sample's default U was shown
    assert record.u_set_for == "mydata.csv"
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.pending = "mydata.csv"  # type: ignore[misc]


def _plans() -> None:
    """Three plans of one session: the defaults, an empty list of thresholds, no domain."""
    import streamlit as st

    from dpsum_ui import keys as K
    from dpsum_ui import state

    ready = state.plan(state.data_context())
    state.put(K.WORKLOAD_KIND, "values")
    state.put(K.WORKLOAD_VALUES, "")
    no_thresholds = state.plan(state.data_context())
    state.put(K.WORKLOAD_KIND, "Q1")
    state.put(K.DOMAIN_UPPER, 0.0)
    no_domain = state.plan(state.data_context())
    st.session_state["plans"] = (ready, no_thresholds, no_domain)


def test_a_plan_is_ready_with_its_workload_or_blocked_with_the_reason() -> None:
    from dpsum_core.mechanisms.workloads import make_workload
    from dpsum_ui.state import Blocked, Ready

    at = AppTest.from_function(_plans, default_timeout=TIMEOUT)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    ready, no_thresholds, no_domain = at.session_state["plans"]
    assert isinstance(ready, Ready) and ready.error is None
    built = make_workload(ready.config.workload, ready.config.domain)
    assert list(ready.workload.thresholds) == list(built.thresholds)
    assert isinstance(no_thresholds, Blocked) and no_thresholds.config is None
    assert "at least one threshold" in no_thresholds.error
    assert isinstance(no_domain, Blocked) and no_domain.workload is None
    assert no_domain.error.startswith("The upper bound U is not valid")
