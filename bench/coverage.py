"""Coverage and excess width of the published 95 % intervals (issue 24 §1), through the real
release path (:func:`dpsum_core.publish.release.release`, OpenDP's samplers).

For every column (the synthetic suite of bench/accuracy.py, ``bench/columns.py columns()``,
plus a per-person file: annual earnings over several rows per person, released by person),
every algorithm × truncation offered for release, ε ∈ {0.01, 0.1, 1}, Q1 and Q2, it makes
``--trials`` releases and reports per cell, **after** (lower_95, upper_95) and **before**
(private_answer ± noise_halfwidth_95):

- ``coverage``: share of (query, release) pairs whose interval holds the true answer (an
  interval open above counts when the truth is above its lower bound);
- ``two_sided``: share of answers with a finite upper bound (bias bounded);
- ``excess_width``: 1 / the 95th percentile over two-sided answers of |truth − centre| /
  half-width (1: exactly as wide as 95 % coverage needs; 3: three times wider);
  ``excess_width_positive`` the same over answers whose truth is > 0 (a truth of 0 sits at a
  lower end clipped at 0: its ratio is exactly 1);
- ``recommended``: whether :func:`~dpsum_core.mechanisms.recommend.recommend` picks it.

Targets: coverage ≥ 0.93 in every cell where every answer is two-sided; excess width ≤ 2 for
the recommended algorithm. ``fixed`` uses θ = U/8 (a public choice, not read off the data).
Prints JSON on stdout and a table on stderr. Heavy: the full grid is 6 columns × 2 workloads ×
3 ε × 22 configurations × 200 releases; reduce with --trials, --columns, --epsilons,
--workloads, --algorithms.

    python bench/coverage.py [--trials 200] [--columns weekly,per-person] [--epsilons 0.1,1]
    nice -n 10 python bench/coverage.py --shard 0/2 --jsonl a.jsonl   # and 1/2 alongside
    python bench/coverage.py --collect a.jsonl b.jsonl                  # table + JSON of both
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.columns import columns
from dpsum_core.data.dataset import make_dataset
from dpsum_core.mechanisms.recommend import recommend
from dpsum_core.mechanisms.registry import ALGORITHMS, get
from dpsum_core.publish.release import release
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import inputs_for
from dpsum_core.truncation.params import TruncationParams
from dpsum_core.truncation.registry import TRUNCATION_METHODS

EPSILONS = (0.01, 0.1, 1.0)
WORKLOADS = ("Q1", "Q2")
COVERAGE_TARGET = 0.93
EXCESS_TARGET = 2.0


def per_person(seed: int = 5) -> tuple[np.ndarray, pd.Series]:
    """Annual earnings over several rows per person (4,856 people, ≈ 17,000 rows, U = 250 000):
    1,246 people with nothing but zero rows, the others 1–8 rows (jobs, quarters) whose total is
    log-normal with a Pareto tail."""
    rng = np.random.default_rng(seed)
    people, zeros = 4_856, 1_246
    totals = np.concatenate([
        np.zeros(zeros),
        np.minimum(rng.lognormal(np.log(32_000), 0.9, people - zeros), 2_000_000),
    ])  # fmt: skip
    rows = rng.integers(1, 9, people)
    ids = np.repeat(np.arange(people), rows)
    shares = rng.dirichlet(np.ones(8), people)[:, :8]
    parts = np.concatenate([shares[p, : rows[p]] / shares[p, : rows[p]].sum() for p in range(people)])
    values = np.rint(totals[ids] * parts)
    return values, pd.Series([f"p{i:05d}" for i in ids])


def datasets(names: set[str] | None) -> list:
    out = []
    for col in columns():
        if names is None or col.name in names:
            out.append(make_dataset(col.values, upper=col.upper, name=col.name))
    if names is None or "per-person" in names:
        values, ids = per_person()
        out.append(make_dataset(values, upper=250_000.0, name="per-person", ids=ids,
                                id_column="pid"))  # fmt: skip
    return out


def configurations(only: set[str] | None) -> list[tuple[str, str | None]]:
    """Every algorithm × truncation a release accepts (RawSum, ClampShells: their own θ)."""
    out: list[tuple[str, str | None]] = []
    for name in ALGORITHMS:
        if only is not None and name not in only:
            continue
        if get(name).runs_once:
            out.append((name, None))
        else:
            out += [(name, t) for t in TRUNCATION_METHODS]
    return out


def _measures(truth: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> dict:
    """coverage, two_sided share and excess width over (release, query) pairs."""
    finite = np.isfinite(upper)
    covered = (truth >= lower) & (~finite | (truth <= np.where(finite, upper, np.inf)))
    out: dict[str, float | None] = {"coverage": float(covered.mean()), "two_sided": float(finite.mean())}
    truth = np.broadcast_to(truth, lower.shape)
    # Over all two-sided answers, and over those whose truth is > 0: a true answer of 0 (a sum
    # of zeros) sits at a lower end clipped at 0, so its ratio is exactly 1 and would hide
    # intervals that are too wide elsewhere.
    for key, keep in (("excess_width", finite), ("excess_width_positive", finite & (truth > 0))):
        out[key] = _excess(truth[keep], lower[keep], upper[keep]) if keep.any() else None
    return out


def _excess(truth: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> float:
    """1 / the 95th percentile of |truth − centre| / half-width."""
    half = (upper - lower) / 2
    off = np.abs(truth - (upper + lower) / 2)
    ratio = np.where(half > 0, off / np.where(half > 0, half, 1.0), np.where(off > 0, np.inf, 0.0))
    p95 = float(np.quantile(ratio, 0.95))
    return float(1.0 / p95) if p95 > 0 else float("inf")


def cell(data, workload: str, epsilon: float, algorithm: str, truncation: str | None, trials: int) -> dict:
    config = ExperimentConfig(
        workload=workload, epsilon=epsilon, upper=data.upper,
        truncation_params=TruncationParams(theta=data.upper / 8),
    )  # fmt: skip
    truth = inputs_for(data, config).true_answers[None, :]
    lo, hi, old_lo, old_hi = [], [], [], []
    t0 = time.perf_counter()
    for _ in range(trials):
        rel = release(data, config, algorithm=algorithm, truncation=truncation)
        assert rel.intervals is not None  # every release publishes its intervals
        lo.append(rel.intervals.lower)
        hi.append(np.where(np.isnan(rel.intervals.upper), np.inf, rel.intervals.upper))
        old_lo.append(rel.private_answers - rel.noise_halfwidth)
        old_hi.append(rel.private_answers + rel.noise_halfwidth)
    rec = recommend(epsilon=epsilon, upper=data.upper, bins=config.bins, workload=workload)
    after = _measures(truth, np.array(lo), np.array(hi))
    before = _measures(truth, np.array(old_lo), np.array(old_hi))
    row = {
        "column": data.name, "workload": workload, "epsilon": epsilon, "algorithm": algorithm,
        "truncation": truncation or get(algorithm).theta_rule, "releases": trials,
        "recommended": rec.algorithm == algorithm, "after": after, "before": before,
        "seconds": time.perf_counter() - t0,
    }  # fmt: skip
    row["meets_coverage"] = after["two_sided"] < 1 or after["coverage"] >= COVERAGE_TARGET
    row["meets_width"] = not row["recommended"] or (
        after["excess_width"] is not None and after["excess_width"] <= EXCESS_TARGET
    )
    return row


def table(rows: list[dict]) -> str:
    lines = ["column       Q  ε     configuration          cov (before→after)  width (before→after)  2-sided",
             "-" * 100]  # fmt: skip
    for r in rows:
        b, a = r["before"], r["after"]
        w = lambda x: "  —  " if x is None else f"{x:5.2f}"  # noqa: E731
        mark = "*" if r["recommended"] else " "
        ok = "" if r["meets_coverage"] and r["meets_width"] else "  MISSED"
        lines.append(
            f"{r['column']:<12} {r['workload']} {r['epsilon']:<5} {mark}{r['algorithm'] + '/' + r['truncation']:<21} "
            f"{b['coverage']:.3f} → {a['coverage']:.3f}    {w(b['excess_width'])} → {w(a['excess_width'])}"
            f"      {a['two_sided']:.2f}{ok}"
        )
    return "\n".join(lines)


def markdown(rows: list[dict]) -> str:
    """The cells as bench/COVERAGE.md's table (grid order)."""
    def w(x: float | None) -> str:
        return "—" if x is None else f"{x:.2f}"

    order = {name: i for i, name in enumerate(ALGORITHMS)}
    key = lambda r: (r["column"], r["workload"], r["epsilon"], order[r["algorithm"]],  # noqa: E731
                     list(TRUNCATION_METHODS).index(r["truncation"])
                     if r["truncation"] in TRUNCATION_METHODS else 0)  # fmt: skip
    lines = [
        "| column | Q | ε | configuration | coverage before → after | excess width before → after"
        " | after, truth > 0 | two-sided | target |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in sorted(rows, key=key):
        b, a = r["before"], r["after"]
        rec = " (recommended)" if r["recommended"] else ""
        ok = "met" if r["meets_coverage"] and r["meets_width"] else "**missed**"
        lines.append(
            f"| {r['column']} | {r['workload']} | {r['epsilon']:g} | {r['algorithm']}/{r['truncation']}"
            f"{rec} | {b['coverage']:.3f} → {a['coverage']:.3f} | {w(b['excess_width'])} → "
            f"{w(a['excess_width'])} | {w(a['excess_width_positive'])} | {a['two_sided']:.2f} | {ok} |"
        )
    return "\n".join(lines)


def _set(text: str | None) -> set[str] | None:
    return None if text is None else {t.strip() for t in text.split(",") if t.strip()}


def tasks(args: argparse.Namespace) -> list[tuple]:
    """Every (data, workload, ε, algorithm, truncation) cell, in priority order, so that a run
    stopped early has the cells that matter most: (0) the recommended algorithm, TaMM with SVT
    and RawSum, (1) every other cell at the smallest ε, SQM (the slowest: one draw and one
    measurement per query) (2) last of them, then (3) the rest, SQM (4) last; ``--shard i/k``
    keeps every k-th of them, and cells already in ``--jsonl`` are skipped (a resumed run)."""
    cells = [
        (data, workload, eps, alg, trunc)
        for data in datasets(_set(args.columns))
        for workload in sorted(_set(args.workloads) or ())
        for eps in sorted(float(e) for e in _set(args.epsilons) or ())
        for alg, trunc in configurations(_set(args.algorithms))
    ]
    smallest = min((c[2] for c in cells), default=0.0)

    def rank(c: tuple) -> int:
        data, workload, eps, alg, trunc = c
        first = recommend(epsilon=eps, upper=data.upper, bins=1000, workload=workload).algorithm
        if alg == first or (alg, trunc) == ("tamm", "svt") or alg == "rawsum":
            return 0
        return (1 if eps == smallest else 3) + (alg == "sqm")

    cells.sort(key=rank)  # stable: the grid's order within a rank
    index, count = (int(x) for x in args.shard.split("/"))
    done = set()
    if args.jsonl is not None and args.jsonl.exists():
        for line in args.jsonl.read_text().splitlines():
            r = json.loads(line)
            done.add((r["column"], r["workload"], r["epsilon"], r["algorithm"], r["truncation"]))
    return [
        c for c in cells[index::count]
        if (c[0].name, c[1], c[2], c[3], c[4] or get(c[3]).theta_rule) not in done
    ]  # fmt: skip


def summary(rows: list[dict], seconds: float) -> dict:
    return {
        "cells": rows,
        "all_coverage_met": all(r["meets_coverage"] for r in rows),
        "all_width_met": all(r["meets_width"] for r in rows),
        "seconds": seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200, help="releases per cell")
    parser.add_argument("--columns", help="comma-separated column names (default: all + per-person)")
    parser.add_argument("--epsilons", default=",".join(map(str, EPSILONS)))
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--algorithms", help="comma-separated algorithm names (default: all)")
    parser.add_argument("--shard", default="0/1", help="i/k: run every k-th cell from the i-th")
    parser.add_argument("--jsonl", type=Path, help="append each finished cell to this file")
    parser.add_argument("--collect", nargs="+", type=Path,
                        help="print the table and JSON of cells already in these --jsonl files")  # fmt: skip
    parser.add_argument("--markdown", action="store_true",
                        help="with --collect: print bench/COVERAGE.md's table instead of JSON")  # fmt: skip
    args = parser.parse_args()
    t0 = time.perf_counter()
    if args.collect:
        rows = [json.loads(line) for f in args.collect for line in f.read_text().splitlines() if line]
        if args.markdown:
            print(markdown(rows))
            return
        print(table(rows), file=sys.stderr)
        print(json.dumps(summary(rows, sum(r["seconds"] for r in rows)), indent=1))
        return
    rows = []
    for data, workload, eps, alg, trunc in tasks(args):
        rows.append(cell(data, workload, eps, alg, trunc, args.trials))
        print(table(rows[-1:]).splitlines()[-1], file=sys.stderr, flush=True)
        if args.jsonl is not None:
            with args.jsonl.open("a") as out:
                out.write(json.dumps(rows[-1]) + "\n")
    print(table(rows), file=sys.stderr)
    print(json.dumps(summary(rows, time.perf_counter() - t0), indent=1))


if __name__ == "__main__":
    main()
