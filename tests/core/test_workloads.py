"""Prefix workloads (SPEC §1)."""

from __future__ import annotations

import numpy as np
import pytest

from dpsum_core.data.domain import Domain
from dpsum_core.errors import ParameterError
from dpsum_core.mechanisms.workloads import make_workload


@pytest.mark.parametrize(("spec", "m"), [("Q1", 1000), ("q2", 100), ("Q3", 10), ("every:7", 142)])
def test_named_and_every_k_sizes(spec, m):
    w = make_workload(spec, Domain())
    assert w.size == m
    assert np.all(np.diff(w.counts) > 0)
    np.testing.assert_array_equal(w.thresholds, Domain().edges[w.counts - 1])


def test_values_are_snapped_up_to_edges_and_reported():
    w = make_workload("values:1000, 800, 30000,30001", Domain())
    assert w.thresholds.tolist() == [800.0, 1600.0, 30400.0]
    assert (1000.0, 1600.0) in w.snapped and (30001.0, 30400.0) in w.snapped
    assert (800.0, 800.0) not in w.snapped


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("Q9", "unknown workload"),
        ("every:0", "K must be between"),
        ("every:2000", "K must be between"),
        ("values:", "at least one threshold"),
        ("values:10,abc", "'abc' is not a number"),
        ("values:0", "outside the domain"),
        ("values:900000", "outside the domain"),
        ("values:-5", "outside the domain"),
    ],
)
def test_bad_workloads(spec, message):
    with pytest.raises(ParameterError, match=message):
        make_workload(spec, Domain())


@pytest.mark.parametrize("n", [1, 2, 7, 16, 64])
def test_prefix_equals_dense_product(n):
    domain = Domain(float(n), n)
    w = make_workload("every:1" if n < 3 else "every:3", domain)
    z = np.random.default_rng(n).normal(size=(4, n))
    np.testing.assert_allclose(w.prefix(z), z @ w.matrix(n).T)
