"""Reproduce this: the ``dpsum run`` / ``dpsum release`` command (written by
:mod:`dpsum_core.publish.command`, the one writer of ``dpsum`` command lines) and the Python
lines that make the current settings again outside the dashboard (pure: no Streamlit here).

An uploaded file is never named: its path is the placeholder :data:`UPLOAD_PLACEHOLDER`. A
sample is named ``sample:NAME`` (and ``sample_path(NAME)`` in Python), which an installed
``dpsum`` reads from any folder (:mod:`dpsum_core.data.samples`).
Floats are written with ``repr`` so that the command carries exactly the values used.
"""

from __future__ import annotations

from dpsum_core.data import samples
from dpsum_core.publish.command import Placeholder, data_argument, release_command, run_command
from dpsum_core.publish.release import ReleasePlan
from dpsum_core.simulate.config import ExperimentConfig

__all__ = ["data_path", "release_command", "release_python", "run_command", "run_python"]

UPLOAD_PLACEHOLDER = "<your file.csv>"


def data_path(source: str, *, sample: str | None, server: str | None) -> str | Placeholder:
    """The ``--data`` argument: a sample as ``sample:NAME``, a server dataset under the data
    directory (:func:`~dpsum_core.publish.command.data_argument`), or the placeholder for an
    upload."""
    if source == "sample" and sample:
        return data_argument("sample", sample).value
    if source == "server" and server:
        return data_argument("server", server).value
    return Placeholder(UPLOAD_PLACEHOLDER)


def run_python(
    config: ExperimentConfig, *, path: str | Placeholder, column: str | None,
    id_column: str | None = None,
) -> str:
    """The library lines that make the same run (the same seed gives the same numbers, and
    the summary.csv they write is the CLI's and the Explorer's, byte for byte)."""
    col = _load_args(column, id_column)
    return (
        "from pathlib import Path\n\n"
        "from dpsum_core import ExperimentConfig, load_column, run_experiment\n"
        "from dpsum_core.publish.csvfile import csv_bytes\n"
        f"{_sample_import(path)}\n"
        f"data = load_column({_file(path)}, upper={config.upper!r}{col})\n"
        f"config = ExperimentConfig.from_json({config.to_json()!r})\n"
        "result = run_experiment(data, config)\n"
        "# the bytes `dpsum run` and the Explorer's download write\n"
        'Path("summary.csv").write_bytes(csv_bytes(result.summary()))\n'
    )


def release_python(
    plan: ReleasePlan, *, path: str | Placeholder, column: str | None,
    id_column: str | None = None,
) -> str:
    """The library lines of the same release (plan → inspect → release)."""
    col = _load_args(column, id_column)
    return (
        "from dpsum_core import ExperimentConfig, load_column, plan_release, release_plan\n"
        f"{_sample_import(path)}\n"
        f"data = load_column({_file(path)}, upper={plan.config.upper!r}{col})\n"
        f"config = ExperimentConfig.from_json({plan.config.to_json()!r})\n"
        f"plan = plan_release(config, algorithm={plan.algorithm!r}, "
        f"truncation={plan.truncation!r}, isotonic={plan.isotonic!r})\n"
        "published = release_plan(data, plan)  # one draw of noise, no seed\n"
    )


def _load_args(column: str | None, id_column: str | None) -> str:
    """The keyword arguments of ``load_column`` naming the column and the privacy identifier."""
    col = f", column={column!r}" if column else ""
    return col + (f", id_column={id_column!r}" if id_column else "")


def _sample(path: str | Placeholder) -> str | None:
    """The sample's name when ``path`` is ``sample:NAME``."""
    if isinstance(path, str) and path.startswith(samples.PREFIX):
        return path.removeprefix(samples.PREFIX)
    return None


def _sample_import(path: str | Placeholder) -> str:
    """The import line of :func:`~dpsum_core.data.samples.sample_path` when ``path`` is a
    sample (with the blank line that ends the imports either way)."""
    return "from dpsum_core.data.samples import sample_path\n" if _sample(path) else ""


def _file(path: str | Placeholder) -> str:
    """The Python expression of the file: ``sample_path('incomes.csv')`` for a sample."""
    name = _sample(path)
    if name is not None:
        return f"sample_path({name!r})"
    return repr(path.text if isinstance(path, Placeholder) else path)
