"""Command line: ``python -m dpsum_core run|reproduce …`` (a stable contract; see README).

Bad input prints one line to stderr and exits with status 2; never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pa_csv

from . import figures
from .backends import ENGINES, open_backend
from .data import WEIGHT_RULES, load_column
from .errors import DpsumError, ParameterError
from .experiment import ExperimentConfig, run_experiment
from .mechanisms import ALGORITHMS
from .summary import complete, run_cut_points
from .thresholds import SVT_VARIANTS, TruncationParams

EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line and exits 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see --help)\n")


def _number(kind):
    what = "a whole number" if kind is int else "a number"

    def parse(text: str):
        try:
            return kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None

    return parse


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for tests and --help)."""
    parser = _Parser(prog="python -m dpsum_core", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--data", help="CSV, TSV or Parquet file; with duckdb/spark also a folder or a glob"
        )
        p.add_argument(
            "--engine",
            choices=ENGINES,
            default="memory",
            help="memory (default), duckdb (out of core) or spark: where the data summary is computed",
        )
        p.add_argument("--spark-master", help="Spark master URL (default local[*])")
        p.add_argument("--table", help="Spark table name (instead of --data)")
        p.add_argument("--column", help="numeric column (default: the most numeric one)")
        p.add_argument(
            "--upper", type=_number(float), default=800_000.0, help="public upper bound U"
        )
        p.add_argument("--bins", type=_number(int), default=1000, help="number of bins n")
        p.add_argument("--weights", choices=WEIGHT_RULES, default="upper", help="bin weight rule")
        p.add_argument("--out", required=True, help="output folder (created if missing)")

    run = sub.add_parser("run", help="run one experiment and write answers, summary and run.json")
    common(run)
    run.add_argument("--workload", default="Q1", help="Q1|Q2|Q3|every:K|values:V1,V2,…")
    run.add_argument("--epsilon", type=_number(float), default=0.01)
    run.add_argument("--rho", type=_number(float), default=0.1)
    run.add_argument("--truncation", default="svt", help="comma list of none,fixed,svt,recursive")
    run.add_argument("--theta", type=_number(float), help="θ for --truncation fixed (public!)")
    run.add_argument("--svt-variant", choices=SVT_VARIANTS, default="paper")
    run.add_argument("--svt-r", type=_number(float), default=0.998)
    run.add_argument("--svt-c", type=_number(float), default=1.2)
    run.add_argument("--svt-s", type=_number(float), default=50_000.0)
    run.add_argument("--rm-beta", type=_number(float), help="default 2·ε_θ/5")
    run.add_argument("--rm-theta0", type=_number(float), default=50_000.0)
    run.add_argument("--rm-mu", type=_number(float), default=0.5)
    run.add_argument("--algorithms", default=",".join(ALGORITHMS))
    run.add_argument("--trials", type=_number(int), default=100)
    run.add_argument("--delta", type=_number(float), default=100.0)
    run.add_argument("--seed", type=_number(int), default=0)

    rep = sub.add_parser("reproduce", help="the paper's protocol (SPEC §7) with its figures")
    common(rep)
    rep.add_argument("--trials", type=_number(int), default=100, help=argparse.SUPPRESS)
    rep.add_argument("--seed", type=_number(int), default=0)
    rep.add_argument(
        "--no-png", action="store_true", help="skip PNG export even if a browser exists"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        if args.command == "run":
            return _run(args)
        return _reproduce(args)
    except DpsumError as exc:
        print(f"dpsum: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        print(
            f"dpsum: error: cannot write output ({exc.strerror or exc}): {exc.filename or ''}".rstrip(
                ": "
            ),
            file=sys.stderr,
        )
        return EXIT_USAGE


def _out_dir(path: str) -> Path:
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise ParameterError(f"--out {out} exists and is not a folder")
    out.mkdir(parents=True, exist_ok=True)
    return out


def _run(args: argparse.Namespace) -> int:
    params = TruncationParams(
        svt_variant=args.svt_variant,
        svt_r=args.svt_r,
        svt_c=args.svt_c,
        svt_s=args.svt_s,
        rm_beta=args.rm_beta,
        rm_theta0=args.rm_theta0,
        rm_mu=args.rm_mu,
        theta=args.theta,
    )
    config = ExperimentConfig(
        workload=args.workload,
        epsilon=args.epsilon,
        rho=args.rho,
        truncations=tuple(args.truncation.split(",")),
        algorithms=tuple(args.algorithms.split(",")),
        trials=args.trials,
        delta=args.delta,
        seed=args.seed,
        upper=args.upper,
        bins=args.bins,
        weights=args.weights,
        truncation_params=params,
    )
    data, run = _open(args, config)
    out = _out_dir(args.out)
    _print_cleaning(data)
    result = run(config)
    write_csv(result.answers_frame(), out / "answers.csv")
    write_csv(result.summary(), out / "summary.csv")
    (out / "run.json").write_text(json.dumps(result.run_info(), indent=2, default=_json_default))
    print(
        f"{len(result.runs)} configurations × {config.trials} trials on {data.name} "
        f"({result.workload.size} queries) in {result.seconds:.2f} s → {out}/"
    )
    print(
        result.overview()[
            ["algorithm", "truncation", "mean_rel_error", "mean_rel_error_iso"]
        ].to_string(index=False)
    )
    return 0


def _reproduce(args: argparse.Namespace) -> int:
    out = _out_dir(args.out)
    base = ExperimentConfig(
        epsilon=0.01,
        truncations=("none", "svt", "recursive"),
        algorithms=ALGORITHMS,
        trials=args.trials,
        seed=args.seed,
        upper=args.upper,
        bins=args.bins,
        weights=args.weights,
    )
    data, run = _open(args, base)
    _print_cleaning(data)
    start = time.perf_counter()
    summaries, figs, runs = [], [], []
    for rho in (0.1, 0.5):
        for workload in ("Q1", "Q2", "Q3"):
            result = run(base.with_(rho=rho, workload=workload))
            frame = result.summary()
            frame.insert(0, "rho", rho)
            frame.insert(0, "workload", workload)
            summaries.append(frame)
            runs.append({"workload": workload, "rho": rho, **result.run_info()})
            tag = f"{workload}, ρ = {rho:g}"
            figs += [
                (
                    f"Figure 2 — noisy answers, {tag}",
                    figures.small_multiples_figure(result, iso=True, kind="answers"),
                ),
                (
                    f"Figure 3 — relative error, {tag}",
                    figures.small_multiples_figure(result, iso=True),
                ),
                (
                    f"Figure 4 — isotonic regression (SVT), {tag}",
                    figures.isotonic_figure(result, "svt"),
                ),
            ]
    engine_seconds = time.perf_counter() - start
    write_csv(pd.concat(summaries, ignore_index=True), out / "summary.csv")
    (out / "run.json").write_text(
        json.dumps(
            {"engine_seconds": engine_seconds, "runs": runs}, indent=2, default=_json_default
        )
    )
    (out / "figures.html").write_text(
        figures.report_html(figs, title=f"dpsum reproduction on {data.name}")
    )
    png = 0
    if not args.no_png and figures.browser_available():
        with figures.image_export():
            for i, (_, fig) in enumerate(figs, start=1):
                (out / f"figure_{i:02d}.png").write_bytes(figures.to_image(fig))
                png += 1
    print(
        f"18 experiments (Q1–Q3 × ρ ∈ {{0.1, 0.5}}, 15 configurations each) in {engine_seconds:.1f} s; "
        f"wrote summary.csv, run.json, figures.html and {png} PNG files to {out}/"
        + ("" if png or args.no_png else " (no browser found: PNG export skipped)")
    )
    return 0


def _open(args: argparse.Namespace, config: ExperimentConfig):
    """The data (a Dataset in memory, else a summary) and a function running a config on it.

    With duckdb/spark the run works on a data summary computed once; a configuration that needs
    a statistic the summary lacks gets it by a second pass (dpsum_core.summary.complete)."""
    if args.data is None and not (args.engine == "spark" and args.table):
        raise ParameterError("--data is required (or --table with --engine spark)")
    if args.engine == "memory":
        if args.table or args.spark_master:
            raise ParameterError("--table and --spark-master need --engine spark")
        data = load_column(args.data, upper=config.upper, column=args.column)
        return data, lambda cfg: run_experiment(data, cfg)
    backend = open_backend(
        args.data,
        upper=config.upper,
        column=args.column,
        engine=args.engine,
        spark_master=args.spark_master,
        table=args.table,
    )
    state = {"summary": backend.summarize(run_cut_points(config))}

    def run(cfg: ExperimentConfig):
        result, state["summary"] = complete(
            # A DataSummary answers every question run_experiment asks of a Dataset (same
            # method names); the engine's annotations still say Dataset.
            state["summary"],
            lambda s: run_experiment(s, cfg),  # type: ignore[arg-type]
            backend.extend,
        )
        return result

    return state["summary"], run


def _print_cleaning(data) -> None:
    print(f"{data.name}, column {data.column!r}: " + " ".join(data.report.lines()))


def write_csv(frame: pd.DataFrame, path: Path) -> None:
    """Write a frame as CSV with Arrow's writer (≈20× faster than pandas for answers.csv)."""
    table = pa.Table.from_pandas(frame, preserve_index=False)
    pa_csv.write_csv(table, path, write_options=pa_csv.WriteOptions(quoting_style="needed"))


def _json_default(value):
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")
