"""dpsum: answering summation queries for numerical attributes under differential privacy.

The engine behind the dashboard and the CLI (no Streamlit imports here). See SPEC.md in the
project's shared material for the mathematics; module names follow the paper's concepts.

What a library user needs is importable from here (:data:`__all__`)::

    from dpsum_core import ExperimentConfig, load_column, run_experiment

loading a column (:func:`load_column`) or opening a larger source with an engine
(:func:`open_backend`, :func:`complete`), the configuration (:class:`ExperimentConfig`,
:class:`TruncationParams`), a simulation (:func:`run_experiment`), and a release
(:func:`plan_release`, :func:`release_plan`, :func:`write_release`) against a privacy-budget
ledger (:class:`Ledger`, :func:`load_ledger`, :func:`save_ledger`, :func:`ledger_lock`).
Each name is imported when first used, so that ``dpsum --help`` starts without pandas; the
stub ``__init__.pyi`` gives type checkers the same names with their types.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

# name → (module, attribute): the curated API, imported on first use (PEP 562).
_API: dict[str, tuple[str, str]] = {
    # loading and engines
    "load_column": ("dpsum_core.data.reading", "load_column"),
    "Dataset": ("dpsum_core.data.dataset", "Dataset"),
    "Statistics": ("dpsum_core.data.dataset", "Statistics"),
    "Domain": ("dpsum_core.data.domain", "Domain"),
    "ENGINES": ("dpsum_core.data.backends", "ENGINES"),
    "open_backend": ("dpsum_core.data.backends", "open_backend"),
    "DataSummary": ("dpsum_core.data.summary", "DataSummary"),
    "complete": ("dpsum_core.data.summary", "complete"),
    # configuration
    "ExperimentConfig": ("dpsum_core.simulate.config", "ExperimentConfig"),
    "TruncationParams": ("dpsum_core.truncation.params", "TruncationParams"),
    "PAPER": ("dpsum_core.truncation.params", "PAPER"),
    "ALGORITHMS": ("dpsum_core.mechanisms.registry", "ALGORITHMS"),
    "TRUNCATION_METHODS": ("dpsum_core.truncation.registry", "TRUNCATION_METHODS"),
    # simulation
    "run_experiment": ("dpsum_core.simulate.experiment", "run_experiment"),
    "run_cut_points": ("dpsum_core.simulate.experiment", "run_cut_points"),
    "ExperimentResult": ("dpsum_core.simulate.results", "ExperimentResult"),
    # release and ledger
    "ReleasePlan": ("dpsum_core.publish.release", "ReleasePlan"),
    "Release": ("dpsum_core.publish.release", "Release"),
    "plan_release": ("dpsum_core.publish.release", "plan_release"),
    "expected_error": ("dpsum_core.publish.release", "expected_error"),
    "release_plan": ("dpsum_core.publish.release", "release_plan"),
    "write_release": ("dpsum_core.publish.report", "write_release"),
    "Ledger": ("dpsum_core.publish.ledger", "Ledger"),
    "load_ledger": ("dpsum_core.publish.ledger", "load"),
    "save_ledger": ("dpsum_core.publish.ledger", "save"),
    "ledger_lock": ("dpsum_core.publish.ledger", "locked"),
    "source_fingerprint": ("dpsum_core.publish.ledger", "source_fingerprint"),
    # errors
    "DpsumError": ("dpsum_core.errors", "DpsumError"),
    "ParameterError": ("dpsum_core.errors", "ParameterError"),
}
__all__ = ["__version__", *_API]


def __getattr__(name: str) -> Any:
    if name not in _API:
        raise AttributeError(f"module 'dpsum_core' has no attribute {name!r}")
    module, attribute = _API[name]
    value = getattr(import_module(module), attribute)
    globals()[name] = value  # imported once
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_API))
