"""The one writer of ``dpsum`` command lines: the dashboard's "Reproduce this" (``dpsum run``),
its release command and the release report's (``dpsum release``).

Every command is a list of options rendered by :func:`render`, the only place where text is
quoted for a shell (:func:`dpsum_core.text.escape_name`: ``shlex.quote``, or bash's ``$'…'``
for a name with control characters, so the command stays one exact line), so a name with
spaces, quotes or newlines (a column, a file) cannot break out of its word; a :class:`Placeholder`
(``<your file.csv>``) is quoted too, so a command pasted before it is filled in fails with "no
such file" instead of reading ``<`` and ``>`` as shell redirections. The truncation methods' options come from their own descriptions
(:data:`~dpsum_core.truncation.registry.PARAMETERS`), the table the command line's parser reads,
so a written command always parses back to the same configuration (tests/core/test_command.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import PurePath

from dpsum_core.data import samples
from dpsum_core.mechanisms.registry import truncation
from dpsum_core.publish.release import ReleasePlan, decimal_text
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.text import escape_name
from dpsum_core.truncation.params import TruncationParams
from dpsum_core.truncation.registry import PARAMETERS

_DEFAULTS = TruncationParams()
DEFAULT_DELTA = ExperimentConfig().delta  # a release command carries --delta only when not it


@dataclass(frozen=True)
class Placeholder:
    """Text the reader replaces (``<your file.csv>``, ``<data directory>/``), followed by a
    ``tail`` (a server dataset's name) or not: quoted as one word like any value."""

    head: str
    tail: str = ""

    @property
    def text(self) -> str:
        """The whole, unquoted (for Python lines, where ``repr`` quotes it)."""
        return self.head + self.tail


@dataclass(frozen=True)
class DataArgument:
    """The ``--data`` of a written command (:func:`data_argument`) and, when the command cannot
    name the data's file itself, what its reader must do (said in words next to it; plain
    text, escaped by whoever writes it)."""

    value: str | Placeholder
    note: str = ""


def data_argument(source: str, name: str) -> DataArgument:
    """The one place a written command names its data (the release report's, the dashboard's).

    ``source``: ``"file"`` (the command line): ``name`` as the user typed it when relative, so
    the command works from the same folder, an absolute path by its file name with a note (a
    published report shows no folder names), a shipped sample's file as ``sample:NAME`` (works
    from any folder); ``"sample"``: ``sample:NAME``; ``"server"``: NAME under the placeholder
    ``<data directory>/``; ``"upload"``: the uploaded file's name, with a note that ``--data``
    must point to that file (the dashboard never knows where it is kept).
    """
    if source == "sample" or (source == "file" and name.startswith(samples.PREFIX)):
        return DataArgument(samples.PREFIX + name.removeprefix(samples.PREFIX))
    if source == "file":
        if (sample := samples.reference(name)) is not None:
            return DataArgument(sample)
        if PurePath(name).is_absolute():  # a published report never shows the user's folders
            base = PurePath(name).name
            return DataArgument(base, note=f"--data must point to {base} (the report keeps no folder names)")
        return DataArgument(name)
    if source == "server":
        return DataArgument(Placeholder("<data directory>/", name))
    return DataArgument(
        name, note=f"--data must point to the uploaded file, {name}, wherever you keep it"
    )


Option = tuple[str, str | Placeholder | None]  # (flag, value); None: a switch (--no-isotonic)
NO_TOTAL = Placeholder("<total ε of this dataset>")  # a release command's --budget, none set


def render(command: str, options: Sequence[Option], *, lines: bool = False) -> str:
    """``dpsum <command>`` and its options, each value quoted once; with ``lines``, broken after
    every option's value (readable, still one shell command)."""
    words = [["dpsum", command]] + [
        [flag] if value is None else [flag, _quote(value)] for flag, value in options
    ]
    return (" \\\n  " if lines else " ").join(" ".join(w) for w in words)


def _quote(value: str | Placeholder) -> str:
    # a placeholder is one quoted word too: unquoted, ``<your file.csv>`` pasted as is would
    # read from a file "your" and write to the next word
    return escape_name(value.text if isinstance(value, Placeholder) else value, "shell")


def script_number(value: float | int) -> str:
    """A number as the dashboard's commands write it: ints as such, floats by ``repr``."""
    return str(value) if isinstance(value, int) else repr(float(value))


def parameter_options(
    params: TruncationParams,
    *,
    number: Callable[[float], str] = script_number,
    methods: tuple[str, ...] | None = None,
    upper: float | None = None,
) -> list[Option]:
    """The truncation parameters' options, in the parser's order: every parameter that differs
    from its default; or, with ``methods`` and ``upper``, the parameters of those methods in
    force for U (defaults that follow U filled in), each one that has a value."""
    out: list[Option] = []
    for name, p in PARAMETERS.items():
        if methods is None:
            value = getattr(params, name)
            keep = value is not None and value != getattr(_DEFAULTS, name)
        else:
            value = p.in_force(params, float(upper or 0.0))
            keep = value is not None and any(p in truncation(m).params for m in methods)
        if keep:
            out.append((p.flag, value if isinstance(value, str) else number(value)))
    return out


def _config_options(
    config: ExperimentConfig, data: str | Placeholder, column: str | None, id_column: str | None,
    *, rho: bool = True, method: str | None = None,
) -> list[Option]:
    """The data, the domain, the workload, ε, ρ (unless ``rho`` is False: a release refuses
    --rho where θ is not chosen by svt or recursive) and the parameters (the dashboard's
    order): those of ``method`` alone when given (a release refuses the others)."""
    n = script_number
    where: list[Option] = [("--data", data)]
    where += [("--column", column)] if column else []
    where += [("--id-column", id_column)] if id_column else []
    return [*where, ("--upper", n(config.upper)), ("--bins", str(config.bins)),
            ("--weights", config.weights), ("--workload", config.workload),
            ("--epsilon", n(config.epsilon)), *([("--rho", n(config.rho))] if rho else []),
            *([] if config.public_cap is None else [("--public-cap", n(config.public_cap))]),
            *[o for o in parameter_options(config.truncation_params)
              if method is None or o[0] in {p.flag for p in truncation(method).params}]]  # fmt: skip


def run_command(config: ExperimentConfig, *, path: str | Placeholder, column: str | None,
                out: str = "dpsum_out", id_column: str | None = None) -> str:  # fmt: skip
    """The ``dpsum run`` command of ``config`` (its summary.csv equals the explorer's)."""
    n = script_number
    return render("run", [
        *_config_options(config, path, column, id_column),
        ("--truncation", ",".join(config.truncations)),
        ("--algorithms", ",".join(config.algorithms)), ("--trials", str(config.trials)),
        ("--delta", n(config.delta)), ("--seed", str(config.seed)), ("--out", out),
    ], lines=True)  # fmt: skip


def release_command(plan: ReleasePlan, *, path: str | Placeholder, column: str | None,
                    budget: float | None, out: str = "dpsum_release",
                    id_column: str | None = None, one_row_per_person: bool = False,
                    bands: Sequence[tuple[float, float]] = ()) -> str:  # fmt: skip
    """The ``dpsum release`` command of ``plan`` (a fresh draw of noise: no seed);
    ``one_row_per_person``: the data has several columns and no identifier (a release of
    several columns declares its unit of privacy: the CLI refuses it without the flag);
    ``bands``: the totals by band asked for (``--bands``, as :func:`record_command` writes it).

    ``budget`` is the dataset's total ε the dashboard releases against: always carried, as
    the placeholder :data:`NO_TOTAL` while none is set (the dashboard then refuses to release
    and so does the pasted command, where ``--ledger`` without ``--budget`` would release
    with no total)."""
    spends_rho = truncation(plan.truncation).spends_rho
    options = [*_config_options(plan.config, path, column, id_column, rho=spends_rho,
                                method=plan.truncation),
               *([("--one-row-per-person", None)] if one_row_per_person else []),
               ("--algorithm", plan.algorithm)]  # fmt: skip
    if plan.truncation:
        options.append(("--truncation", plan.truncation))
    if plan.config.delta != DEFAULT_DELTA:  # ClampShells' onset gate reads δ
        options.append(("--delta", script_number(plan.config.delta)))
    if bands:
        d = decimal_text
        options.append(("--bands", ",".join(f"{d(lo)}-{d(hi)}" for lo, hi in bands)))
    options += [("--isotonic" if plan.isotonic else "--no-isotonic", None),
                ("--ledger", "ledger.json")]  # fmt: skip
    options.append(("--budget", NO_TOTAL if budget is None else script_number(budget)))
    return render("release", [*options, ("--out", out)], lines=True)


def record_command(
    config: dict, *, dataset: str | Placeholder, engine: str = "memory", id_column: str | None = None,
    column: str | None = None, bands: Sequence[tuple[float, float]] = (),
) -> str:
    """The ``dpsum release`` command line that makes a release's recorded configuration again
    (new noise), for its report: the same column and unit of privacy (``--id-column``, or
    ``--one-row-per-person``, which a release of several columns requires), the chosen
    method's parameters in force, as decimals, and the totals by band the report lists."""
    method = truncation(config["truncation"])
    options: list[Option] = [] if engine == "memory" else [("--engine", engine)]
    if id_column is not None:
        options.append(("--id-column", id_column))
    d = decimal_text
    options += [("--data", dataset), *([("--column", column)] if column else []),
                *([("--one-row-per-person", None)] if id_column is None else []),
                ("--upper", d(config["upper"])),
                ("--bins", str(config["bins"])),
                *([("--weights", str(config["weights"]))] if config.get("weights") else []),
                ("--workload", str(config["workload"])), ("--epsilon", d(config["epsilon"])),
                ("--algorithm", str(config["algorithm"]))]  # fmt: skip
    if method.chosen:  # a method one chooses (not θ chosen by the algorithm)
        options.append(("--truncation", method.name))
    if method.spends_rho:
        options.append(("--rho", d(config["rho"])))
    if config.get("public_cap") is not None:
        options.append(("--public-cap", d(config["public_cap"])))
    if config.get("delta") not in (None, DEFAULT_DELTA):  # the onset gate's δ (ClampShells)
        options.append(("--delta", d(config["delta"])))
    params = TruncationParams(**config.get("truncation_params", {}))
    options += parameter_options(params, number=d, methods=(method.name,), upper=config["upper"])
    if bands:
        options.append(("--bands", ",".join(f"{d(lo)}-{d(hi)}" for lo, hi in bands)))
    if not config["isotonic"]:
        options.append(("--no-isotonic", None))
    options += [("--out", Placeholder("NEW_FOLDER")), ("--ledger", Placeholder("LEDGER"))]
    return render("release", options)
