"""The full paper reproduction: engine and wall time of the CLI, and the protocol side by side.

    python -m bench.reproduce [--quick] [--repeat 5] [--naive-trials 2]

``cli`` runs ``python -m dpsum_core reproduce --data sample_data/incomes.csv --out TMP --no-png``
in a fresh process each time: ``engine_s`` is the ``engine_seconds`` it writes to run.json (the
time it prints: 18 experiments, summaries and figure objects), ``wall_s`` includes interpreter
start-up, imports, loading and writing every output file. ``--quick`` passes ``--trials 2``.

``side_by_side`` runs the same 18 experiments (Q1–Q3 × ρ ∈ {0.1, 0.5} × none/SVT/recursive × 5
algorithms) with ``--naive-trials`` trials through the engine (cold caches, median) and once
through the naive reference with the engine's recorded noise, and checks every answer. A naive
run at 100 trials would take hours (GreedyH is rebuilt densely in every trial), so the ratio is
measured at equal, small trial counts; ``naive_estimate_100_trials_s`` scales the naive time
linearly (its cost is per trial) and is labelled as an estimate.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench import naive
from bench.common import (
    ROOT,
    SAMPLE,
    emit,
    log,
    machine,
    measure,
    parser,
    ratio,
    repeats,
    summarize,
    target,
)
from bench.explorer import clear_caches
from dpsum_core.data.reading import load_column
from dpsum_core.mechanisms.registry import PAPER_ALGORITHMS
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import run_experiment
from dpsum_core.truncation.params import PAPER

TARGET_S = 60.0


def cli_once(trials: int | None) -> dict:
    """One ``reproduce --no-png`` in a subprocess: wall time and the engine time it reports."""
    with tempfile.TemporaryDirectory(prefix="dpsum-repro-") as out:
        cmd = [
            sys.executable,
            "-m",
            "dpsum_core",
            "reproduce",
            "--data",
            str(SAMPLE),
            "--out",
            out,
            "--no-png",
        ]
        if trials:
            cmd += ["--trials", str(trials)]
        start = time.perf_counter()
        done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - start
        if done.returncode != 0:
            raise RuntimeError(f"reproduce failed: {done.stderr.strip()[-500:]}")
        engine = json.loads((Path(out) / "run.json").read_text())["engine_seconds"]
    return {"wall_s": wall, "engine_s": engine, "stdout": done.stdout.strip().splitlines()[-1]}


def protocol(trials: int, workloads: tuple[str, ...]) -> list[ExperimentConfig]:
    """The CLI's reproduction configurations (cli._reproduce) with ``trials`` trials."""
    base = ExperimentConfig(
        epsilon=0.01,
        truncations=("none", "svt", "recursive"),
        algorithms=PAPER_ALGORITHMS,
        truncation_params=PAPER,
        trials=trials,
        seed=0,
    )
    return [base.with_(rho=rho, workload=w) for rho in (0.1, 0.5) for w in workloads]


def side_by_side(trials: int, workloads: tuple[str, ...], repeat: int) -> dict:
    """Engine vs naive on the reproduction protocol at ``trials`` trials, answers checked."""
    data = load_column(SAMPLE, upper=800_000)
    configs = protocol(trials, workloads)
    engine = measure(
        lambda: [run_experiment(data, c) for c in configs], repeat=repeat, setup=clear_caches
    )
    naive_s, worst, equal = 0.0, 0.0, True
    for config in configs:
        log(f"reproduce: naive {config.workload} ρ = {config.rho}")
        clear_caches()
        with naive.record_noise() as tape:
            recorded = run_experiment(data, config)
        start = time.perf_counter()
        runs = naive.run_experiment(data.values, config, tape)
        naive_s += time.perf_counter() - start
        check = naive.compare_runs(recorded.runs, runs)
        equal &= check["equal"]
        worst = max(worst, check["max_rel_diff"])
    return {
        "trials": trials,
        "experiments": len(configs),
        "engine": engine,
        "naive_s": round(naive_s, 3),
        "speedup": ratio(naive_s, engine["median_s"]),
        "naive_estimate_100_trials_s": round(naive_s * 100 / trials, 1),
        "check": {"equal": bool(equal), "max_rel_diff": float(f"{worst:.3g}"), "rtol": 1e-6},
    }


def main() -> None:
    """Time the CLI reproduction several times and run the protocol side by side; print JSON."""
    p = parser(__doc__)
    p.add_argument("--naive-trials", type=int, help="trials of the side-by-side run (default 2)")
    args = p.parse_args()
    repeat = repeats(args)
    cli_trials = 2 if args.quick else None
    runs = []
    for i in range(repeat):
        log(f"reproduce: CLI run {i + 1}/{repeat}")
        runs.append(cli_once(cli_trials))
    cli = {
        "trials": cli_trials or 100,
        "wall": summarize([r["wall_s"] for r in runs]),
        "engine": summarize([r["engine_s"] for r in runs]),
        "printed": runs[-1]["stdout"],
    }
    k = args.naive_trials or (1 if args.quick else 2)
    workloads = ("Q3",) if args.quick else ("Q1", "Q2", "Q3")
    sbs = side_by_side(k, workloads, repeat)
    out = {"machine": machine(), "repeat": repeat, "cli": cli, "side_by_side": sbs}
    if not args.quick:
        sbs["speedup_estimate_100_trials"] = ratio(
            sbs["naive_estimate_100_trials_s"], cli["engine"]["median_s"]
        )
    out["targets"] = {
        "reproduce_wall_s": {**target(cli["wall"]["median_s"], TARGET_S), "trials": cli["trials"]},
        "reproduce_engine_s": {
            **target(cli["engine"]["median_s"], TARGET_S),
            "trials": cli["trials"],
        },
    }
    emit(out)


if __name__ == "__main__":
    main()
