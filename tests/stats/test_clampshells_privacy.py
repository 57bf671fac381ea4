"""Privacy audit of ClampShells (CLAMPSHELLS.md) on neighbours, with a half-scale negative
control that the same harness must flag."""

from __future__ import annotations

import numpy as np
import pytest

from dpsum_core.data.dataset import make_dataset
from dpsum_core.data.domain import Domain
from dpsum_core.mechanisms import clampshells as cs
from dpsum_core.mechanisms import clampshells_locate as cl
from dpsum_core.mechanisms.workloads import make_workload
from tests.stats.harness import audit

TRIALS = 200_000


class _Recorded:
    """A Laplace source that multiplies every scale by ``factor`` (0.5: half the noise the
    claimed ε needs) and keeps each noisy array it returns."""

    def __init__(self, rng: np.random.Generator, factor: float):
        self.rng, self.factor = rng, factor
        self.draws: list[np.ndarray] = []

    def add_laplace(self, values, scale):
        values = np.asarray(values, float)
        out = values + self.rng.laplace(0.0, 1.0, values.shape) * np.asarray(scale) * self.factor
        self.draws.append(out)
        return out


def _run(data, domain, eps, factor, seed, workload=None):
    """The mechanism's full noisy output: stage-1 shell sums, J*, stage-2 node sums."""
    d = cs.design_for(domain, eps, workload)
    stats = cs.edge_statistics(data, domain)
    noise = _Recorded(np.random.default_rng(seed), factor)
    j, _ = cl.locate(stats, d, TRIALS, epsilon=eps, rng=noise)
    z2, _ = cs.measure_clamped(stats, d, j, epsilon=eps, rng=noise)
    return noise.draws[0], j, z2


@pytest.mark.slow
@pytest.mark.parametrize("spec", [None, "every:3"])
@pytest.mark.parametrize(("eps", "factor", "violated"), [(1.0, 1.0, False), (1.0, 0.5, True), (0.1, 1.0, False), (0.01, 1.0, False)])
def test_clampshells_audit_and_half_scale_control(eps, factor, violated, spec):
    """D and D plus a record at U (the worst record: it moves the top shell in stage 1 by U and
    the top node of every level by θ* in stage 2). Events: each J*, and the privacy-loss
    statistic L = log p_D(out)/p_D′(out) of the whole output (stage 1, J*, stage 2) above
    thresholds. The audit passes at ε and flags half the noise. At ε = 0.01 (tree depth 0)
    stage 2 also measures bin n on its own, where the record at U lands. With ``every:3`` the
    leaves from depth 1 are the workload's query intervals (3, 6, 9 cut the shells)."""
    domain = Domain(1000.0, 10)  # shells 0,1,2,4,8,10: J* ∈ {8, 10}
    base = np.array([50.0, 150.0, 150.0, 420.0, 850.0, 990.0])
    d1 = make_dataset(base, upper=domain.upper)
    d2 = make_dataset(np.append(base, domain.upper), upper=domain.upper)
    workload = None if spec is None else make_workload(spec, domain)
    d = cs.design_for(domain, eps, workload)
    assert d.aligned is (spec is not None and eps > 0.01)
    s1, s2 = cs.edge_statistics(d1, domain), cs.edge_statistics(d2, domain)
    b1 = d.shell_top / (cs.LOCATE_SHARE * eps)
    mu1 = {s: s.interval_sums(d.shells) for s in (s1, s2)}
    mu2 = {(s, j): cs.stage2_exact(s, d, j) for s in (s1, s2) for j in d.clamp_bins().tolist()}

    def loss(out):
        z1, j, z2 = out
        total = ((np.abs(z1 - mu1[s1]) - np.abs(z1 - mu1[s2])) / b1).sum(axis=1)
        for jj in d.clamp_bins().tolist():
            rows = j == jj
            a, b = mu2[(s1, jj)], mu2[(s2, jj)]
            scale = d.node_scale[: a.size] / eps
            z = z2[rows][:, : a.size]
            total[rows] += ((np.abs(z - a) - np.abs(z - b)) / scale).sum(axis=1)
        return total

    outs = [_run(x, domain, eps, factor, seed, workload) for seed, x in enumerate((d1, d2))]
    stats = [loss(o) for o in outs]
    events = {f"L > {t:+.2f}ε": (lambda s, t=t: s > t * eps) for t in np.linspace(-0.9, 0.9, 13)}
    result = audit(stats[0], stats[1], events, epsilon=eps)
    assert result.violated is violated, result
    j_events = {f"J* = {jj}": (lambda j, jj=jj: j == jj) for jj in d.clamp_bins().tolist()}
    assert not audit(outs[0][1], outs[1][1], j_events, epsilon=cs.LOCATE_SHARE * eps).violated
