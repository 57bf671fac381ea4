"""Issue 27 §1: cleaning by person is linear after one sort, bit-identical to adding each
person's values in ascending order one at a time, priced, and stoppable at checkpoints.

The hostile shapes of the attack, scaled down: one identifier with many rows beside many
single-row identifiers, and a placeholder identifier (``UNKNOWN``) on half the rows. The old
code ran one Python step per rank of the largest person (a numpy call each over
all people); the bound here counts the calls, not seconds.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest

from dpsum_core import limits
from dpsum_core.checkpoint import checkpoints
from dpsum_core.data.cleaning import clean, cleaning_seconds, person_totals

R = 20_000  # rows of the heavy person; the old code made ≈ R numpy calls here


class Stop(Exception):
    """What a caller raises at a checkpoint to stop the cleaning (the app: StopException)."""


def _reference(values: np.ndarray, ids: list[str]) -> dict[str, float]:
    """Each person's values sorted, added one at a time from 0.0 in plain Python floats."""
    people: dict[str, list[float]] = {}
    for v, i in zip(values.tolist(), ids, strict=True):
        people.setdefault(i, []).append(v)
    big = sys.float_info.max
    out = {}
    for i, vs in people.items():
        total = 0.0
        for v in sorted(vs):
            total += v
        out[i] = min(max(total, -big), big)
    return out


def _heavy(rows: int) -> tuple[np.ndarray, pd.Series]:
    ids = ["0"] * rows + [str(k) for k in range(1, rows + 1)]
    values = np.random.default_rng(3).integers(0, 10, 2 * rows).astype(float)
    return values, pd.Series(ids, dtype=object)


def _placeholder(rows: int) -> tuple[np.ndarray, pd.Series]:
    ids = ["UNKNOWN" if k % 2 == 0 else f"p{k}" for k in range(2 * rows)]
    values = np.random.default_rng(4).uniform(-5, 100, 2 * rows)
    return values, pd.Series(ids, dtype=object)


def _numpy_calls(fn) -> int:
    """How many numpy functions and methods (each over a whole array) ``fn`` calls: a
    structural measure of its steps."""
    calls = 0

    def count(frame, event, arg):
        nonlocal calls
        owner = getattr(arg, "__self__", None)
        module = getattr(arg, "__module__", None) or ""
        if event == "c_call" and (
            isinstance(owner, (np.ndarray, np.ufunc)) or module.startswith("numpy")
        ):
            calls += 1

    sys.setprofile(count)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return calls


@pytest.mark.parametrize("seed", range(6))
def test_totals_are_the_ascending_one_at_a_time_sums_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 4000))
    ids = [str(i) for i in rng.zipf(1.4, n)]
    pool = np.array([-0.0, 0.0, 1e308, -1e308, 0.1, -0.3, 1e-300, 2.5e15, -7.0])
    values = np.where(rng.random(n) < 0.5, rng.choice(pool, n), rng.normal(0, 1e6, n))
    totals = person_totals(values, pd.Series(ids, dtype=object))
    expected = sorted(_reference(values, ids).values())
    assert sorted(totals.tolist()) == expected  # == on floats: bit for bit (no −0.0 here)
    assert not np.signbit(totals[totals == 0]).any()  # 0.0 + (−0.0) is +0.0, as in SQL


@pytest.mark.parametrize("shape", [_heavy, _placeholder])
def test_a_heavy_identifier_costs_a_bounded_number_of_numpy_calls(shape):
    values, ids = shape(R)
    calls = _numpy_calls(lambda: person_totals(values, ids))
    assert calls < 300, calls  # the old code: ≈ R = 20,000
    expected = _reference(values, ids.tolist())
    assert sorted(person_totals(values, ids).tolist()) == sorted(expected.values())


def test_blocks_grow_like_the_square_root_of_the_rows():
    """The worst case for the blocks: one person of each size 1 … k (k(k+1)/2 rows)."""
    k = 150
    ids = pd.Series([str(s) for s in range(1, k + 1) for _ in range(s)], dtype=object)
    values = np.arange(ids.size, dtype=float)
    steps = []
    with checkpoints(lambda: steps.append(1)):
        person_totals(values, ids)
    assert len(steps) <= k + 3
    assert k <= np.sqrt(2 * ids.size)


def test_cleaning_by_person_stops_at_a_checkpoint():
    values, ids = _heavy(R)
    seen = []

    def stop() -> None:
        seen.append(1)
        raise Stop

    with pytest.raises(Stop), checkpoints(stop):
        clean(pd.Series(values), upper=10.0, ids=ids, id_column="pid")
    assert seen == [1]


def test_cleaning_is_priced_and_queued_never_refused_within_the_row_limit():
    heavy = cleaning_seconds(limits.MAX_ROWS, by_person=True)
    assert limits.QUEUE_ABOVE_SECONDS < heavy <= limits.MAX_CLICK_SECONDS
    # The attack's 14.9 MB file (2·10⁶ rows by person) is heavy enough to take a turn.
    assert cleaning_seconds(2_000_000, by_person=True) > limits.QUEUE_ABOVE_SECONDS
    assert cleaning_seconds(2_000_000, by_person=False) < cleaning_seconds(
        2_000_000, by_person=True
    )
