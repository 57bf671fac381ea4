"""ClampShells' error "if θ* were θ" (the teaching curves over θ) clamps where the mechanism
can: at the lowest shell edge at or above θ (a public cap at θ gives the same). It read θ's own
bin, so a θ inside a leaf dropped the records between θ and the leaf's top instead of clamping
them (economist's review, P1: the truncation bias went up and down as θ rose)."""

from __future__ import annotations

import numpy as np

from dpsum_core.data.dataset import make_dataset
from dpsum_core.mechanisms import clampshells as cs
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import inputs_for


def _inputs(workload: str):
    rng = np.random.default_rng(4)
    wages = np.concatenate([np.round(rng.lognormal(3.0, 0.45, 20_000) * 2) / 2, [200.0] * 6])
    config = ExperimentConfig(workload=workload, upper=200.0, bins=200, epsilon=1.0)
    return inputs_for(make_dataset(np.clip(wages, 0, 200), upper=200.0), config)


def test_the_clamping_bias_only_shrinks_as_theta_rises():
    inputs = _inputs("Q2")
    theta = np.arange(1.0, 201.0)
    clamp, _ = cs.clampshells_bias_parts(inputs, theta, 1.0)
    top = clamp[:, -1]  # the query at τ = U: everything above θ* counts as θ*
    assert np.all(top <= 1e-6)
    assert np.all(np.diff(top) >= -1e-6 * np.abs(top).max())  # |bias| never grows with θ


def test_theta_is_read_as_the_clamp_a_public_cap_there_gives():
    inputs = _inputs("Q2")
    d = cs.design_for(inputs.domain, 1.0, inputs.workload)
    values = inputs.data.values
    for theta in (3.0, 8.5, 12.0, 16.0, 40.0, 150.0):
        j = cs.public_clamp_bin(d, theta)
        clamp_at = float(inputs.domain.edges[j - 1])
        lost = float(np.sum(np.maximum(values - clamp_at, 0.0)))  # what clamping there loses
        clamp, _ = cs.clampshells_bias_parts(inputs, np.array([theta]), 1.0)
        np.testing.assert_allclose(clamp[0, -1], -lost, rtol=1e-9)
