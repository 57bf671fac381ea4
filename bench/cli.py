"""The command line end to end: start-up (``--help``) and one explorer-sized run, fresh processes.

    python -m bench.cli [--quick] [--repeat 5]

``help_s``: ``python -m dpsum_core --help`` (interpreter start-up + the imports the parser needs).
``import_s``: ``python -c "import dpsum_core.cli"``. ``run``: ``dpsum run`` on the sample data,
Q1 × the paper's 5 algorithms × {SVT, recursive} × 100 trials, writing every output file:
``wall_s`` (what a user waits for) and ``engine_s`` (the ``timings.total_seconds`` of its
run.json, the experiment alone). Targets (issue 15): ``--help`` ≤ 0.3 s, the run ≤ 2.5 s.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import ROOT, SAMPLE, emit, machine, parser, repeats, summarize, target

HELP_TARGET_S = 0.3
RUN_TARGET_S = 2.5
RUN_ARGS = ["--workload", "Q1", "--algorithms", "sqm,identity,workload,timm,tamm",
            "--truncation", "svt,recursive", "--trials", "100", "--seed", "0"]  # fmt: skip


def _wall(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)
    return time.perf_counter() - start


def run_once(trials: str) -> tuple[float, float]:
    """One ``dpsum run`` in a fresh process: (wall seconds, engine seconds from run.json)."""
    args = [trials if a == "100" else a for a in RUN_ARGS]
    with tempfile.TemporaryDirectory(prefix="dpsum-cli-") as out:
        wall = _wall([sys.executable, "-m", "dpsum_core", "run", "--data", str(SAMPLE),
                      *args, "--out", out])
        info = json.loads((Path(out) / "run.json").read_text())
    timings = info.get("timings", {})
    engine = timings["total_seconds"]
    return wall, float(engine)


def main() -> None:
    """Time ``--help``, the import of the CLI and one run; print JSON."""
    args = parser(__doc__).parse_args()
    n = repeats(args)
    help_s = summarize([_wall([sys.executable, "-m", "dpsum_core", "--help"]) for _ in range(n)])
    import_s = summarize(
        [_wall([sys.executable, "-c", "import dpsum_core.cli"]) for _ in range(n)]
    )
    runs = [run_once("10" if args.quick else "100") for _ in range(n)]
    run = {"wall": summarize([w for w, _ in runs]), "engine": summarize([e for _, e in runs])}
    emit({
        "machine": machine(),
        "help": help_s,
        "import_cli": import_s,
        "run": run,
        "targets": {
            "help_s": target(help_s["median_s"], HELP_TARGET_S),
            "run_wall_s": target(None if args.quick else run["wall"]["median_s"], RUN_TARGET_S),
        },
    })


if __name__ == "__main__":
    main()
