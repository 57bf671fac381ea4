"""Issue 27 §1 in the app: cleaning an upload by person is priced like a run (a heavy one takes
a turn on the cores) and stops at its checkpoints when the tab is closed or the user clicks
again."""

from __future__ import annotations

from contextlib import contextmanager

import pandas as pd
import pytest

from dpsum_core import limits
from dpsum_ui import datasets


class Stop(Exception):
    """Streamlit's StopException, as far as the engine can tell."""


def _table(rows: int) -> pd.DataFrame:
    return pd.DataFrame(
        {"pid": ["0"] * rows + [str(k) for k in range(1, rows + 1)], "income": [1.0] * (2 * rows)}
    )


def test_a_cleaning_by_person_stops_at_the_sessions_stop_check(monkeypatch):
    calls = []

    def stop() -> None:
        calls.append(1)
        raise Stop

    monkeypatch.setattr(datasets, "stop_check", lambda: stop)
    with pytest.raises(Stop):
        datasets._make(_table(1000), "income", 10.0, "t.csv", "pid")
    assert calls == [1]


def test_a_heavy_cleaning_takes_a_turn_and_a_light_one_does_not(monkeypatch):
    asked: list[float] = []

    class Queue:
        @contextmanager
        def turn(self, seconds, on_wait):
            asked.append(seconds)
            yield

    monkeypatch.setattr(datasets, "QUEUE", Queue())
    datasets._make(_table(100), "income", 10.0, "t.csv", "pid")
    monkeypatch.setattr(limits, "CLEAN_PERSON_ROW_SECONDS", 1.0)  # 200 rows: 200 s
    data = datasets._make(_table(100), "income", 10.0, "t.csv", "pid")
    assert asked[0] <= limits.QUEUE_ABOVE_SECONDS < asked[1]
    assert data.report.people == 101
