"""Decide's published intervals: the width next to the ε offered, and the interval target's search.

    python -m bench.decide_intervals [--quick] [--repeat 3]

On the sample data (incomes.csv, U = 800 000, the default domain), Q1, with the Decide page's
default algorithms (the engine's and ClampShells) under SVT:

* ``width``: :func:`~dpsum_core.publish.planned.relative_halfwidths` of one configuration at
  one ε (the line next to the ε offered: RELEASES simulated releases), per algorithm;
* ``search``: :func:`~dpsum_core.publish.planned.interval_reaches` for a 10 % target over every
  configuration, uncached (a new session), with the number of widths it measured and the
  estimate the page prices it at before it runs (:func:`~dpsum_core.publish.planned.search_cost`).

The app memoises each width per (data, settings, configuration, ε): a new target or query
percentile only measures the ε values it had not measured.
"""

from __future__ import annotations

from functools import partial

from bench.common import SAMPLE, emit, log, machine, measure, parser, repeats, target, timed
from dpsum_core.data.reading import load_column
from dpsum_core.mechanisms.workloads import make_workload
from dpsum_core.publish.planned import (
    RELEASES,
    interval_reaches,
    relative_halfwidths,
    search_cost,
    summarize,
)
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.decision import (
    epsilon_grid,
    error_vs_epsilon,
    query_subset,
    smallest_epsilon,
)

WIDTH_TARGET_S = 0.3  # the line next to the ε offered, computed with the page


def main() -> None:
    """Time one width per algorithm and the whole search; print JSON."""
    args = parser(__doc__).parse_args()
    n = repeats(args)
    data = load_column(SAMPLE, upper=800_000)
    algorithms = ("sqm", "identity", "workload", "timm", "tamm", "rawsum", "clampshells")
    config = ExperimentConfig(workload="Q1", algorithms=algorithms)
    mask = query_subset(make_workload("Q1", config.domain).thresholds, 10)
    reaches = smallest_epsilon(error_vs_epsilon(data, config, above=10), 0.10)
    order = [(r.algorithm, r.truncation) for r in reaches]
    results: dict = {"releases": RELEASES, "width": {}}
    for name, trunc in order:
        log(f"width, {name}")
        for eps in (0.01, 0.1, 1.0):
            results["width"][f"{name}_{eps:g}"] = measure(
                partial(relative_halfwidths, data, config.with_(epsilon=eps), name, trunc),
                repeat=n,
            )
    measured: list[int] = []

    def width(name: str, trunc: str, eps: float) -> float:
        measured.append(1)
        rel = relative_halfwidths(data, config.with_(epsilon=eps), name, trunc)
        return summarize(rel, mask, name, trunc, eps).typical

    log("search, 10 % half-width")
    (found, _), seconds = timed(lambda: interval_reaches(
        order, epsilon_grid(), 0.10, width, [r.epsilon for r in reaches]))
    estimate = search_cost(config, order, [r.epsilon for r in reaches], epsilon_grid())
    results["search"] = {
        "seconds": round(seconds, 3),
        "estimated_s": round(estimate.seconds, 3),
        "widths_measured": len(measured),
        "configurations": len(order),
        "first": [found[0].algorithm, found[0].truncation, found[0].epsilon],
        "error_target_first": [reaches[0].algorithm, reaches[0].truncation, reaches[0].epsilon],
    }
    worst = max(v["median_s"] for v in results["width"].values())
    targets = {"decide_width_line_worst_s": target(worst, WIDTH_TARGET_S)}
    emit({"script": "decide_intervals", "machine": machine(), "targets": targets,
          "results": results})  # fmt: skip


if __name__ == "__main__":
    main()
