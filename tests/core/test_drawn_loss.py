"""The ε a measurement reports is the loss of the noise it actually drew: a source that adds
no noise records each draw's exact values and Laplace scales, and for neighbours D and
D + {t} the loss Σ |v − v′| / b over every drawn coordinate must equal the ε reported — so a
draw whose scale differs from the one the ε was computed from cannot pass (privacy audit:
ClampShells' stage 2 reported its ε from the design, so halving the drawn scale passed every
exact-loss test)."""

from __future__ import annotations

import numpy as np
import pytest

from dpsum_core.data.dataset import make_dataset
from dpsum_core.mechanisms.registry import get
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import inputs_for

U, BINS = 1_000.0, 40


class Recorded:
    """A noise source that adds nothing and keeps (values, scales) of every draw."""

    def __init__(self) -> None:
        self.draws: list[tuple[np.ndarray, np.ndarray]] = []

    def add_laplace(self, values: np.ndarray, scale: float | np.ndarray) -> np.ndarray:
        v = np.asarray(values, float)
        self.draws.append((v.copy(), np.broadcast_to(np.asarray(scale, float), v.shape).copy()))
        return v.copy()


def _drawn(algorithm: str, values: np.ndarray, cap: float | None):
    config = ExperimentConfig(workload="Q1", upper=U, bins=BINS, epsilon=1.0, trials=1,
                              algorithms=(algorithm,), truncations=("none",), public_cap=cap)  # fmt: skip
    source = Recorded()
    inputs = inputs_for(make_dataset(values, upper=U), config)
    m = get(algorithm).run(inputs, np.array([np.inf]), epsilon=1.0, rng=source)
    return source.draws, m.epsilon + m.epsilon_theta


def _loss(a, b) -> float:
    assert len(a) == len(b)
    total = 0.0
    for (va, sa), (vb, sb) in zip(a, b, strict=True):
        np.testing.assert_array_equal(sa, sb)  # the scales never depend on the data
        total += float(np.sum(np.abs(va - vb) / sa))
    return total


@pytest.mark.parametrize(("algorithm", "cap"), [
    ("clampshells", 600.0), ("clampshells", U), ("rawsum", None),
    ("identity", None), ("workload", None), ("timm", None), ("tamm", None),
])  # fmt: skip
def test_the_reported_epsilon_is_the_loss_of_the_draws(algorithm, cap):
    rng = np.random.default_rng(3)
    base = np.concatenate([rng.uniform(0, U, 400), [0.0, U]])
    edges = np.arange(1, BINS + 1) * U / BINS
    before, reported = _drawn(algorithm, base, cap)
    assert reported == pytest.approx(1.0, rel=1e-12)
    losses = [_loss(before, _drawn(algorithm, np.append(base, t), cap)[0])
              for t in (0.0, 1e-9, 333.3, *edges)]  # fmt: skip
    assert max(losses) == pytest.approx(reported, rel=1e-9)  # the worst record: exactly ε
    assert all(x <= reported * (1 + 1e-9) for x in losses)
