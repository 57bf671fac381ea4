"""The command line's parser: every command, option and help text of ``dpsum`` (used by
:mod:`dpsum_core.cli`; tests walk it to check that every option says what it does)."""

from __future__ import annotations

import argparse
import itertools

from dpsum_core import __version__
from dpsum_core.data import samples
from dpsum_core.data.backends import ENGINES
from dpsum_core.data.domain import WEIGHT_RULES
from dpsum_core.errors import DataError
from dpsum_core.mechanisms.recommend import AUTO
from dpsum_core.mechanisms.registry import ALGORITHMS
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.text import NO_NEGATIVE_BAND, summed
from dpsum_core.truncation.params import PARAMETERS
from dpsum_core.truncation.registry import TRUNCATION_METHODS

EXIT_USAGE = 2


def negative_band(argv: list[str]) -> str | None:
    """What is wrong with ``--bands -5-15`` (a value starting with a minus, which argparse
    takes for an option and answers "expected one argument"), else None."""
    for flag, value in itertools.pairwise(argv):
        if flag == "--bands" and value.startswith("-") and value[1:2].isdigit():
            return f"--bands: {value!r} starts with a minus: {NO_NEGATIVE_BAND}"
    return None


def _data(source: str) -> str:
    """``--data``: a path as given, or ``sample:NAME`` as the sample's file (the one place the
    command line resolves it; an unknown name is a usage error)."""
    try:
        return samples.resolve(source)
    except DataError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line and exits 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see --help)\n")


def unit_conflict(args: argparse.Namespace) -> str | None:
    """Why --id-column and --one-row-per-person cannot be given together (two different units
    of privacy: the identifier used to win silently), or None."""
    if getattr(args, "id_column", None) is None or not getattr(args, "one_row_per_person", False):
        return None
    return (
        f"--id-column {args.id_column} and --one-row-per-person say two different units of "
        "privacy: give --id-column if the rows with the same value are one person, "
        "--one-row-per-person if every row is a different person, not both"
    )


def _number(kind):
    what = "a whole number" if kind is int else "a number"

    def parse(text: str):
        try:
            return kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None

    return parse


# Defaults come from the engine's dataclasses, so the CLI, the library and the app agree.
CONFIG = ExperimentConfig()
# dpsum run's default algorithms are the explorer's: the engine's defaults plus ``auto``, the
# one recommended for the run's own public ε, U, bins and workload (deduplicated if it is
# already among them), so the CLI and the dashboard run and name the same algorithms.
RUN_ALGORITHMS: tuple[str, ...] = (*CONFIG.algorithms, AUTO)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for tests and --help)."""
    parser = _Parser(
        prog="dpsum",
        description="Sum queries over a numeric column under differential privacy: simulate "
        "(run, reproduce), publish (release) or open the dashboard (app).",
    )
    parser.add_argument("--version", action="version", version=f"dpsum {__version__}",
                        help="print dpsum's version and exit")  # fmt: skip
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    c = CONFIG

    def common(p: argparse.ArgumentParser, *, engines: bool = True) -> None:
        """``engines=False``: --engine, --spark-master and --table are accepted only to be
        refused with an explanation (argparse would say "unrecognized")."""
        def shown(text: str) -> str:
            return text if engines else argparse.SUPPRESS

        p.add_argument(
            "--data",
            type=_data,
            help="CSV, TSV or Parquet file"
            + ("; with duckdb/spark also a folder or a glob" if engines else "")
            + "; or a sample shipped with dpsum, from any folder: "
            + ", ".join(samples.PREFIX + n for n in samples.NAMES),
        )
        p.add_argument(
            "--engine",
            choices=ENGINES,
            default="memory",
            help=shown("memory (default), duckdb (out of core) or spark: where the data summary is computed"),
        )
        p.add_argument("--spark-master", help=shown("Spark master URL (default local[*])"))
        p.add_argument("--table", help=shown("Spark table name (instead of --data)"))
        p.add_argument(
            "--column",
            help="numeric column (default: the most numeric one that does not look like a row "
            "number, an identifier, an index or a count; the choice and why are printed). A "
            "release of data with several columns requires it: it never chooses from the data",
        )
        p.add_argument(
            "--id-column",
            help="privacy identifier: rows with the same value in this column are one person, "
            f"whose values are summed before clipping to [0, U] (each query then sums the "
            f"{summed(True)} ≤ τ), and the guarantee protects that whole person (default: one "
            "row is one person)",
        )
        p.add_argument(
            "--one-row-per-person",
            action="store_true",
            help="each row is a different person (a release of data with several columns "
            "requires this or --id-column: it never judges the unit from the data; run warns "
            "when another column repeats values that look like codes of people)",
        )
        # None = "left at its default": the data is then checked against the default domain
        p.add_argument(
            "--upper", type=_number(float), help=f"public upper bound U (default {c.upper:g})"
        )
        p.add_argument("--bins", type=_number(int), default=c.bins, help=f"number of bins n of the public domain [0, U] (default {c.bins:,})")
        p.add_argument(
            "--weights", choices=WEIGHT_RULES, default=c.weights,
            help="the value each row of a bin counts as: upper (the bin's upper edge, as in the "
            f"paper) or midpoint (default {c.weights})",
        )  # fmt: skip
        p.add_argument("--out", required=True, help="output folder (created if missing)")
        p.add_argument(
            "--debug", action="store_true", help="show the traceback of an unexpected error"
        )

    def no_png(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--no-png", action="store_true",
            help="skip the PNG and SVG figures even if a browser exists (figures.html is "
            "always written)",
        )  # fmt: skip

    def method(p: argparse.ArgumentParser) -> None:
        """Workload, ε, ρ and the public parameters of the threshold choice."""
        p.add_argument("--workload", default=c.workload, help=f"Q1|Q2|Q3|every:K|values:V1,V2,… (default {c.workload})")
        p.add_argument(
            "--epsilon", type=_number(float), default=c.epsilon,
            help=f"privacy budget ε of this run or release (default {c.epsilon:g})",
        )  # fmt: skip
        # None = not typed (then c.rho): a release refuses a typed --rho it would not use
        p.add_argument(
            "--rho", type=_number(float), default=None,
            help="share of ε spent on choosing θ (ε_θ = ρ·ε) by svt and recursive; the rest "
            f"measures the sums (default {c.rho:g}). A release refuses it where θ is not "
            "chosen by svt or recursive (clampshells and rawsum choose θ with their own share, "
            "none and fixed spend nothing on θ; auto when it resolves to one of those), as it "
            "refuses --truncation there",
        )  # fmt: skip
        p.add_argument(
            "--public-cap", type=_number(float), default=None,
            help="a public top code (0 < cap ≤ U, e.g. a survey's documented cap): ClampShells "
            "clamps there at no ε cost instead of locating θ; public knowledge you state, never "
            "read from the data",
        )  # fmt: skip
        for param in PARAMETERS.values():  # as each method's module declares them
            kind = {"choices": param.choices} if param.choices else {"type": _number(float)}
            p.add_argument(param.flag, dest=param.name, default=param.default, help=param.help,
                           **kind)  # fmt: skip

    run_words = (
        "run one experiment and write answers.csv, summary.csv, run.json and its figures: noisy "
        "answers with their 5–95 % bands and relative errors, one panel per truncation method, "
        "each without and with isotonic regression, in figures.html (opens offline) and as PNG "
        "and SVG files when a browser (Chromium) is installed"
    )
    run = sub.add_parser(
        "run", description=run_words,
        help="run one experiment and write answers, summary, run.json and its figures",
    )  # fmt: skip
    common(run)
    method(run)
    run.add_argument(
        "--truncation",
        default=",".join(c.truncations),
        help=f"comma list of {','.join(TRUNCATION_METHODS)} (default {','.join(c.truncations)})",
    )
    run.add_argument(
        "--algorithms",
        default=",".join(RUN_ALGORITHMS),
        help="comma list of algorithms; auto: the one recommended from the public ε, U, bins "
        f"and workload (named in every output) (default {','.join(RUN_ALGORITHMS)}, the "
        "explorer's: the paper's five, RawSum and the recommended one)",
    )
    run.add_argument(
        "--trials", type=_number(int), default=c.trials,
        help=f"simulated releases per algorithm and truncation (default {c.trials})",
    )  # fmt: skip
    run.add_argument(
        "--delta", type=_number(float), default=c.delta,
        help="floor of the relative error's denominator, |answer − truth| / max(truth, δ), so "
        f"empty queries do not divide by 0 (default {c.delta:g})",
    )  # fmt: skip
    run.add_argument(
        "--seed", type=_number(int), default=c.seed,
        help=f"seed of the simulated noise: the same seed, the same outputs (default {c.seed})",
    )  # fmt: skip
    no_png(run)

    rel = sub.add_parser(
        "release",
        help="publish one private release (OpenDP's samplers, no seed): answers.csv, release.json, "
        "report.html, report.md",
    )
    common(rel)
    method(rel)
    rel.add_argument(
        "--algorithm",
        required=True,
        help=f"one of {', '.join(ALGORITHMS)}, or auto (recommended from public inputs)",
    )
    rel.add_argument(
        "--truncation",
        help=f"one of {','.join(TRUNCATION_METHODS)}: required (no default) for sqm, identity, "
        "workload, timm and tamm, as θ is the release's main choice; leave out for auto, rawsum "
        "(or posthoc) and clampshells (or inside), which choose θ themselves",
    )
    rel.add_argument(
        "--isotonic",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="publish isotonic-regressed answers (post-processing; default on)",
    )
    rel.add_argument(
        "--delta", type=_number(float), default=c.delta,
        help="δ of the error metric |answer − truth| / max(truth, δ): ClampShells' onset gate "
        "reads it (leading answers below their noise are 0), so a release records it "
        f"(default {c.delta:g})",
    )  # fmt: skip
    rel.add_argument(
        "--bands", metavar="LOW-HIGH,…",
        help="totals by band, e.g. 15-20,20-30 (the values above LOW and up to HIGH; edges: 0 "
        "or thresholds of the workload), listed in the report with a 95 %% interval each "
        "(post-processing: no extra ε)",
    )  # fmt: skip
    rel.add_argument(
        "--ledger", help="privacy-budget ledger of this dataset (JSON, created if missing)"
    )
    rel.add_argument(
        "--budget",
        type=_number(float),
        help="total ε this dataset may spend: a release that would go over it is refused "
        "(set once: a ledger's total changes only with --raise-budget)",
    )
    rel.add_argument(
        "--raise-budget",
        action="store_true",
        help="raise the ledger's total to --budget (recorded in the ledger: old, new, time)",
    )
    # Accepted only to be refused with an explanation (argparse would say "unrecognized").
    rel.add_argument("--seed", help=argparse.SUPPRESS)
    rel.add_argument("--trials", help=argparse.SUPPRESS)

    # Listed for --help only: main() hands `dpsum app …` to the dashboard's launcher unparsed.
    sub.add_parser("app", help="open the dashboard (Streamlit's options pass through)")
    reproduce_words = (
        "the paper's experiments (every algorithm under every truncation method, plus RawSum "
        "and ClampShells, at ε = 0.01 only, Q1–Q3 × ρ ∈ {0.1, 0.5}) with their figures"
    )
    rep = sub.add_parser("reproduce", help=reproduce_words, description=reproduce_words)
    common(rep)
    rep.add_argument("--trials", type=_number(int), default=c.trials, help=argparse.SUPPRESS)
    rep.add_argument(
        "--seed", type=_number(int), default=c.seed,
        help=f"seed of the simulated noise: the same seed, the same outputs (default {c.seed})",
    )  # fmt: skip
    no_png(rep)
    return parser
