"""The decision view's analytic error against ε: Q1, 6 algorithms, 25 ε values (target < 0.3 s).

    python -m bench.decide [--quick] [--repeat 5]

``error_vs_epsilon`` on the sample data (incomes.csv, U = 800 000, n = 1000) with SVT, and with
none + SVT + Recursive. *Cold* clears the GreedyH strategy caches and RawSum's public design
before each run (a new session on a new server); *warm* keeps them (the app caches GreedyH per
session and the RawSum design per process). Also times the simulation check (one full run per
simulated ε, 100 trials) for comparison.
"""

from __future__ import annotations

from functools import partial

from bench.common import SAMPLE, emit, log, machine, measure, parser, repeats, target, timed
from dpsum_core import limits
from dpsum_core.data.reading import load_column
from dpsum_core.mechanisms import greedy_h as strategies
from dpsum_core.mechanisms import rawsum
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.decision import epsilon_grid, error_vs_epsilon, simulated_error_vs_epsilon

TARGET_S = 0.3


def _cold() -> None:
    strategies.clear_caches()
    rawsum._DESIGNS.clear()


def main() -> None:
    """Time the analytic curves cold and warm, and the simulation; print JSON."""
    args = parser(__doc__).parse_args()
    n = repeats(args)
    data = load_column(SAMPLE, upper=800_000)
    eps = epsilon_grid()
    results: dict = {}
    for name, truncations in (
        ("svt", ("svt",)),
        ("none_svt_recursive", ("none", "svt", "recursive")),
    ):
        config = ExperimentConfig(workload="Q1", truncations=truncations)
        log(f"analytic, {name}")
        cold = measure(partial(error_vs_epsilon, data, config, eps), repeat=n, setup=_cold)
        error_vs_epsilon(data, config, eps)
        warm = measure(partial(error_vs_epsilon, data, config, eps), repeat=n)
        results[name] = {
            "configurations": int(error_vs_epsilon(data, config, eps).groupby(
                ["algorithm", "truncation"]).ngroups),
            "epsilons": int(eps.size),
            "cold": cold,
            "warm": warm,
        }  # fmt: skip
    trials = 10 if args.quick else 100
    sim_eps = eps[:: limits.DECIDE_SIMULATE_EVERY]
    log(f"simulation, {sim_eps.size} ε × {trials} trials")
    config = ExperimentConfig(workload="Q1", trials=trials)
    _, seconds = timed(lambda: simulated_error_vs_epsilon(data, config, sim_eps))
    results["simulation_svt"] = {
        "epsilons": int(sim_eps.size),
        "trials": trials,
        "seconds": round(seconds, 3),
    }
    targets = {"decide_analytic_svt_warm_s": target(results["svt"]["warm"]["median_s"], TARGET_S)}
    emit({"script": "decide", "machine": machine(), "targets": targets, "results": results})


if __name__ == "__main__":
    main()
