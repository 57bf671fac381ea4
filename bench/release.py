"""A release on Q1 (m = 1000 queries, n = 1000 bins, 45 000 records): every algorithm and
truncation method, drawn with OpenDP's samplers.

    python -m bench.release [--quick] [--repeat 5]

``release``: the library call (:func:`dpsum_core.publish.release.release`: θ choice, measurement,
isotonic regression), median of ``--repeat`` calls after one warm-up (which builds the public
strategies and designs; ``first_call_s`` is that cold call). ``expected_error``: the
confirmation step's estimate. ``cli``: the whole ``dpsum release`` command in a fresh process
(start-up, reading the CSV, OpenDP import, ledger), TaMM with SVT. ``opendp_draw_us``: the cost
of one OpenDP Laplace draw. ``release_cpu``: the CPU time of a release (the wall time on a
shared machine also measures the load). Target: a release well under a few seconds (≤ 2 s).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.common import SAMPLE, emit, log, machine, measure, parser, repeats, target, timed
from dpsum_core.data.reading import load_column
from dpsum_core.mechanisms.registry import get
from dpsum_core.noise import OpenDPNoise
from dpsum_core.publish.release import expected_error, plan_release, release
from dpsum_core.simulate.config import ExperimentConfig

PAIRS = [(a, t) for a in ("sqm", "identity", "workload", "timm", "tamm")
         for t in ("none", "svt", "recursive")] + [("clampshells", None), ("rawsum", None)]  # fmt: skip
LIMIT_S = 2.0


def cli(repeat: int) -> dict:
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(repeat):
            cmd = [sys.executable, "-m", "dpsum_core", "release", "--data", str(SAMPLE),
                   "--workload", "Q1", "--algorithm", "tamm", "--truncation", "svt",
                   "--out", f"{tmp}/out{i}", "--ledger", f"{tmp}/ledger.json"]  # fmt: skip
            start = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True, cwd=Path(__file__).parents[1])
            times.append(time.perf_counter() - start)
    return {"median_s": round(float(np.median(times)), 4), "runs": repeat}


def cpu(fn, *, repeat: int) -> dict:
    """Median and min of the CPU time of ``fn()`` (``time.process_time``): on a shared machine
    the wall time measures the load as much as the release."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return {"median_s": round(float(np.median(times)), 5), "min_s": round(min(times), 5)}


def main() -> None:
    """Print the JSON record."""
    args = parser(__doc__).parse_args()
    repeat = repeats(args)
    data = load_column(SAMPLE, upper=800_000)
    config = ExperimentConfig(workload="Q1")
    pairs = PAIRS[:3] + PAIRS[-1:] if args.quick else PAIRS
    out: dict = {}
    for alg, trunc in pairs:
        name = f"{alg}/{trunc or get(alg).theta_rule}"
        log(f"release: {name}")
        _, cold = timed(lambda: release(data, config, algorithm=alg, truncation=trunc))  # noqa: B023
        plan = plan_release(config, algorithm=alg, truncation=trunc)
        out[name] = {
            "first_call_s": round(cold, 4),
            "release": measure(
                lambda: release(data, config, algorithm=alg, truncation=trunc),  # noqa: B023
                repeat=repeat,
            ),
            "release_cpu": cpu(
                lambda: release(data, config, algorithm=alg, truncation=trunc),  # noqa: B023
                repeat=repeat,
            ),
            "expected_error": measure(lambda: expected_error(data, plan), repeat=repeat),  # noqa: B023
        }
    noise = OpenDPNoise()
    draws = np.zeros(20_000)
    _, seconds = timed(lambda: noise.add_laplace(draws, 1.0))
    slowest = max(v["release"]["median_s"] for v in out.values())
    emit(
        {
            "machine": machine(),
            "repeat": repeat,
            "workload": "Q1",
            "releases": out,
            "opendp_draw_us": round(seconds / draws.size * 1e6, 2),
            "cli_tamm_svt": cli(repeat),
            "targets": {"slowest_release_median_s": target(slowest, LIMIT_S)},
        }
    )


if __name__ == "__main__":
    main()
