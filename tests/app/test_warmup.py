"""The background warm-up: what it prebuilds is what the default pages use, from public inputs."""

from __future__ import annotations

from dpsum_core.mechanisms import rawsum
from dpsum_core.mechanisms.workloads import make_workload
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_ui import warmup


def test_the_warmup_shares_the_default_theta_grid_and_nothing_else() -> None:
    from dpsum_core.mechanisms import greedy_h

    greedy_h.PUBLIC_GRID.clear()
    greedy_h._PROCESS.clear()
    warmup.default_theta_grid()
    assert len(greedy_h.PUBLIC_GRID) > 0 and len(greedy_h._PROCESS) == 0


def test_the_warmup_builds_the_default_rawsum_design_before_anyone_asks() -> None:
    config = ExperimentConfig()  # the dashboard's defaults: no data enters the key
    workload = make_workload(config.workload, config.domain)
    rawsum._DESIGNS.clear()
    warmup.default_design()
    hits = rawsum._DESIGNS.hits
    rawsum.design(config.domain, workload)  # what a default run asks for
    assert rawsum._DESIGNS.hits == hits + 1 and len(rawsum._DESIGNS) == 1


def test_only_the_single_query_pages_public_theta_grid_is_shared(app) -> None:
    """A run with private θ (SVT, TaMM) shares no θ-dependent strategy; the Single query page
    shares exactly its θ grid's, a function of the public domain alone (so a grid or θ taken
    from the data would fail here), and a second session builds none of them again."""
    from app_helpers import assert_clean, new_app, run_explorer

    from dpsum_core.mechanisms import greedy_h
    from dpsum_core.mechanisms.matrix import _tamm_scale
    from dpsum_ui import present

    warmup.start().join()  # it shares the default grid too: done before the cache is cleared
    greedy_h.PUBLIC_GRID.clear()
    run_explorer(app)
    assert_clean(app)
    assert len(greedy_h.PUBLIC_GRID) == 0  # the run's θ are private: per session only
    app.switch_page("app_pages/single_query.py").run()
    assert_clean(app)
    config = ExperimentConfig()  # the page's defaults: public U, n, weights and workload
    domain = config.domain
    counts = make_workload(config.workload, domain).counts
    public = {
        greedy_h._key(counts, domain.bins, _tamm_scale(domain, t))
        for t in present.theta_grid(domain)
    }
    held = set(greedy_h.PUBLIC_GRID)
    assert held and held <= public, "a θ off the public grid entered the shared cache"
    misses = greedy_h.PUBLIC_GRID.misses
    other = new_app()
    other.run()
    other.switch_page("app_pages/single_query.py").run()
    assert_clean(other)
    assert greedy_h.PUBLIC_GRID.misses == misses
