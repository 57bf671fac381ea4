"""Exact sums: every value split into integer limbs so that any engine, in any order, gives the
same correctly rounded sum.

Backends add values in different orders, and floating sums depend on the order. Every value
t ≥ 0 is therefore split into three integers (:func:`limbs`): I = ⌊t⌋, F₁ = ⌊f·2⁵²⌋ and
F₂ = ⌊(f·2⁵² − F₁)·2⁵²⌋ with f = t − I; each step is exact in IEEE double arithmetic, so numpy,
DuckDB and Spark (Java) compute the same integers. Their sums are exact integers (128-bit in the
engines), Σt = ΣI + ΣF₁·2⁻⁵² + ΣF₂·2⁻¹⁰⁴, and one division in Python rounds it to the correctly
rounded double. The result is the same float whichever engine or order produced it.
Residual (documented, identical on every backend): bits of a value below 2⁻¹⁰⁴ are dropped, which
only affects values < 2⁻⁵² (every t ≥ 2⁻⁵² has no bits below 2⁻¹⁰⁴); the absolute error is below
N·2⁻¹⁰⁴. For integer-valued data below 2⁵³ (incomes) the sums equal ``np.cumsum`` exactly.
"""


from __future__ import annotations

import numpy as np

_SCALE = 2.0**52
_UNIT = 2**104  # sums are exact integers in units of 2⁻¹⁰⁴


# --------------------------------------------------------------------------------------------
# Exact sums
# --------------------------------------------------------------------------------------------
def limbs(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(I, F₁, F₂) of every value t ≥ 0 as int64: t = I + F₁·2⁻⁵² + F₂·2⁻¹⁰⁴ (+ bits < 2⁻¹⁰⁴).

    The same IEEE operations are written in SQL by the DuckDB and Spark backends.
    """
    values = np.asarray(values, float)
    whole = np.floor(values)
    scaled = (values - whole) * _SCALE
    f1 = np.floor(scaled)
    f2 = np.floor((scaled - f1) * _SCALE)
    return whole.astype(np.int64), f1.astype(np.int64), f2.astype(np.int64)


_HALF = 26  # limbs are split into 26-bit halves so that int64 prefix sums cannot overflow


def prefix_limbs(values: np.ndarray, idx: np.ndarray) -> list[tuple[int, int, int]]:
    """Exact (ΣI, ΣF₁, ΣF₂) of ``values[:i]`` for every i in ``idx`` (sorted values ≥ 0)."""
    sums = []
    for part in limbs(values):
        hi = np.concatenate(([0], np.cumsum(part >> _HALF)))[idx]
        lo = np.concatenate(([0], np.cumsum(part & ((1 << _HALF) - 1))))[idx]
        sums.append(
            [(int(h) << _HALF) + int(low) for h, low in zip(hi.tolist(), lo.tolist(), strict=True)]
        )
    return list(zip(*sums, strict=True))


class ExactPrefixSums:
    """The correctly rounded Σ values[:i] at any i (sorted values ≥ 0): the sums every engine's
    summary holds, whatever the order of the additions.

    The exact sums at every ``BLOCK``-th index are computed once (one O(N) pass); a call adds
    the limbs of the < ``BLOCK`` values between a block start and each asked index, so repeated
    calls (several per run) cost O(points · BLOCK), not O(N).
    """

    BLOCK = 1024

    def __init__(self, values: np.ndarray):
        self.values = values
        starts = np.arange(0, values.size + 1, self.BLOCK)
        self._blocks = [to_units(*s) for s in prefix_limbs(values, starts)]

    def __call__(self, idx: np.ndarray) -> np.ndarray:
        idx = np.asarray(idx, np.int64)
        wanted, where = np.unique(idx, return_inverse=True)
        return point_sums(self._units(wanted))[where].reshape(idx.shape)

    def units(self, idx: np.ndarray) -> list[int]:
        """Exact Σ values[:i] (Python ints, units of 2⁻¹⁰⁴) for every i in ``idx`` (1-D)."""
        idx = np.asarray(idx, np.int64).ravel()
        wanted, where = np.unique(idx, return_inverse=True)
        units = self._units(wanted)
        return [units[w] for w in where.tolist()]

    def _units(self, wanted: np.ndarray) -> list[int]:
        """Exact units at sorted, unique indices ``wanted``."""
        block = wanted // self.BLOCK
        start = block * self.BLOCK
        length = wanted - start
        # Every value of every partial block, in order; each segment sums < BLOCK limbs of
        # < 2⁵² each, so int64 segment sums are exact.
        first = np.cumsum(length) - length
        gathered = np.repeat(start - first, length) + np.arange(int(length.sum()))
        parts = limbs(self.values[gathered])
        nonempty = length > 0
        partial = np.zeros((3, wanted.size), np.int64)
        if nonempty.any():
            for j, part in enumerate(parts):
                partial[j, nonempty] = np.add.reduceat(part, first[nonempty])
        return [
            self._blocks[b] + to_units(int(i), int(f1), int(f2))
            for b, i, f1, f2 in zip(block.tolist(), *partial.tolist(), strict=True)
        ]


def to_units(i: int, f1: int, f2: int) -> int:
    """Exact integer Σt·2¹⁰⁴ from the sums of the three limbs."""
    return (int(i) << 104) + (int(f1) << 52) + int(f2)


def units_to_float(units: int) -> float:
    """The correctly rounded double of units·2⁻¹⁰⁴ (Python's int division rounds correctly)."""
    return units / _UNIT


def value_units(values: np.ndarray) -> list[int]:
    """Exact units of each value (used for the top-k)."""
    i, f1, f2 = limbs(values)
    return [to_units(a, b, c) for a, b, c in zip(i.tolist(), f1.tolist(), f2.tolist(), strict=True)]

def differences(units_below: list[int]) -> list[int]:
    """Exact sums between consecutive points: u₁ − 0, u₂ − u₁, … (per-bin sums from prefix sums)."""
    return [b - a for a, b in zip([0, *units_below[:-1]], units_below, strict=True)]


def point_sums(units_below: list[int]) -> np.ndarray:
    """Correctly rounded doubles of exact cumulative sums (for second passes)."""
    return np.array([units_to_float(u) for u in units_below], dtype=float)
