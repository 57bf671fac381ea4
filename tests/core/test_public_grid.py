"""TaMM strategies at a public θ grid are shared process-wide; any other θ stays per session."""

from __future__ import annotations

import numpy as np

from dpsum_core.data.domain import Domain
from dpsum_core.mechanisms import greedy_h
from dpsum_core.mechanisms.matrix import tamm_public_grid, tamm_strategy
from dpsum_core.mechanisms.workloads import make_workload


def test_only_the_declared_grid_enters_the_shared_cache() -> None:
    domain = Domain(800_000.0, 100, "upper")
    workload = make_workload("Q1", domain)
    grid = np.geomspace(domain.width, domain.upper, 7)
    greedy_h.PUBLIC_GRID.clear()
    own = greedy_h.StrategyCache(64)
    private = 123_456.7  # e.g. a data quantile or SVT's draw: not a grid point
    with greedy_h.session_cache(own), tamm_public_grid(workload, domain, grid):
        shared = [tamm_strategy(workload, domain, float(t)) for t in grid]
        tamm_strategy(workload, domain, private)
    assert len(own) == 1  # the private θ, and nothing else
    assert 1 <= len(greedy_h.PUBLIC_GRID) <= len(grid)  # θ ≥ the top weight share one T_θ
    # the private θ's key is nowhere in the shared cache
    scale = np.minimum(domain.bin_weights, min(private, domain.bin_weights[-1]))
    key = greedy_h._key(workload.counts, domain.bins, scale)
    assert key in list(own) and key not in list(greedy_h.PUBLIC_GRID)
    # another session gets the very same strategies from the shared cache, builds none
    other = greedy_h.StrategyCache(64)
    misses = greedy_h.PUBLIC_GRID.misses
    with greedy_h.session_cache(other), tamm_public_grid(workload, domain, grid):
        again = [tamm_strategy(workload, domain, float(t)) for t in grid]
    assert greedy_h.PUBLIC_GRID.misses == misses and len(other) == 0
    assert all(a is b for a, b in zip(shared, again, strict=True))


def test_without_a_declared_grid_every_theta_stays_in_the_session() -> None:
    domain = Domain(800_000.0, 100, "upper")
    workload = make_workload("Q1", domain)
    greedy_h.PUBLIC_GRID.clear()
    own = greedy_h.StrategyCache(64)
    with greedy_h.session_cache(own):
        tamm_strategy(workload, domain, domain.width)
    assert len(own) == 1 and len(greedy_h.PUBLIC_GRID) == 0
