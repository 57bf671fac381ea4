"""Coverage and width of band totals' 95 % intervals (review 9 P2-5), through the real release
path (:func:`dpsum_core.publish.release.release`, OpenDP's samplers).

For each column of bench/columns.py (``--columns``), each algorithm (``--algorithms``; the
count-based ones with θ = U/8 fixed, RawSum and ClampShells their own), ε (``--epsilons``),
workload Q1, ``--trials`` releases; the bands are every pair of neighbouring thresholds and
the bands between the quartile thresholds (the review's "$15–20"). Per cell:

- ``coverage``: share of (band, release) pairs whose interval (:func:`band_total`: each end's
  97.5 % interval crossed) holds the true band total;
- ``naive_alike``: the same for the two 95 % intervals subtracted end by end
  ([L_h − L_l, U_h − U_l]), the mistake the report warns against;
- ``naive_crossed``: for the 95 % intervals crossed ([L_h − U_l, U_h − L_l]: promised only at
  90 %);
- ``width_ratio``: median width of the band interval ÷ that of the crossed 95 % one;
- ``excess_width``: over the quartile bands (the sparse neighbour bands' true totals sit near
  a lower end clipped at 0, which says nothing of the width), 1 / the 95th percentile over two-sided bands whose truth is > 0 of
  |truth − centre| / half-width (1: as wide as 95 % coverage needs; 3: three times wider), as
  bench/coverage.py's ``excess_width_positive`` (a true total of 0 sits on a lower end
  clipped at 0).

Prints JSON on stdout. A few minutes with the defaults:

    python bench/bands.py [--trials 100] [--columns hourly,weekly] [--epsilons 0.1,1]
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.columns import columns
from dpsum_core.data.dataset import make_dataset
from dpsum_core.mechanisms.registry import get
from dpsum_core.publish.bands import band_total
from dpsum_core.publish.release import release
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import inputs_for
from dpsum_core.truncation.params import TruncationParams


def _bands(m: int) -> list[tuple[int, int]]:
    quartiles = sorted({m // 4, m // 2, 3 * m // 4, m - 1})
    return [(i, i + 1) for i in range(m - 1)] + list(itertools.pairwise(quartiles))


def cell(data, epsilon: float, algorithm: str, trials: int) -> dict:
    config = ExperimentConfig(workload="Q1", epsilon=epsilon, upper=data.upper,
                              truncation_params=TruncationParams(theta=data.upper / 8))  # fmt: skip
    truth = inputs_for(data, config).true_answers
    bands = _bands(truth.size)
    truncation = None if get(algorithm).runs_once else "fixed"
    hits = {"coverage": 0, "naive_alike": 0, "naive_crossed": 0}
    ratios, offsets = [], []
    wide = set(bands[truth.size - 1 :])  # the quartile bands
    for _ in range(trials):
        rel = release(data, config, algorithm=algorithm, truncation=truncation)
        iv, t = rel.intervals, rel.thresholds
        assert iv is not None
        up = np.nan_to_num(iv.upper, nan=np.inf)
        for lo, hi in bands:
            y = truth[hi] - truth[lo]
            b = band_total(rel, t[lo], t[hi])
            hits["coverage"] += b.lower <= y <= np.nan_to_num(b.upper, nan=np.inf)
            hits["naive_alike"] += iv.lower[hi] - iv.lower[lo] <= y <= up[hi] - up[lo]
            crossed = (max(iv.lower[hi] - up[lo], 0.0), up[hi] - iv.lower[lo])
            hits["naive_crossed"] += crossed[0] <= y <= crossed[1]
            if np.isfinite(b.upper) and crossed[1] > crossed[0]:
                ratios.append((b.upper - b.lower) / (crossed[1] - crossed[0]))
            if (lo, hi) in wide and np.isfinite(b.upper) and b.upper > b.lower and y > 0:
                offsets.append(abs(y - (b.upper + b.lower) / 2) / ((b.upper - b.lower) / 2))
    pairs = trials * len(bands)
    return {"column": data.name, "epsilon": epsilon, "algorithm": algorithm, "trials": trials,
            "bands": len(bands), **{k: round(v / pairs, 4) for k, v in hits.items()},
            "width_ratio": round(float(np.median(ratios)), 3) if ratios else None,
            "excess_width": round(1.0 / float(np.quantile(offsets, 0.95)), 2) if offsets else None,
            }  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--trials", type=int, default=100)
    p.add_argument("--columns", default="hourly,weekly")
    p.add_argument("--epsilons", default="0.1,1")
    p.add_argument("--algorithms", default="clampshells,tamm,rawsum")
    args = p.parse_args()
    names = set(args.columns.split(","))
    out = []
    for col in (c for c in columns() if c.name in names):
        data = make_dataset(col.values, upper=col.upper, name=col.name)
        for epsilon in (float(e) for e in args.epsilons.split(",")):
            for algorithm in args.algorithms.split(","):
                out.append(cell(data, epsilon, algorithm, args.trials))
                print(json.dumps(out[-1]), file=sys.stderr)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
