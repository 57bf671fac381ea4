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
    from app_helpers import assert_clean, kept, new_app

    from dpsum_core.simulate.config import ExperimentConfig
    from dpsum_core.simulate.cost import run_cost
    from dpsum_ui import share
    from dpsum_ui.page_state import ExplorerState
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
    assert kept(at, ExplorerState).shown is not None


# ----------------------------------------------------------------------------------------------
# Issue 27.4: fair to people, not to clicks; every session's kept results bounded in bytes
# ----------------------------------------------------------------------------------------------
def _hold(turns: Turns, **who) -> tuple[threading.Thread, threading.Event, threading.Event]:
    """A thread holding a heavy turn until released: (thread, started, release)."""
    started, release = threading.Event(), threading.Event()

    def run() -> None:
        with turns.turn(HEAVY, lambda ahead: None, poll=0.01, **who):
            started.set()
            release.wait(10)

    thread = threading.Thread(target=run)
    thread.start()
    return thread, started, release


def _queued(turns: Turns, count: int) -> None:
    for _ in range(1000):
        if turns.waiting == count:
            return
        threading.Event().wait(0.005)
    pytest.fail(f"{turns.waiting} runs queued, not {count}")


def test_a_new_heavy_click_of_a_session_replaces_its_queued_one() -> None:
    from dpsum_ui.turns import Replaced

    turns = Turns(slots=1)
    holder, started, release = _hold(turns, session="other", client="x")
    assert started.wait(10)
    outcome: list[str] = []

    def click(name: str) -> None:
        try:
            with turns.turn(HEAVY, lambda ahead: None, poll=0.01, session="s", client="c"):
                outcome.append(f"{name} ran")
        except Replaced:
            outcome.append(f"{name} replaced")

    first = threading.Thread(target=click, args=("first",))
    first.start()
    _queued(turns, 1)
    second = threading.Thread(target=click, args=("second",))
    second.start()
    first.join(10)
    assert outcome == ["first replaced"] and turns.waiting == 1  # one queued run per session
    release.set()
    holder.join(10)
    second.join(10)
    assert outcome == ["first replaced", "second ran"]


def test_one_client_holds_at_most_its_cap_of_heavy_runs() -> None:
    from dpsum_ui.turns import QueueFull

    turns = Turns(slots=1, per_client=2)
    holder, started, release = _hold(turns, session="tab1", client="alice")
    assert started.wait(10)
    queued, _, queued_release = _hold(turns, session="tab2", client="alice")
    _queued(turns, 1)
    with pytest.raises(QueueFull, match="2 heavy runs running or waiting"), turns.turn(
        HEAVY, lambda ahead: pytest.fail("a refused run waited"), session="tab3",
        client="alice",
    ):  # fmt: skip
        pytest.fail("a refused run ran")
    assert turns.waiting == 1  # nothing queued for the refused click
    other, _, other_release = _hold(turns, session="tab4", client="bob")  # another person
    _queued(turns, 2)
    for event in (release, queued_release, other_release):
        event.set()
    for thread in (holder, queued, other):
        thread.join(10)
    assert turns.running == 0 and turns.waiting == 0


def test_the_queued_seconds_are_capped() -> None:
    from dpsum_ui.turns import QueueFull

    turns = Turns(slots=1, per_client=10, max_seconds=100)
    with turns.turn(500, lambda ahead: None):  # alone: runs, whatever its estimate
        waiting = threading.Thread(
            target=lambda: turns.turn(60, lambda ahead: None, poll=0.01).__enter__()
        )
        waiting.daemon = True
        waiting.start()
        _queued(turns, 1)
        with pytest.raises(QueueFull, match="would go beyond"), turns.turn(
            50, lambda ahead: pytest.fail("a refused run waited")
        ):  # fmt: skip
            pytest.fail("a refused run ran")
        assert turns.waiting == 1


def test_turns_go_round_robin_across_clients() -> None:
    """Issue 27.4's case: four tabs of one user queue their heavy runs, then another user
    clicks; the other user's run is next, not fifth."""
    turns = Turns(slots=1, per_client=10)
    hold = threading.Event()
    started: list[str] = []

    def job(name: str, client: str) -> None:
        with turns.turn(HEAVY, lambda ahead: None, poll=0.01, session=name, client=client):
            started.append(name)
            hold.wait(10)

    threads = [threading.Thread(target=job, args=("a0", "alice"))]
    threads[0].start()
    while turns.running < 1:
        threading.Event().wait(0.005)
    for i, (name, client) in enumerate((("a1", "alice"), ("a2", "alice"), ("a3", "alice"),
                                        ("b1", "bob")), start=1):  # fmt: skip
        threads.append(threading.Thread(target=job, args=(name, client)))
        threads[-1].start()
        _queued(turns, i)
    hold.set()
    for t in threads:
        t.join(10)
    assert started == ["a0", "b1", "a1", "a2", "a3"]


def test_every_sessions_kept_results_are_bounded_in_bytes() -> None:
    from collections import OrderedDict

    import numpy as np

    from dpsum_ui.store import evict, nbytes

    mib = np.zeros(1 << 17)  # 1 MiB of float64
    assert nbytes({"answers": (mib, mib), "name": "x"}) == 2 * mib.nbytes + 1
    memos: dict[str, OrderedDict] = {"result": OrderedDict(), "figure": OrderedDict()}
    sizes: OrderedDict = OrderedDict()
    for i, kind in enumerate(("result", "figure", "result", "figure", "result")):
        memos[kind][i] = mib
        sizes[(kind, i)] = nbytes(mib)
        evict(memos, sizes, budget=3 * mib.nbytes)
    assert list(sizes) == [("result", 2), ("figure", 3), ("result", 4)]  # least recent out
    assert sorted(memos["result"]) == [2, 4] and list(memos["figure"]) == [3]
    sizes.move_to_end(("result", 2))  # a use makes it recent
    memos["figure"][5] = np.zeros(1 << 20)  # 8 MiB: alone above the bound, kept
    sizes[("figure", 5)] = nbytes(memos["figure"][5])
    evict(memos, sizes, budget=3 * mib.nbytes)
    assert list(sizes) == [("figure", 5)] and memos == {"result": {}, "figure": {5: memos["figure"][5]}}
