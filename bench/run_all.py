"""Run every benchmark, each in a fresh process, and write one combined JSON (also printed).

    python -m bench.run_all [--quick] [--repeat N] [--only greedy,explorer] [--out FILE]

The combined JSON has ``targets`` (every target with value, limit and pass/fail), ``speedups``
(engine vs naive reference, measured side by side), ``exponents`` (bench/scaling.py) and the
full output of each script under ``scripts``. Default output: bench/results/run_all.json
(bench/results/run_all_quick.json with ``--quick``); that folder is not committed.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from bench.common import ROOT, emit, log, machine, parser, run_json

SCRIPTS = (
    "browser", "greedy", "ingest", "memory", "explorer", "decide", "reproduce", "scaling",
)  # fmt: skip


def speedups(scripts: dict) -> dict:
    """Every naive / engine ratio the scripts measured, with the trials it was measured at."""
    out = {}
    for name, rec in scripts.get("greedy", {}).get("results", {}).items():
        out[f"greedy_h_{name}"] = rec["speedup"]
    for trunc, rec in scripts.get("explorer", {}).get("results", {}).items():
        if "speedup" not in rec:
            continue
        out[f"explorer_{trunc}"] = {
            "speedup": rec["speedup"],
            "trials": rec["side_by_side"]["trials"],
            "equal": rec["side_by_side"]["check"]["equal"],
        }
    for name, rec in scripts.get("ingest", {}).get("results", {}).items():
        if "speedup" in rec:
            out[f"ingest_{name}"] = rec["speedup"]
    sbs = scripts.get("reproduce", {}).get("side_by_side")
    if sbs:
        out["reproduce_protocol"] = {
            "speedup": sbs["speedup"],
            "trials": sbs["trials"],
            "equal": sbs["check"]["equal"],
            "estimate_at_100_trials": sbs.get("speedup_estimate_100_trials"),
        }
    return out


def main() -> None:
    """Run the scripts, merge their JSON, write and print it."""
    p = parser(__doc__)
    p.add_argument("--only", help=f"comma list of scripts (default all: {','.join(SCRIPTS)})")
    p.add_argument("--out", help="combined JSON file")
    args = p.parse_args()
    chosen = args.only.split(",") if args.only else list(SCRIPTS)
    unknown = sorted(set(chosen) - set(SCRIPTS))
    if unknown:
        p.error(f"unknown script(s) {', '.join(unknown)}; choose from {', '.join(SCRIPTS)}")
    flags = (["--quick"] if args.quick else []) + (
        ["--repeat", str(args.repeat)] if args.repeat else []
    )
    start = time.perf_counter()
    scripts, seconds = {}, {}
    for name in chosen:
        log(f"run_all: {name}")
        t0 = time.perf_counter()
        scripts[name] = run_json([f"bench.{name}", *flags])
        seconds[name] = round(time.perf_counter() - t0, 1)
    targets = {k: v for s in scripts.values() for k, v in s.get("targets", {}).items()}
    combined = {
        "machine": machine(),
        "quick": args.quick,
        "seconds": {**seconds, "total": round(time.perf_counter() - start, 1)},
        "all_targets_pass": all(t.get("pass") is not False for t in targets.values()),
        "targets": targets,
        "speedups": speedups(scripts),
        "exponents": scripts.get("scaling", {}).get("exponents", {}),
        "errors": {k: v for k, v in scripts.items() if "error" in v},
        "scripts": scripts,
    }
    out = (
        Path(args.out)
        if args.out
        else ROOT / "bench" / "results" / ("run_all_quick.json" if args.quick else "run_all.json")
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(combined, indent=2, ensure_ascii=False))
    emit(combined)
    log(f"run_all: wrote {out}")


if __name__ == "__main__":
    main()
