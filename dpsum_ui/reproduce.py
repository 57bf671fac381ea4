"""Reproduce this: the ``dpsum run`` / ``dpsum release`` command and the Python lines that
make the current settings again outside the dashboard (pure: no Streamlit here).

An uploaded file is never named: its path is the placeholder :data:`UPLOAD_PLACEHOLDER`.
Floats are written with ``repr`` so that the command carries exactly the values used.
"""

from __future__ import annotations

import shlex

from dpsum_core.publish.release import ReleasePlan
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.text import escape_name
from dpsum_core.truncation.params import TruncationParams

UPLOAD_PLACEHOLDER = "<your file.csv>"
_PARAMS = TruncationParams()


def data_path(source: str, *, sample: str | None, server: str | None) -> str:
    """The ``--data`` argument: a sample under ``sample_data/``, a server dataset under the
    data directory, or the placeholder for an upload."""
    if source == "sample" and sample:
        return f"sample_data/{sample}"
    if source == "server" and server:
        return f"<data directory>/{server}"
    return UPLOAD_PLACEHOLDER


def _num(value: float | int) -> str:
    return str(value) if isinstance(value, int) else repr(float(value))


def _quote(path: str) -> str:
    """The ``--data`` word: the upload's placeholder as it is (a hint to replace), else the
    path quoted as one word (a server dataset's name ending in ``>`` included)."""
    return path if path == UPLOAD_PLACEHOLDER else escape_name(path, "shell")


def _common(
    config: ExperimentConfig, path: str, column: str | None, id_column: str | None = None
) -> list[str]:
    args = ["--data", _quote(path)]
    if column:
        args += ["--column", escape_name(column, "shell")]
    if id_column:
        args += ["--id-column", escape_name(id_column, "shell")]
    args += ["--upper", _num(config.upper), "--bins", str(config.bins),
             "--weights", config.weights, "--workload", shlex.quote(config.workload),
             "--epsilon", _num(config.epsilon), "--rho", _num(config.rho)]  # fmt: skip
    p = config.truncation_params
    for flag, name in (
        ("--theta", "theta"), ("--svt-variant", "svt_variant"), ("--svt-r", "svt_r"),
        ("--svt-c", "svt_c"), ("--svt-s", "svt_s"), ("--rm-beta", "rm_beta"),
        ("--rm-theta0", "rm_theta0"), ("--rm-mu", "rm_mu"),
    ):  # fmt: skip
        value = getattr(p, name)
        if value is not None and value != getattr(_PARAMS, name):
            args += [flag, value if isinstance(value, str) else _num(value)]
    return args


def _lines(args: list[str]) -> str:
    """``dpsum …`` broken after every option's value (readable, still one shell command)."""
    head, rest = args[:2], args[2:]
    lines, current = [" ".join(head)], list[str]()
    for arg in rest:
        if arg.startswith("--") and current:
            lines.append(" ".join(current))
            current = []
        current.append(arg)
    if current:
        lines.append(" ".join(current))
    return " \\\n  ".join(lines)


def run_command(config: ExperimentConfig, *, path: str, column: str | None,
                out: str = "dpsum_out", id_column: str | None = None) -> str:  # fmt: skip
    """The ``dpsum run`` command of ``config`` (its summary.csv equals the explorer's)."""
    args = ["dpsum", "run", *_common(config, path, column, id_column),
            "--truncation", ",".join(config.truncations),
            "--algorithms", ",".join(config.algorithms),
            "--trials", str(config.trials), "--delta", _num(config.delta),
            "--seed", str(config.seed), "--out", shlex.quote(out)]  # fmt: skip
    return _lines(args)


def run_python(
    config: ExperimentConfig, *, path: str, column: str | None, id_column: str | None = None
) -> str:
    """The library lines that make the same run (the same seed gives the same numbers)."""
    col = _load_args(column, id_column)
    return (
        "from dpsum_core.data.reading import load_column\n"
        "from dpsum_core.simulate.config import ExperimentConfig\n"
        "from dpsum_core.simulate.experiment import run_experiment\n\n"
        f"data = load_column({path!r}, upper={config.upper!r}{col})\n"
        f"config = ExperimentConfig.from_json({config.to_json()!r})\n"
        "result = run_experiment(data, config)\n"
        'result.summary().to_csv("summary.csv", index=False)\n'
    )


def release_command(plan: ReleasePlan, *, path: str, column: str | None,
                    budget: float | None, out: str = "dpsum_release",
                    id_column: str | None = None) -> str:  # fmt: skip
    """The ``dpsum release`` command of ``plan`` (a fresh draw of noise: no seed)."""
    args = ["dpsum", "release", *_common(plan.config, path, column, id_column),
            "--algorithm", plan.algorithm]  # fmt: skip
    if plan.truncation:
        args += ["--truncation", plan.truncation]
    args += ["--isotonic" if plan.isotonic else "--no-isotonic", "--ledger", "ledger.json"]
    if budget is not None:
        args += ["--budget", _num(budget)]
    args += ["--out", shlex.quote(out)]
    return _lines(args)


def release_python(
    plan: ReleasePlan, *, path: str, column: str | None, id_column: str | None = None
) -> str:
    """The library lines of the same release (plan → inspect → release)."""
    col = _load_args(column, id_column)
    return (
        "from dpsum_core.data.reading import load_column\n"
        "from dpsum_core.publish.release import plan_release, release_plan\n"
        "from dpsum_core.simulate.config import ExperimentConfig\n\n"
        f"data = load_column({path!r}, upper={plan.config.upper!r}{col})\n"
        f"config = ExperimentConfig.from_json({plan.config.to_json()!r})\n"
        f"plan = plan_release(config, algorithm={plan.algorithm!r}, "
        f"truncation={plan.truncation!r}, isotonic={plan.isotonic!r})\n"
        "published = release_plan(data, plan)  # one draw of noise, no seed\n"
    )


def _load_args(column: str | None, id_column: str | None) -> str:
    """The keyword arguments of ``load_column`` naming the column and the privacy identifier."""
    col = f", column={column!r}" if column else ""
    return col + (f", id_column={id_column!r}" if id_column else "")
