"""Issue 27 §10: ClampShells' design cache is bounded in bytes, and the law of its clamp point
keeps its digits where a shell lies far above its threshold (1 − p cancelled there). (The
figure note: tests/app/test_chart_note.py; identifiers: tests/core/test_identifier_spaces.py.)"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import numpy as np
import pytest

from dpsum_core import limits
from dpsum_core.data.domain import Domain
from dpsum_core.mechanisms import clampshells_design as cs
from dpsum_core.mechanisms import clampshells_locate as locate
from dpsum_core.mechanisms.lru import LRU


def test_the_design_cache_is_bounded_in_bytes(monkeypatch):
    assert cs._DESIGNS.max_bytes == limits.MAX_CLAMPSHELLS_CACHE_BYTES
    small = LRU(32, 3 << 20, cs.design_bytes)  # 3 MiB: room for three 0.8 MB designs, not six
    monkeypatch.setattr(cs, "_DESIGNS", small)
    built = [cs.design_for(Domain(800_000.0 + k, 5000), 1.0) for k in range(6)]
    sizes = [cs.design_bytes(d) for d in built]
    assert min(sizes) > 0.5e6  # each design really is large
    assert small.nbytes <= small.max_bytes and len(small) < len(built)
    assert cs.design_for(Domain(800_005.0, 5000), 1.0) is built[-1]  # the newest is kept
    # The estimate covers the design's largest parts (its leaf covariances).
    d = built[0]
    assert cs.design_bytes(d) >= sum(v.nbytes for v in d.leaf_cov) + d.reconstruct.data.nbytes


class _Sums:
    """Edge statistics whose shell sums are chosen (the law reads nothing else)."""

    def __init__(self, sums: np.ndarray) -> None:
        self.sums = sums

    def interval_sums(self, edges: np.ndarray) -> np.ndarray:
        return self.sums


def _reference(x: list[float], d: cs.ClampShellsDesign) -> np.ndarray:
    """The law of J* in 60-digit decimals: P[k significant]·Π_{k′>k} P[k′ not]."""
    with localcontext() as ctx:
        ctx.prec = 60
        half = Decimal("0.5")
        sf = [half * (-abs(Decimal(v))).exp() if v >= 0 else 1 - half * Decimal(v).exp() for v in x]
        cdf = [1 - p for p in sf]
        j = np.maximum(d.shells[1:], d.min_clamp_bin)
        support = d.clamp_bins()
        probs = [Decimal(0)] * support.size
        for k in range(len(x)):
            above = math.prod(cdf[k + 1 :], start=Decimal(1))
            probs[int(np.searchsorted(support, j[k]))] += sf[k] * above
        probs[-1] += math.prod(cdf, start=Decimal(1))
        return np.array([float(p) for p in probs])


@pytest.mark.parametrize("far", [20.0, 30.0, 36.0])
def test_the_clamp_law_keeps_its_digits_when_a_shell_is_far_above_threshold(far, monkeypatch):
    """The top shell is significant with probability 1 − ½e^−far: every lower J* has a
    probability ∝ ½e^−far, which 1 − p computed to 0 or to a few digits. (The tail-aware raise
    is switched off here: its own law is tested in test_clampshells.py; this checks the
    complements.)"""
    monkeypatch.setattr(locate, "_raise_prob", lambda s, b, k: 0.0)
    eps = 0.1
    d = cs.design_for(Domain(800_000.0, 1000), eps)
    b = d.shell_top / (locate.LOCATE_SHARE * eps)
    x = np.linspace(-1.0, 2.0, b.size)
    x[-2] = -far  # a shell just below the top, far above its threshold
    sums = b * (locate.LOCATE_Z * math.sqrt(2.0) - x)
    x = locate.LOCATE_Z * math.sqrt(2.0) - sums / b  # as the law computes it
    _, probs = locate.clamp_law(_Sums(sums), d, eps)
    expected = _reference(x.tolist(), d)
    assert probs.sum() == pytest.approx(1.0, abs=1e-12)
    tiny = (expected > 0) & (expected < 1e-6)
    assert tiny.any()
    np.testing.assert_allclose(probs[tiny], expected[tiny], rtol=1e-12)
    np.testing.assert_allclose(probs, expected, rtol=1e-12, atol=0)

