"""Costs behind the input limits and the per-session strategy cache (issue 9).

    python -m bench.inputs [--quick] [--repeat 5]

``svt``: SVT's threshold choice (100 trials) at the paper's grid (c = 1.2, K = 17) and at the
largest grid allowed (c = the smallest fitting c, K ≤ MAX_SVT_GRID), on the whole data and
per query as SQM uses it (Q1, m = 1000). ``greedy``: a TaMM strategy (n = 1000, Q1) built
(a cache miss) against fetched (a hit): the timing channel a shared cache keyed by θ opened.
``tamm_run``: a TaMM-only Q1 run of 100 trials in a fresh session cache (a new dashboard
session) and again in the same session with another seed.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from bench.common import SAMPLE, emit, log, machine, measure, parser, repeats, timed
from dpsum_core import limits
from dpsum_core.data.domain import Domain
from dpsum_core.data.reading import load_column
from dpsum_core.mechanisms import greedy_h as strategies
from dpsum_core.mechanisms.matrix import tamm_strategy
from dpsum_core.mechanisms.workloads import make_workload
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import run_experiment
from dpsum_core.truncation.params import TruncationParams
from dpsum_core.truncation.registry import choose_theta
from dpsum_core.truncation.svt import SVT_S, svt_c_min, svt_grid_size


def svt(data, repeat: int, trials: int) -> dict:
    """SVT choice time at the paper's grid and at the largest allowed grid."""
    domain = Domain()
    tau = make_workload("Q1", domain).thresholds
    out: dict = {}
    largest = svt_c_min(domain.upper, s=50_000.0)
    assert largest is not None  # s = 50,000 < U: some c > 1 fits the grid
    for name, c in (("paper_c", 1.2), ("largest_grid", largest)):
        params = TruncationParams(svt_c=c)
        rec: dict = {"c": c, "grid_points": svt_grid_size(domain.upper, s=SVT_S.in_force(params, domain.upper), c=c)}
        for where, t in (("whole_data", None), ("per_query_q1", tau)):
            log(f"inputs: svt {name} {where}")
            rec[where] = measure(
                partial(
                    choose_theta, data, "svt", epsilon=0.001, upper=domain.upper, params=params,
                    trials=trials, rng=np.random.default_rng(0), tau=t,
                ),
                repeat=repeat,
            )  # fmt: skip
        out[name] = rec
    return out


def greedy(repeat: int) -> dict:
    """TaMM strategy: built (miss) against fetched from the cache (hit)."""
    domain = Domain()
    workload = make_workload("Q1", domain)
    thetas = iter(50_000.0 * 1.01 ** np.arange(10 * repeat))

    def miss() -> None:
        strategies.clear_caches()
        tamm_strategy(workload, domain, next(thetas))

    rec = {"miss": measure(miss, repeat=repeat)}
    tamm_strategy(workload, domain, 123_456.0)
    rec["hit"] = measure(lambda: tamm_strategy(workload, domain, 123_456.0), repeat=repeat)
    rec["miss_over_hit"] = round(rec["miss"]["median_s"] / rec["hit"]["median_s"], 1)
    return rec


def tamm_run(data, repeat: int, trials: int) -> dict:
    """A TaMM-only run in a fresh session cache, then rerun with a new seed in that session."""
    out = {}
    for trunc in ("svt", "recursive"):
        config = ExperimentConfig(truncations=(trunc,), algorithms=("tamm",), trials=trials)
        fresh, again = [], []
        for seed in range(repeat):
            with strategies.session_cache(strategies.StrategyCache(strategies.SESSION_CACHE_SIZE)):
                fresh.append(timed(lambda: run_experiment(data, config.with_(seed=seed)))[1])  # noqa: B023
                again.append(timed(lambda: run_experiment(data, config.with_(seed=seed + 99)))[1])  # noqa: B023
        out[trunc] = {
            "fresh_session_median_s": round(float(np.median(fresh)), 4),
            "same_session_new_seed_median_s": round(float(np.median(again)), 4),
        }
    return out


def main() -> None:
    """Print the JSON record."""
    args = parser(__doc__).parse_args()
    repeat = repeats(args)
    trials = 10 if args.quick else 100
    data = load_column(SAMPLE, upper=800_000)
    emit(
        {
            "machine": machine(),
            "repeat": repeat,
            "trials": trials,
            "max_svt_grid": limits.MAX_SVT_GRID,
            "svt": svt(data, repeat, trials),
            "greedy": greedy(repeat),
            "tamm_run": tamm_run(data, repeat, trials),
        }
    )


if __name__ == "__main__":
    main()
