"""Accuracy study: RawSum against TaMM+SVT, and the SVT/recursive start as a fraction of U.

Prints one JSON object: for every synthetic column (bench/columns.py), workload and ε, the
headline error of each configuration and the ratio TaMM+SVT / RawSum (> 1: RawSum is better),
with the metric of RAWSUM.md (mean over queries of the per-query mean relative error, δ = 100,
isotonic on) and the engine's headline (median over queries). ``--starts`` also compares the
start fractions of s and θ₀. ``--clampshells`` runs the ClampShells study instead
(CLAMPSHELLS.md): fresh synthetic columns (bench/columns.py ``clampshells_columns``), Q1 and Q2,
ε ∈ {0.01, 0.1, 1}, ratios TaMM+SVT / ClampShells and best-of(RawSum, TaMM+SVT) / ClampShells on
the median (the engine's headline) and the mean over queries, isotonic on; a table on stderr.

    python bench/accuracy.py [--trials 100] [--starts]
    python bench/accuracy.py --clampshells [--trials 100] [--columns-seed 2024]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.columns import clampshells_columns, columns
from dpsum_core.data.dataset import make_dataset
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import run_experiment
from dpsum_core.simulate.results import headline
from dpsum_core.truncation.params import TruncationParams

EPSILONS = (0.01, 0.1, 1.0)


def _errors(result) -> dict:
    out = {}
    for r in result.runs:
        rel = result.relative_errors(r, iso=True)
        out[f"{r.algorithm}/{r.truncation}"] = {
            "mean_over_queries": headline(rel, "mean"),
            "median_over_queries": headline(rel, "median"),
            "median_theta": float(np.median(r.theta)),
        }
    return out


def rawsum_vs_tamm(trials: int, seed: int) -> list[dict]:
    rows = []
    for col in columns():
        data = make_dataset(col.values, upper=col.upper, name=col.name)
        for workload in ("Q1", "Q2"):
            for eps in EPSILONS:
                # The RAWSUM.md reference: TaMM+SVT with s = U/40 (and the engine default U/16).
                cells = {}
                for label, frac in (("s=U/40", 1 / 40), ("s=U/16", 1 / 16)):
                    cfg = ExperimentConfig(
                        workload=workload, epsilon=eps, rho=0.1, truncations=("svt",),
                        algorithms=("tamm", "rawsum"), trials=trials, seed=seed, upper=col.upper,
                        truncation_params=TruncationParams(svt_s=col.upper * frac),
                    )
                    cells[label] = _errors(run_experiment(data, cfg))
                raw = cells["s=U/40"]["rawsum/posthoc"]
                ref = cells["s=U/40"]["tamm/svt"]
                rows.append({
                    "column": col.name, "workload": workload, "epsilon": eps,
                    "tamm_svt": ref, "tamm_svt_s_U16": cells["s=U/16"]["tamm/svt"], "rawsum": raw,
                    "ratio_mean": ref["mean_over_queries"] / raw["mean_over_queries"],
                    "ratio_median": ref["median_over_queries"] / raw["median_over_queries"],
                })
                print(f"{col.name} {workload} ε={eps}: ratio {rows[-1]['ratio_mean']:.2f}",
                      file=sys.stderr)
    return rows


def starts(trials: int, seed: int) -> list[dict]:
    rows = []
    for col in columns():
        data = make_dataset(col.values, upper=col.upper, name=col.name)
        for eps in EPSILONS:
            for frac in (1 / 8, 1 / 16, 1 / 40, 1 / 100):
                cfg = ExperimentConfig(
                    workload="Q1", epsilon=eps, truncations=("svt", "recursive"),
                    algorithms=("identity", "tamm"), trials=trials, seed=seed, upper=col.upper,
                    truncation_params=TruncationParams(svt_s=col.upper * frac,
                                                       rm_theta0=col.upper * frac),
                )
                result = run_experiment(data, cfg)
                rows.append({"column": col.name, "epsilon": eps, "fraction": frac,
                             "theta_ge_U": result.inactive_truncation(), **_errors(result)})
    return rows


def clampshells_study(trials: int, seed: int, columns_seed: int) -> list[dict]:
    """ClampShells against TaMM+SVT (s = U/40, ρ = 0.1: the RAWSUM.md reference) and RawSum."""
    rows = []
    for col in clampshells_columns(columns_seed):
        data = make_dataset(col.values, upper=col.upper, name=col.name)
        for workload in ("Q1", "Q2"):
            for eps in EPSILONS:
                cfg = ExperimentConfig(
                    workload=workload, epsilon=eps, rho=0.1, truncations=("svt",),
                    algorithms=("tamm", "rawsum", "clampshells"), trials=trials, seed=seed,
                    upper=col.upper, truncation_params=TruncationParams(svt_s=col.upper / 40),
                )
                err = _errors(run_experiment(data, cfg))
                cs, tamm, raw = err["clampshells/inside"], err["tamm/svt"], err["rawsum/posthoc"]
                row = {"column": col.name, "rows": int(col.values.size), "workload": workload,
                       "epsilon": eps, "tamm_svt": tamm, "rawsum": raw, "clampshells": cs}
                for over in ("median", "mean"):
                    key = f"{over}_over_queries"
                    row[f"{over}_vs_tamm"] = tamm[key] / cs[key]
                    row[f"{over}_vs_best"] = min(tamm[key], raw[key]) / cs[key]
                rows.append(row)
    return rows


def clampshells_table(rows: list[dict]) -> str:
    """Ratios (> 1: ClampShells is better), median over queries / mean over queries."""
    lines = ["column       rows   Q   ε     TaMM+SVT/CS (med, mean)  best/CS (med, mean)",
             "-" * 78]
    for r in rows:
        lines.append(
            f"{r['column']:<12} {r['rows']:>6} {r['workload']} {r['epsilon']:<5} "
            f"{r['median_vs_tamm']:>8.2f}× {r['mean_vs_tamm']:>6.2f}×        "
            f"{r['median_vs_best']:>6.2f}× {r['mean_vs_best']:>6.2f}×"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--starts", action="store_true")
    parser.add_argument("--clampshells", action="store_true")
    parser.add_argument("--columns-seed", type=int, default=2024)
    args = parser.parse_args()
    t0 = time.perf_counter()
    if args.clampshells:
        rows = clampshells_study(args.trials, args.seed, args.columns_seed)
        print(clampshells_table(rows), file=sys.stderr)
        print(json.dumps({"clampshells": rows, "seconds": time.perf_counter() - t0}, indent=1))
        return
    out = {"rawsum_vs_tamm_svt": rawsum_vs_tamm(args.trials, args.seed)}
    if args.starts:
        out["start_fractions"] = starts(args.trials, args.seed)
    ratios = [r["ratio_mean"] for r in out["rawsum_vs_tamm_svt"]]
    out["geometric_mean_ratio"] = float(np.exp(np.mean(np.log(ratios))))
    out["cells_better"] = f"{sum(r > 1 for r in ratios)} of {len(ratios)}"
    out["seconds"] = time.perf_counter() - t0
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
