"""Command line: ``dpsum run|release|reproduce|app …`` or ``python -m dpsum_core …`` (a stable contract; see README).

Bad input prints one line to stderr and exits with status 2; never a traceback. Anything
else is a bug: one line saying so, exit status 1, and ``--debug`` shows the traceback.
The heavy libraries (pandas, pyarrow, plotly, OpenDP) are imported by the command that uses
them, so ``dpsum --help`` answers without loading them (bench/cli.py measures it).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, cast

from dpsum_core.cli_parser import CONFIG as _CONFIG
from dpsum_core.cli_parser import EXIT_USAGE, build_parser, negative_band, unit_conflict
from dpsum_core.cli_text import accuracy_text, cleaning_line
from dpsum_core.data.backends import open_backend
from dpsum_core.data.domain import domain_warnings
from dpsum_core.data.identifiers import few_distinct
from dpsum_core.data.summary import complete
from dpsum_core.errors import DataStatisticError, DpsumError, ParameterError
from dpsum_core.mechanisms.registry import PAPER_ALGORITHMS, label, truncation_label
from dpsum_core.mechanisms.workloads import make_workload, snapping_words
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.notice import NOT_FOR_PUBLICATION, UNNOISED, with_notice
from dpsum_core.text import counted, large_epsilon, number
from dpsum_core.truncation.params import PAPER, PARAMETERS, TruncationParams

if TYPE_CHECKING:
    import pandas as pd

    from dpsum_core.data.dataset import Dataset

EXIT_BUG = 1


def _upper(args: argparse.Namespace) -> float:
    return _CONFIG.upper if args.upper is None else args.upper


def _check_domain(args: argparse.Namespace, data, domain) -> None:
    """Warn on stderr when the domain fits the data badly (U far too large or too small), as
    the Data page does, whether U was given or left at its default; and when the identifier
    has so few distinct values that they are a category, not people (``few_distinct``).

    Privacy: the warning reads the data and goes to the operator's terminal only, never into
    the outputs.
    """
    default = "" if args.upper is not None else f" (--upper was left at its default {_CONFIG.upper:g})"
    for message in domain_warnings(data, domain):  # exact counts: marked, as the cleaning report
        print(f"dpsum: warning {UNNOISED}: {message}{default}", file=sys.stderr)
    report = getattr(data, "report", None)  # a summary read from SQL has its own
    if report is not None and report.people is not None and few_distinct(report.people, report.rows_kept):
        rows = report.rows_kept  # the app's Data page cautions the same (dpsum_ui.identifiers)
        print(
            f"dpsum: warning {UNNOISED}: --id-column {report.id_column!r} may not identify "
            f"people: {counted(report.people, 'distinct value')} for {counted(rows, 'row')}; at "
            f"most √rows ≈ {rows**0.5:,.0f} is a category shared by many rows, and each value's "
            "rows are summed into one total clipped to [0, U]. Name the column that identifies "
            "a person, or use --one-row-per-person, unless this is what you mean.",
            file=sys.stderr,
        )  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["app"]:
        return _app(argv[1:])
    parser = build_parser()
    if said := negative_band(argv):  # argparse would read it as an option
        print(f"dpsum: error: {said}", file=sys.stderr)
        return EXIT_USAGE
    args = parser.parse_args(argv)
    if conflict := unit_conflict(args):  # before anything is read
        parser.error(conflict)
    try:
        if args.command == "run":
            return _run(args)
        if args.command == "release":
            return _release(args)
        return _reproduce(args)
    except DpsumError as exc:  # a refusal stating an exact count of the data is marked
        mark = f" {UNNOISED}" if isinstance(exc, DataStatisticError) else ""
        print(f"dpsum: error{mark}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        where = f"cannot write output ({exc.strerror or exc}): {exc.filename or ''}".rstrip(": ")
        print(f"dpsum: error: {where}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:
        if args.debug:
            raise
        print(
            f"dpsum: internal error (this is a bug in dpsum, please report it): "
            f"{type(exc).__name__}: {exc}; rerun with --debug to see the traceback",
            file=sys.stderr,
        )
        return EXIT_BUG


def _app(argv: list[str]) -> int:
    """``dpsum app …``: the dashboard's launcher (which imports neither dpsum_core nor
    streamlit; streamlit runs in its own process)."""
    try:
        from dpsum_dashboard.launch import main as launch
    except ImportError:
        print("dpsum: error: the dashboard is not installed (pip install dpsum)", file=sys.stderr)
        return EXIT_USAGE
    return launch(argv)


def _out_path(path: str) -> Path:
    """``--out`` checked (a folder or nothing yet), not created: a refused command leaves no
    empty folder behind."""
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise ParameterError(f"--out {out} exists and is not a folder")
    return out


def _params(args: argparse.Namespace) -> TruncationParams:
    return TruncationParams(**{name: getattr(args, name) for name in PARAMETERS})


def _run(args: argparse.Namespace) -> int:
    from dpsum_core.plots.files import run_figures, write_figures

    config = ExperimentConfig(
        workload=args.workload,
        epsilon=args.epsilon,
        rho=_CONFIG.rho if args.rho is None else args.rho,
        truncations=tuple(args.truncation.split(",")),
        algorithms=tuple(args.algorithms.split(",")),
        trials=args.trials,
        delta=args.delta,
        seed=args.seed,
        upper=_upper(args),
        bins=args.bins,
        weights=args.weights,
        truncation_params=_params(args),
        public_cap=args.public_cap,
    )
    out = _out_path(args.out)
    data, run = _open(args, config)
    print(cleaning_line(data))
    _check_domain(args, data, config.domain)
    result = run(config)
    auto = _auto_choice(args, config)
    for line in result.warnings():
        print(f"dpsum: warning: {line}", file=sys.stderr)
    _say_snapping(config)
    out.mkdir(parents=True, exist_ok=True)
    write_csv(result.answers_frame(), out / "answers.csv")
    write_csv(result.summary(), out / "summary.csv")
    _write_json(with_notice({**_run_info(result, args), **auto}), out / "run.json")
    _write_notice(out)
    figures = write_figures(run_figures(result), out, title=f"dpsum run on {data.name}",
                            images=not args.no_png)  # fmt: skip
    if auto:
        print(auto["auto"]["why"])
    print(
        f"{counted(len(result.runs), 'configuration')} × {counted(config.trials, 'trial')} on "
        f"{data.name} (workload {config.workload}: "
        f"{counted(result.workload.size, 'query', 'queries')}; ε = {config.epsilon:g}, "
        f"U = {number(config.upper)}, {counted(config.bins, 'bin')}, seed {config.seed}) "
        f"in {result.seconds:.2f} s"
    )
    print(accuracy_text(result, auto.get("auto", {}).get("algorithm")))
    print(figures.sentence(["answers.csv", "summary.csv", "run.json", "NOTICE.txt"], out))
    print(NOT_FOR_PUBLICATION)
    return 0


def _release(args: argparse.Namespace) -> int:
    """One release: validate everything, check and record the budget, then draw once.

    Privacy
    -------
    stdout and the output folder get only what may be published; every line stating the data
    (the cleaning report, domain warnings, the default column's note, a refusal's counts:
    computed without noise) goes to stderr, marked. Under the
    ledger's lock: bind to the data's content (cleaned (identifier, value) rows, hashed by the
    engine in the scan that reads them; an older ledger bound to the file's bytes is checked by
    ledger.source_fingerprint, then upgraded), settle the total,
    check the budget, draw in memory (from the records, or from the engine's summary with its
    second passes, each quantity drawn once), save the charge; only then are the answers written. Nothing drawn is shown or
    written before its charge is saved, and every check that can refuse comes before the
    charge; a crash after it over-counts the spend (safe), never under-counts it.
    """
    from dpsum_core.publish import ledger
    from dpsum_core.publish.release import decimal_text, plan_release, release_plan
    from dpsum_core.publish.report import cap_truncation, cap_words, write_release

    if args.seed is not None:
        raise ParameterError(
            "a release takes no --seed: its noise comes from OpenDP's samplers and the "
            "operating system's entropy, so that nobody can reproduce it (seeds are for run)"
        )
    if args.trials is not None:
        raise ParameterError("a release is one trial: --trials is for run")
    if args.budget is not None and args.ledger is None:
        raise ParameterError("--budget needs --ledger FILE, where the spent budget is kept")
    if args.raise_budget and args.budget is None:
        raise ParameterError("--raise-budget needs --budget: the new total ε")
    if args.budget is not None:
        ledger.check_total(args.budget)  # before the data is read
    base = ExperimentConfig(
        workload=args.workload,
        epsilon=args.epsilon,
        rho=_CONFIG.rho if args.rho is None else args.rho,
        truncations=("none",),  # replaced by the one truncation of the plan
        upper=_upper(args),
        bins=args.bins,
        weights=args.weights,
        truncation_params=_params(args),
        delta=args.delta,
    )
    plan = plan_release(
        base, algorithm=args.algorithm, truncation=args.truncation, isotonic=args.isotonic,
        public_cap=args.public_cap,
    )
    _check_rho(args, plan)
    _check_params(args, plan)
    bands = _bands(args.bands, plan)
    _say_snapping(plan.config)
    if capped := cap_words(plan):  # said before any noise is drawn
        print(f"dpsum: note: {capped}.", file=sys.stderr)
    if large := large_epsilon(plan.epsilon):  # the explorer's words; the release is still made
        print(f"dpsum: warning: {large}; released all the same.", file=sys.stderr)
    data, extend = _release_data(args, plan, content=args.ledger is not None)
    print(f"dpsum: {cleaning_line(data)}", file=sys.stderr)
    _check_domain(args, data, plan.config.domain)
    out = _out_path(args.out)  # created only once the release is drawn and charged
    if args.ledger is not None:
        path = ledger.resolve(args.ledger)  # the real path: lock, temporary file and replace
        content = data.report.content
        if content is None:  # _release_data reads with content=True: a ledger never binds to nothing
            raise RuntimeError("the release data was read without its content digest")
        with ledger.locked(path):
            book = ledger.load(path)
            book = book.bound_to(
                content, data.name, args.id_column,
                legacy=lambda: ledger.source_fingerprint(args.data, table=args.table),
                column=data.column,
            )  # fmt: skip
            raises = len(book.total_changes)
            book = book.with_total(args.budget, raise_total=args.raise_budget)
            raised = book.total_changes[raises:]
            book.check(plan.epsilon)
            # Drawn in memory under the lock, published only once the charge is saved: every
            # check that can refuse comes before the charge, so a charged release is published.
            rel = release_plan(data, plan, extend=extend)
            book = book.with_release(plan.ledger_entry(data))
            ledger.save(path, book)
        spent = f"ledger {args.ledger}: ε spent {decimal_text(book.spent)}"
        ledger_note = spent + ("" if book.total is None else f" of {decimal_text(book.total)}")
        if raised:  # a raised total is said in the report and on the success line
            ledger_note += (
                f" (total raised from {decimal_text(raised[0]['old_total'])} to "
                f"{decimal_text(raised[0]['new_total'])} with this release)"
            )
    else:
        ledger_note = "no ledger kept (--ledger FILE keeps one)"
        rel = release_plan(data, plan, extend=extend)
    # The report names the ledger file, never the custodian's folders.
    line = (
        ledger_note
        if args.ledger is None
        else ledger_note.replace(f"ledger {args.ledger}", f"ledger {Path(args.ledger).name}", 1)
    )
    out.mkdir(parents=True, exist_ok=True)  # each release's files have names of their own
    from dpsum_core.data.samples import reference
    from dpsum_core.publish.command import data_argument

    # named by its file name (a sample as sample:NAME); the report's command names the data as
    # typed, so that it works from the same folder (a sample's from any folder)
    dataset = (reference(args.data) if args.data else None) or data.name
    again = data_argument("file", args.data or data.name)
    written = write_release(rel, out, dataset=dataset, ledger_line=line, engine=args.engine,
                            data=again, bands=bands)  # fmt: skip
    files = [str(p) for p in written] + ([] if args.ledger is None else [str(args.ledger)])
    if plan.auto is not None:
        print(plan.auto)
    print(
        f"released {rel.private_answers.size} private answers of {plan.config.workload} "
        f"({label(plan.algorithm)}, truncation: "
        f"{cap_truncation(rel.config, short=True) or truncation_label(plan.truncation)}, "
        f"ε = {decimal_text(plan.epsilon)}: "
        f"ε_θ = {decimal_text(rel.budget['epsilon_theta'])} + "
        f"ε_m = {decimal_text(rel.budget['epsilon_measure'])}) "
        f"→ wrote {', '.join(files)}; {ledger_note}"
    )
    return 0


def _check_rho(args: argparse.Namespace, plan) -> None:
    """Refuse a typed --rho the release would not use (as --truncation is refused where the
    algorithm chooses θ itself): ρ is the share of ε that svt and recursive spend on θ."""
    from dpsum_core.mechanisms.algorithm import INSIDE, POSTHOC
    from dpsum_core.mechanisms.registry import truncation as get_truncation

    method = get_truncation(plan.truncation)
    if args.rho is None or method.spends_rho:
        return
    if method.name in (INSIDE, POSTHOC):
        who = label(plan.algorithm) if plan.auto is None else (
            f"auto chose {label(plan.algorithm)}, which"
        )
        why = f"{who} chooses θ itself ({method.label})"
    else:
        why = f"truncation {method.name} spends no ε choosing θ"
    raise ParameterError(
        f"--rho is the share of ε that svt and recursive spend choosing θ, and {why}: "
        "leave --rho out"
    )


def _check_params(args: argparse.Namespace, plan) -> None:
    """Refuse a truncation parameter typed (not at its default) that the release's θ rule does
    not read (--theta with svt, --svt-r with recursive, any with clampshells), as --rho is: it
    was silently ignored."""
    from dpsum_core.mechanisms.registry import truncation as get_truncation

    method = get_truncation(plan.truncation)
    used, defaults = {p.name for p in method.params}, TruncationParams()
    extra = [p.flag for name, p in PARAMETERS.items()
             if name not in used and getattr(args, name) != getattr(defaults, name)]  # fmt: skip
    if extra:
        raise ParameterError(
            f"{', '.join(extra)} {'is' if len(extra) == 1 else 'are'} not read by this release's "
            f"θ rule ({method.label}): leave {'it' if len(extra) == 1 else 'them'} out"
        )


def _say_snapping(config: ExperimentConfig) -> None:
    """One line on stderr when explicit thresholds were moved to bin edges (which, to what,
    why): the outputs hold the thresholds used, not the ones typed."""
    if moved := snapping_words(make_workload(config.workload, config.domain), config.domain):
        print(f"dpsum: note: {moved}.", file=sys.stderr)


def _bands(text: str | None, plan) -> list[tuple[float, float]]:
    """``--bands``, each checked against the plan's public thresholds before any data is read."""
    from dpsum_core.mechanisms.workloads import make_workload
    from dpsum_core.publish.bands import band_queries, parse_bands

    bands = [] if text is None else parse_bands(text)
    thresholds = make_workload(plan.config.workload, plan.config.domain).thresholds
    for low, high in bands:
        band_queries(thresholds, low, high)
    return bands


def _release_data(args: argparse.Namespace, plan, *, content: bool = False):
    """The data of a release and its second pass: the records in memory (``--engine memory``,
    no second pass needed) or the backend's summary at the plan's cut points and
    ``backend.extend`` (duckdb, spark: a folder, a glob or a table, out of core). With
    ``content`` the cleaning report holds the data's content (what a ledger binds to), hashed
    in the pass that reads the rows."""
    from dpsum_core.publish.release import summary_for

    source = _read(args, plan.config.upper, content=content, release=True)
    if args.engine == "memory":
        return source, None
    return summary_for(source, plan, content=content), source.extend


def _read(
    args: argparse.Namespace, upper: float, *, content: bool = False, release: bool = False
):
    """The records in memory (a Dataset, ``--engine memory``) or the opened backend (duckdb,
    spark), after the checks every command that reads data shares: a release of several
    columns names its value column and unit of privacy (:func:`_declared`); otherwise the
    default value column is said with why
    (:func:`~dpsum_core.data.identifiers.default_column_note`), and a file read as "one row =
    one person" beside a column that looks like codes of people is warned about.

    Privacy
    -------
    The note and the warning read the data (its first rows) and go to the operator's
    terminal: stderr for a release, never into the outputs.
    """
    from dpsum_core.data.backends.sql import SQLBackend
    from dpsum_core.data.identifiers import SAMPLE_ROWS, default_column_note, identifier_columns
    from dpsum_core.data.reading import head_rows, inspect_table, load_column

    if args.data is None and not (args.engine == "spark" and args.table):
        raise ParameterError("--data is required (or --table with --engine spark)")
    if args.engine != "spark" and (args.table or args.spark_master):
        raise ParameterError("--table and --spark-master need --engine spark")
    check_unit = args.id_column is None and not args.one_row_per_person
    source: Dataset | SQLBackend
    if args.engine == "memory":
        if release:
            _declared(args, [str(c) for c in head_rows(args.data, rows=1).columns])
        column, skipped, choices = args.column, {}, 1
        if column is None:
            head = inspect_table(args.data, id_column=args.id_column)
            column, skipped = head.default_column(args.id_column), dict(head.skipped)
            choices = len(head.candidates)
        source = load_column(
            args.data, upper=upper, column=column, id_column=args.id_column, content=content
        )
        suspects = identifier_columns(
            head_rows(args.data, rows=SAMPLE_ROWS), skip=(source.column,)
        ) if check_unit else ()  # fmt: skip
        _check_unit(suspects)
    else:
        source = cast(SQLBackend, open_backend(
            args.data,
            upper=upper,
            column=args.column,
            id_column=args.id_column,
            engine=args.engine,
            spark_master=args.spark_master,
            table=args.table,
        ))  # duckdb, spark: SQL engines
        if release:
            _declared(args, list(source.columns()))
        skipped = source.skipped if args.column is None else {}
        choices = len(source.numeric_columns)
        _check_unit(source.identifiers if check_unit else ())
    if args.column is None and (choices > 1 or skipped):  # a choice was made: say which, why
        note = default_column_note(source.column, skipped, option="--column")  # judged on rows
        print(f"dpsum: note {UNNOISED}: {note}" if release else note,
              file=sys.stderr if release else sys.stdout)  # fmt: skip
    return source


def _declared(args: argparse.Namespace, names: list[str]) -> None:
    """A release of a table of several columns names its value column (``--column``, unless
    the identifier leaves one) and its unit of privacy (``--id-column`` or
    ``--one-row-per-person``): the header is public, but a
    choice made from the rows (the default column, the unit check, both judged on the first
    rows) made the released column, or a refusal, depend on one record (second privacy
    audit: removing the first record changed the released column). ``run`` and ``reproduce``
    still choose, with a note or a warning."""
    if len(names) <= 1:
        return
    listed = ", ".join(repr(n) for n in names[:6]) + (", …" if len(names) > 6 else "")
    if args.column is None and len([n for n in names if n != args.id_column]) > 1:
        raise ParameterError(
            f"the data has {len(names)} columns ({listed}) and a release never chooses its "
            "value column from the data: pass --column NAME"
        )
    if args.id_column is None and not args.one_row_per_person:
        raise ParameterError(
            f"the data has {len(names)} columns ({listed}): say what one person is before "
            "releasing, --id-column NAME (every row with the same value is one person) or "
            "--one-row-per-person (every row is a different person)"
        )


def _check_unit(suspects: tuple[str, ...]) -> None:
    """Warn (run, reproduce) when "one row = one person" was not chosen explicitly and columns
    ``suspects`` look like codes of people with several rows (a release declares its unit:
    :func:`_declared`)."""
    if not suspects:
        return
    names = ", ".join(repr(s) for s in suspects)
    print(
        f"dpsum: warning: column {names} repeats values that look like codes of people (a "
        f"person with several rows), so one row may not be one person: give --id-column "
        f"{suspects[0]} to protect each person, or --one-row-per-person if every row is a "
        "different person",
        file=sys.stderr,
    )


def _reproduce(args: argparse.Namespace) -> int:
    import pandas as pd

    from dpsum_core.plots.files import paper_figures, write_figures

    out = _out_path(args.out)
    # The paper's protocol with the paper's constants (s = θ₀ = 50 000), plus RawSum and
    # ClampShells as extras beside the paper's 15 configurations.
    base = ExperimentConfig(
        epsilon=0.01,
        truncations=("none", "svt", "recursive"),
        algorithms=(*PAPER_ALGORITHMS, "rawsum", "clampshells"),
        truncation_params=PAPER,
        trials=args.trials,
        seed=args.seed,
        upper=_upper(args),
        bins=args.bins,
        weights=args.weights,
    )
    data, run = _open(args, base)
    print(cleaning_line(data))
    _check_domain(args, data, base.domain)
    start = time.perf_counter()
    summaries, figs, runs = [], [], []
    for rho in (0.1, 0.5):
        for workload in ("Q1", "Q2", "Q3"):
            result = run(base.with_(rho=rho, workload=workload))
            for line in result.warnings():
                print(f"dpsum: warning: {workload}, ρ = {rho:g}: {line}", file=sys.stderr)
            frame = result.summary()
            frame.insert(0, "rho", rho)
            frame.insert(0, "workload", workload)
            summaries.append(frame)
            runs.append({"workload": workload, "rho": rho, **_run_info(result, args)})
            figs += paper_figures(result, workload, rho)
    engine_seconds = time.perf_counter() - start
    out.mkdir(parents=True, exist_ok=True)
    write_csv(pd.concat(summaries, ignore_index=True), out / "summary.csv")
    _write_json(with_notice({"engine_seconds": engine_seconds, "runs": runs}), out / "run.json")
    _write_notice(out)
    figures = write_figures(figs, out, title=f"dpsum reproduction on {data.name}",
                            images=not args.no_png)  # fmt: skip
    print(
        f"6 experiments (Q1–Q3 × ρ ∈ {{0.1, 0.5}}, the paper's 15 configurations + RawSum "
        f"and ClampShells each) in {engine_seconds:.1f} s; "
        + figures.sentence(["summary.csv", "run.json", "NOTICE.txt"], out)
    )
    print(NOT_FOR_PUBLICATION)
    return 0


def _auto_choice(args: argparse.Namespace, config: ExperimentConfig) -> dict:
    """``{"auto": {algorithm, truncation, why}}`` when ``--algorithms`` listed auto (the config
    already holds the algorithm it resolved to), else ``{}``."""
    from dpsum_core.mechanisms.recommend import AUTO, recommend

    if AUTO not in (a.strip().lower() for a in args.algorithms.split(",")):
        return {}
    rec = recommend(
        epsilon=config.epsilon, upper=config.upper, bins=config.bins, workload=config.workload
    )
    how = (
        "θ = the public cap"
        if config.public_cap is not None and rec.algorithm == "clampshells"
        else truncation_label(rec.truncation)
    )
    chosen = f"{label(rec.algorithm)} ({how})"
    why = f"auto chose {chosen}, from public inputs only. {rec.why}"
    return {"auto": {"algorithm": rec.algorithm, "truncation": rec.truncation, "why": why}}


def _run_info(result, args: argparse.Namespace) -> dict:
    """``result.run_info()`` with the engine that read the data in its dataset record (an
    engine's summary answers exactly as the records do, but a reader of run.json repeating the
    run should know which one it was)."""
    info = result.run_info()
    info["dataset"]["engine"] = args.engine
    return info


def _open(args: argparse.Namespace, config: ExperimentConfig):
    """The data (a Dataset in memory, else a summary) and a function running a config on it.

    With duckdb/spark the run works on a data summary computed once; a configuration that needs
    a statistic the summary lacks gets it by a second pass (dpsum_core.data.summary.complete)."""
    from dpsum_core.simulate.experiment import run_cut_points, run_experiment

    source = _read(args, config.upper)
    if args.engine == "memory":
        data = source
        return data, lambda cfg: run_experiment(data, cfg)
    backend = source
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


def write_csv(frame: pd.DataFrame, path: Path) -> None:
    """Write a frame as the CSV people read (:func:`~dpsum_core.publish.csvfile.csv_bytes`)."""
    from dpsum_core.publish.csvfile import csv_bytes

    path.write_bytes(csv_bytes(frame))


def _write_json(info: dict, path: Path) -> None:
    from dpsum_core.simulate.results import run_json

    path.write_text(run_json(info))


def _write_notice(out: Path) -> None:
    """NOTICE.txt beside the CSVs, which stay plain machine-readable tables."""
    (out / "NOTICE.txt").write_text(NOT_FOR_PUBLICATION + "\n")


