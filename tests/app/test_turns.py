"""Issue 17: heavy runs of all sessions take turns on the cores (dpsum_ui/turns.py); light runs
never wait, and a waiting run can be stopped."""

from __future__ import annotations

import threading

import pytest

from dpsum_core import limits
from dpsum_ui.turns import Turns

HEAVY = limits.QUEUE_ABOVE_SECONDS + 1
LIGHT = limits.QUEUE_ABOVE_SECONDS


class Stop(Exception):
    """What the page raises when its session goes away (Streamlit's StopException)."""


def test_a_second_heavy_run_waits_and_sees_how_many_are_ahead() -> None:
    turns = Turns(slots=1)
    first_in, release = threading.Event(), threading.Event()
    order: list[str] = []
    seen: list[int] = []

    def first() -> None:
        with turns.turn(HEAVY, lambda ahead: None):
            order.append("first")
            first_in.set()
            release.wait(10)
        order.append("first done")

    def second() -> None:
        with turns.turn(HEAVY, seen.append, poll=0.01):
            order.append("second")

    a = threading.Thread(target=first)
    a.start()
    assert first_in.wait(10)
    b = threading.Thread(target=second)
    b.start()
    b.join(0.3)
    assert b.is_alive() and turns.waiting == 1 and order == ["first"]  # it waits its turn
    assert seen and set(seen) == {1}  # "Queued: 1 run ahead"
    # a light run is not blocked by the queue
    with turns.turn(LIGHT, lambda ahead: pytest.fail("a light run waited")):
        order.append("light")
    release.set()
    a.join(10)
    b.join(10)
    assert order == ["first", "light", "first done", "second"]
    assert turns.running == 0 and turns.waiting == 0


def test_a_waiting_run_stops_when_its_session_goes_away() -> None:
    turns = Turns(slots=1)
    with turns.turn(HEAVY, lambda ahead: None):
        calls: list[int] = []

        def stop(ahead: int) -> None:
            calls.append(ahead)
            if len(calls) == 3:
                raise Stop

        with pytest.raises(Stop), turns.turn(HEAVY, stop, poll=0.01):
            pytest.fail("a stopped run ran")
        assert turns.waiting == 0 and turns.running == 1  # it left the queue
    assert turns.running == 0


def test_first_come_first_served() -> None:
    turns = Turns(slots=1)
    hold = threading.Event()
    started: list[int] = []

    def job(i: int) -> None:
        with turns.turn(HEAVY, lambda ahead: None, poll=0.01):
            started.append(i)
            hold.wait(10)

    threads = [threading.Thread(target=job, args=(0,))]
    threads[0].start()
    while turns.running < 1:
        threading.Event().wait(0.005)
    for i in (1, 2, 3):  # queued one after the other
        threads.append(threading.Thread(target=job, args=(i,)))
        threads[-1].start()
        while turns.waiting < i:
            threading.Event().wait(0.005)
    hold.set()
    for t in threads:
        t.join(10)
    assert started == [0, 1, 2, 3]


def test_a_heavy_click_in_the_app_waits_for_its_turn_then_runs() -> None:
    """The Explorer's Run goes through the process-wide queue: while every slot is held, the
    click waits (queued, not computing); when one frees, it runs and shows its result."""
    from app_helpers import assert_clean, new_app

    from dpsum_core.simulate.config import ExperimentConfig
    from dpsum_core.simulate.cost import run_cost
    from dpsum_ui import share
    from dpsum_ui.store import EXPLORER_RESULT
    from dpsum_ui.turns import QUEUE

    heavy = ExperimentConfig(trials=300, algorithms=("tamm",), truncations=("recursive",))
    assert limits.QUEUE_ABOVE_SECONDS < run_cost(heavy).seconds < limits.MAX_CLICK_SECONDS
    at = new_app(**share.config_to_query(heavy, sample="incomes.csv", column="income"))
    at.run()  # the link restores the settings; above a link's budget, it does not run
    assert at.session_state["trials"] == 300
    holders, release = [], threading.Event()
    for _ in range(QUEUE.slots):  # other sessions' heavy runs hold every turn
        started = threading.Event()

        def hold(started: threading.Event = started) -> None:
            with QUEUE.turn(HEAVY, lambda ahead: None):
                started.set()
                release.wait(60)

        holders.append(threading.Thread(target=hold))
        holders[-1].start()
        assert started.wait(10)
    at.button(key="explorer_run").click()
    clicked = threading.Thread(target=at.run, kwargs={"timeout": 120})
    clicked.start()
    for _ in range(3000):  # up to 30 s for the script to reach the queue
        if QUEUE.waiting or not clicked.is_alive():
            break
        threading.Event().wait(0.01)
    assert QUEUE.waiting == 1, "the click did not wait for a turn"  # queued behind the held turns
    release.set()
    for t in holders:
        t.join(10)
    clicked.join(120)
    assert_clean(at)
    assert QUEUE.waiting == 0 and QUEUE.running == 0
    assert at.session_state[EXPLORER_RESULT] is not None
