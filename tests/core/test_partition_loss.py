"""ClampShells' partition (from tree depth 1) spends each bin's slack: the exact loss of the
draws — stage 1, the partition and stage 2 on the refined tree — for neighbours D and D + {t}
is at most ε for every t, and exactly ε for the worst record, whatever the cuts (a cut is a
function of the partition's noisy output, so the loss is measured given the cuts: here cut
sets fixed for both neighbours, from none to every query edge inside every leaf).
Fails if the partition spent more than the slack, if a cut changed a node's scale, or if bin J*
(holding the clamped records) were measured."""

from __future__ import annotations

import numpy as np
import pytest

from dpsum_core.data.dataset import make_dataset
from dpsum_core.mechanisms import clampshells as cs
from dpsum_core.mechanisms import clampshells_partition as cp
from dpsum_core.mechanisms.registry import get
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import inputs_for
from tests.core.test_drawn_loss import Recorded, _loss  # the harness of the drawn-loss tests

U, BINS = 1_000.0, 100


def _fixed_cuts(kind: str):
    """A stand-in for the segmentation: the same cuts whatever the data."""

    def cuts(d_j, y, scale, j_star, counts, epsilon):
        top = int(d_j.shells_below(j_star)) - 1
        out = []
        rng = np.random.default_rng(0)
        for c in range(d_j.cells.size - 1):
            k, a, b = int(d_j.cell_shell[c]), int(d_j.cells[c]), int(d_j.cells[c + 1])
            inside = [int(i) for i in counts if a < i < b]
            if k < top and inside and kind != "none":
                chosen = inside if kind == "all" else sorted(rng.choice(inside, (len(inside) + 1) // 2, replace=False).tolist())
                out.append((k, tuple(chosen)))
        merged: dict[int, list[int]] = {}
        for k, v in out:
            merged.setdefault(k, []).extend(v)
        key = tuple((k, tuple(sorted(v))) for k, v in sorted(merged.items()))
        return [key for _ in range(y.shape[0])]

    return cuts


def _drawn(values: np.ndarray, epsilon: float, workload: str):
    config = ExperimentConfig(workload=workload, upper=U, bins=BINS, epsilon=epsilon, trials=1,
                              algorithms=("clampshells",), truncations=("none",))  # fmt: skip
    source = Recorded()
    inputs = inputs_for(make_dataset(values, upper=U), config)
    m = get("clampshells").run(inputs, np.array([np.inf]), epsilon=epsilon, rng=source)
    return source.draws, m.epsilon + m.epsilon_theta


@pytest.mark.parametrize("epsilon", [0.1, 1.0])  # tree depth 1, and depth 2 (a level dropped)
@pytest.mark.parametrize("workload", ["Q1", "Q2"])
@pytest.mark.parametrize("kind", ["none", "half", "all"])
def test_the_partition_spends_exactly_the_slack(monkeypatch, epsilon, workload, kind):
    monkeypatch.setattr(cs, "segment_cuts", _fixed_cuts(kind))
    rng = np.random.default_rng(5)
    base = np.concatenate([rng.uniform(0, U, 3_000), rng.uniform(0, 60, 500), [0.0, U]])
    edges = np.arange(1, BINS + 1) * U / BINS
    before, reported = _drawn(base, epsilon, workload)
    assert len(before) == 3  # stage 1, the partition, stage 2
    assert reported == pytest.approx(epsilon, rel=1e-9)
    losses = [_loss(before, _drawn(np.append(base, t), epsilon, workload)[0])
              for t in (0.0, 1e-9, 333.3, U + 1.0, *edges, *(edges - U / BINS / 2))]  # fmt: skip
    assert max(losses) == pytest.approx(epsilon, rel=1e-9)  # the worst record: exactly ε
    assert all(x <= epsilon * (1 + 1e-12) for x in losses)
    at_edges = np.array(losses[4 : 4 + BINS])
    # every bin's top value loses ε (the partition takes each bin's whole slack)
    np.testing.assert_allclose(at_edges, epsilon, rtol=1e-9)


@pytest.mark.parametrize("epsilon", [0.1, 1.0])
def test_cuts_keep_every_records_stage2_loss(epsilon):
    """A cut leaf's pieces keep its scale: the refined tree's exact loss per bin is the
    uncut tree's, for random cut sets (Q1: every bin a query edge)."""
    from dpsum_core.data.domain import Domain
    from dpsum_core.mechanisms.workloads import make_workload

    domain = Domain(U, 1_000)
    d = cs.design_for(domain, epsilon, make_workload("Q1", domain))
    j = 1_000
    d_j = cp.stage2_design(d, j, ())
    rng = np.random.default_rng(1)
    for _ in range(5):
        cuts = []
        for k in range(int(d_j.shells_below(j)) - 1):
            inner = np.setdiff1d(np.arange(d_j.parts[k] + 1, d_j.parts[k + 1]), d_j.cells)
            if inner.size:
                cuts.append((k, tuple(sorted(rng.choice(inner, min(5, inner.size), replace=False).tolist()))))
        d_g = cp.stage2_design(d, j, tuple(cuts))
        assert d_g.cells.size > d_j.cells.size
        np.testing.assert_allclose(
            d_g.loss_per_bin(d_g.node_scale), d_j.loss_per_bin(d_j.node_scale), rtol=1e-12
        )
        # and never above the public tree's loss (dropping a level only lowers it)
        assert np.all(d_j.loss_per_bin(d_j.node_scale) <= d.loss_per_bin(d.node_scale) * (1 + 1e-12))


def test_bin_j_star_and_part_tops_are_never_measured():
    """β is 0 at J* (the clamped records' bin) and at the top of every part, positive below."""
    from dpsum_core.data.domain import Domain

    domain = Domain(U, 1_000)
    for eps in (0.1, 1.0):
        d = cs.design_for(domain, eps)
        for j in d.clamp_bins().tolist():
            scale = cp.partition_scale(cp.stage2_design(d, j, ()), j, eps)
            assert scale.size == j and np.isinf(scale[j - 1])
            tops = d.parts[1:][d.parts[1:] <= j]
            assert np.all(np.isinf(scale[tops - 1]))
            assert np.isfinite(scale).sum() == j - tops.size  # every other bin is measured


@pytest.mark.parametrize("workload", ["Q1", "Q2"])
def test_the_interval_finds_the_cuts_the_release_measured(monkeypatch, workload):
    """A release's interval hook rebuilds stage 2's design from the partition's draw: the same
    cuts as the mechanism chose (else the interval would read the draw on other leaves). Real
    noise (seeded numpy through the private test path) on heaped data, so cuts are made."""
    from dpsum_core.mechanisms.workloads import make_workload
    from dpsum_core.noise import SimulatedNoise
    from dpsum_core.publish import release as rel_mod

    built = []  # the designs stage 2 measured
    original = cs._measure_clamped

    def spy(stats, d, j_star, **kw):
        built.append(d)
        return original(stats, d, j_star, **kw)

    monkeypatch.setattr(cs, "_measure_clamped", spy)
    seen = []
    original_outputs = rel_mod.DrawOnce.outputs

    def outputs(self):
        seen.append(original_outputs(self))
        return seen[-1]

    monkeypatch.setattr(rel_mod.DrawOnce, "outputs", outputs)
    rng = np.random.default_rng(2)
    values = np.concatenate([np.round(rng.lognormal(3.0, 0.5, 20_000)), rng.uniform(0, 200, 2_000)])
    config = ExperimentConfig(workload=workload, upper=200.0, bins=1_000, epsilon=1.0)
    plan = rel_mod.plan_release(config, algorithm="clampshells", truncation=None)
    release = rel_mod._release_with(make_dataset(values, upper=200.0), plan,
                                    SimulatedNoise(np.random.default_rng(7)), None)  # fmt: skip
    assert len(built) == 1
    measured = built[0]
    domain = config.domain
    d = cs.design_for(domain, 1.0, make_workload(workload, domain))
    j = int(np.argmin(np.abs(domain.edges - float(release.theta)))) + 1
    again = cp.released_design(d, j, seen[-1][-2], make_workload(workload, domain).counts, 1.0)
    assert again is measured or np.array_equal(again.cells, measured.cells)
    if workload == "Q1":  # heaps at whole values: the partition cut some leaves
        assert measured.cells.size > cp.stage2_design(d, j, ()).cells.size


def test_the_seed_reaches_the_partition_and_every_later_draw():
    """Simulation: the same seed gives the same answers with the partition (its draw and the
    cut-dependent stage 2 included), another seed other answers."""
    from dpsum_core.simulate.experiment import run_experiment

    rng = np.random.default_rng(3)
    values = np.round(rng.lognormal(3.0, 0.5, 5_000))
    data = make_dataset(np.clip(values, 0, 200), upper=200.0)

    def answers(seed: int) -> np.ndarray:
        config = ExperimentConfig(workload="Q1", upper=200.0, bins=400, epsilon=1.0, trials=5,
                                  algorithms=("clampshells",), seed=seed)  # fmt: skip
        return run_experiment(data, config).runs[0].answers

    np.testing.assert_array_equal(answers(11), answers(11))
    assert not np.array_equal(answers(11), answers(12))


def test_the_per_part_cache_stays_within_its_byte_bound(monkeypatch):
    """The per-part moments and stage-1 updates of refined designs (one design per trial) are
    cached by the part's covariance: bounded in bytes on a shared server, whatever is built
    (a bound of 100 kB here, crossed many times by 200 parts of 32 kB)."""
    from dpsum_core.mechanisms import clampshells_design as cd

    monkeypatch.setattr(cd, "_BY_COV_MAX_BYTES", 100_000)
    rng = np.random.default_rng(0)
    for _ in range(200):
        V = rng.standard_normal((64, 64))
        V = V @ V.T
        cd._moments((V,))
        assert cd._by_cov_bytes[0] <= cd._BY_COV_MAX_BYTES
        assert len(cd._BY_COV) <= cd._BY_COV_MAX
    # a hit returns the same result without building it again
    V = np.eye(3)
    first = cd._memo(V, "t", lambda: (np.ones(3),))
    assert cd._memo(V, "t", lambda: (np.zeros(3),)) is first
