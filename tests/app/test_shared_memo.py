"""Results shared across sessions for public data (issue 25.1): one computation per key, a
waiter never starts its own, bounded by bytes, and nothing from an upload ever shared."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest
from app_helpers import assert_clean, new_app, run_explorer

from dpsum_core.data.reading import table_column
from dpsum_ui import memo
from dpsum_ui.memo import SharedMemo, is_public, mark_public, nbytes, shared

TIMEOUT = 10.0


def test_two_threads_asking_the_same_key_compute_once() -> None:
    cache = SharedMemo(max_bytes=10**6)
    started, release = threading.Event(), threading.Event()
    calls: list[str] = []
    waits: list[int] = []
    got: dict[str, object] = {}

    def build() -> np.ndarray:
        calls.append(threading.current_thread().name)
        started.set()
        assert release.wait(TIMEOUT)
        return np.arange(10.0)

    first = threading.Thread(target=lambda: got.update(a=cache.get(("k",), build)), name="first")
    first.start()
    assert started.wait(TIMEOUT)
    # the second asks while the first is computing: it waits, it never builds
    second = threading.Thread(
        target=lambda: got.update(b=cache.get(("k",), build, wait=lambda: waits.append(1),
                                              poll=0.01)),
        name="second",
    )
    second.start()
    second.join(0.2)
    assert second.is_alive() and waits  # waiting (its wait callback was called), not building
    release.set()
    first.join(TIMEOUT)
    second.join(TIMEOUT)
    assert calls == ["first"]
    assert cache.computed == 1
    assert got["a"] is got["b"]
    assert cache.get(("k",), build) is got["a"]  # and later calls read it
    assert calls == ["first"]


def test_a_waiter_builds_when_the_builder_stopped() -> None:
    cache = SharedMemo(max_bytes=10**6)
    started, release = threading.Event(), threading.Event()

    def stopped() -> int:
        started.set()
        assert release.wait(TIMEOUT)
        raise KeyboardInterrupt("tab closed")

    def fail() -> None:
        with pytest.raises(KeyboardInterrupt):
            cache.get(("k",), stopped)

    first = threading.Thread(target=fail)
    first.start()
    assert started.wait(TIMEOUT)
    out: list[int] = []
    second = threading.Thread(target=lambda: out.append(cache.get(("k",), lambda: 7, poll=0.01)))
    second.start()
    release.set()
    first.join(TIMEOUT)
    second.join(TIMEOUT)
    assert out == [7] and cache.computed == 1


def test_a_waiter_that_stops_leaves_the_builder_alone() -> None:
    cache = SharedMemo(max_bytes=10**6)
    started, release = threading.Event(), threading.Event()

    def build() -> int:
        started.set()
        assert release.wait(TIMEOUT)
        return 3

    out: list[int] = []
    first = threading.Thread(target=lambda: out.append(cache.get(("k",), build)))
    first.start()
    assert started.wait(TIMEOUT)

    def leave() -> None:
        raise TimeoutError("the waiter's tab closed")

    with pytest.raises(TimeoutError):
        cache.get(("k",), lambda: 0, wait=leave, poll=0.01)
    release.set()
    first.join(TIMEOUT)
    assert out == [3] and cache.get(("k",), lambda: 0) == 3


def test_bounded_in_bytes_least_recently_used_evicted_first() -> None:
    cache = SharedMemo(max_bytes=2 * 8000 + 500)
    for name in ("a", "b"):
        cache.get((name,), lambda: np.zeros(1000))  # 8000 bytes each
    cache.get(("a",), lambda: np.ones(1000))  # a read: "a" is now the most recent
    cache.get(("c",), lambda: np.zeros(1000))  # over the bound: "b" goes
    assert cache.get(("a",), lambda: np.full(1000, 9.0))[0] == 0.0  # still the first value
    assert cache.get(("b",), lambda: np.full(1000, 9.0))[0] == 9.0  # rebuilt
    assert cache.nbytes <= 2 * 8000 + 500 + 1000


def test_nbytes_counts_arrays_frames_and_dataclasses_once() -> None:
    a = np.zeros(10_000)
    frame = pd.DataFrame({"x": np.zeros(5_000)})
    assert 80_000 <= nbytes((a, a, [a])) < 81_000
    assert nbytes({"f": frame}) >= 40_000


def _dataset(values: list[float], name: str = "incomes.csv"):
    return table_column(pd.DataFrame({"income": values}), "income", upper=1000.0, name=name)


def test_nbytes_counts_a_figure_by_its_traces() -> None:
    """A plotly figure is counted by its data (it was once counted as an empty object, so
    the session's and the shared memo's byte bounds did not see figures at all)."""
    import plotly.graph_objects as go

    y = np.arange(200_000, dtype=float)
    fig = go.Figure(go.Scatter(x=y, y=y))
    assert memo.nbytes(fig) >= 2 * y.nbytes


def test_an_upload_is_never_shared_even_with_the_values_of_a_public_sample() -> None:
    memo.SHARED.clear()
    public = mark_public(_dataset([1.0, 2.0, 3.0]))
    upload = _dataset([1.0, 2.0, 3.0])  # same values, same name: same fingerprint
    assert upload.fingerprint == public.fingerprint
    assert is_public(public) and not is_public(upload)
    key = ("result", public.fingerprint)
    calls: list[str] = []

    def build(name: str, value: str) -> Callable[[], str]:
        def logged() -> str:
            calls.append(name)
            return value

        return logged

    assert shared(upload, key, build("upload", "u")) == "u"
    assert len(memo.SHARED) == 0  # an upload's result never enters the shared memo
    assert shared(public, key, build("public", "p")) == "p"
    assert shared(public, key, build("again", "x")) == "p"
    assert shared(upload, key, build("upload", "u")) == "u"  # never read either
    assert calls == ["upload", "public", "upload"]


def test_two_sessions_on_a_sample_run_once_and_an_upload_session_runs_its_own() -> None:
    """Two AppTest sessions (one process, as two browsers on one server): the second session's
    Run on the same sample and settings reads the first's result; an upload is not shared."""
    memo.SHARED.clear()
    before = memo.SHARED.computed
    sessions = []
    for _ in range(2):
        at = new_app()
        at.run()
        at.selectbox(key="workload_kind").select("Q3")
        at.number_input(key="trials").set_value(20)
        at.run()
        run_explorer(at)
        assert_clean(at)
        sessions.append(at)
    results = [k for k in memo.SHARED if k[0] == "result"]
    assert len(results) == 1  # one run for the two sessions
    assert memo.SHARED.computed - before == len(memo.SHARED)  # and nothing computed twice
    spec = [el.proto.spec for el in sessions[0].get("plotly_chart")]
    assert spec == [el.proto.spec for el in sessions[1].get("plotly_chart")]

    upload = new_app()
    upload.run()
    upload.switch_page("app_pages/data.py").run()
    upload.radio(key="data_source").set_value("upload").run()
    body = b"income\n" + b"\n".join(str(800 * i).encode() for i in range(1, 400))
    upload.file_uploader(key="data_upload").set_value(("mine.csv", body, "text/csv")).run()
    upload.number_input(key="domain_upper").set_value(800_000.0).run()  # U for the upload
    upload.switch_page("app_pages/explorer.py").run()
    upload.selectbox(key="workload_kind").select("Q3")
    upload.number_input(key="trials").set_value(20)
    upload.run()
    run_explorer(upload)
    assert_clean(upload)
    (answers,) = [json.loads(el.proto.spec) for el in upload.get("plotly_chart")]
    assert "mine.csv" in json.dumps(answers["layout"]["title"])  # it ran, on the upload
    assert [k for k in memo.SHARED if k[0] == "result"] == results  # the upload's: not here
    assert not [k for k in memo.SHARED if "mine.csv" in repr(k)]
