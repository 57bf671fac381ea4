"""Types of the curated API of :mod:`dpsum_core` (its ``__init__.py`` imports each name on
first use; tests/core/test_docs.py checks that both list the same names)."""

__version__: str

from dpsum_core.data.backends import ENGINES as ENGINES
from dpsum_core.data.backends import open_backend as open_backend
from dpsum_core.data.dataset import Dataset as Dataset
from dpsum_core.data.dataset import Statistics as Statistics
from dpsum_core.data.domain import Domain as Domain
from dpsum_core.data.reading import load_column as load_column
from dpsum_core.data.summary import DataSummary as DataSummary
from dpsum_core.data.summary import complete as complete
from dpsum_core.errors import DpsumError as DpsumError
from dpsum_core.errors import ParameterError as ParameterError
from dpsum_core.mechanisms.registry import ALGORITHMS as ALGORITHMS
from dpsum_core.publish.ledger import Ledger as Ledger
from dpsum_core.publish.ledger import load as load_ledger
from dpsum_core.publish.ledger import locked as ledger_lock
from dpsum_core.publish.ledger import save as save_ledger
from dpsum_core.publish.ledger import source_fingerprint as source_fingerprint
from dpsum_core.publish.release import Release as Release
from dpsum_core.publish.release import ReleasePlan as ReleasePlan
from dpsum_core.publish.release import expected_error as expected_error
from dpsum_core.publish.release import plan_release as plan_release
from dpsum_core.publish.release import release_plan as release_plan
from dpsum_core.publish.report import write_release as write_release
from dpsum_core.simulate.config import ExperimentConfig as ExperimentConfig
from dpsum_core.simulate.experiment import run_cut_points as run_cut_points
from dpsum_core.simulate.experiment import run_experiment as run_experiment
from dpsum_core.simulate.results import ExperimentResult as ExperimentResult
from dpsum_core.truncation.params import PAPER as PAPER
from dpsum_core.truncation.params import TruncationParams as TruncationParams
from dpsum_core.truncation.registry import TRUNCATION_METHODS as TRUNCATION_METHODS

__all__ = [
    "ALGORITHMS",
    "ENGINES",
    "PAPER",
    "TRUNCATION_METHODS",
    "DataSummary",
    "Dataset",
    "Domain",
    "DpsumError",
    "ExperimentConfig",
    "ExperimentResult",
    "Ledger",
    "ParameterError",
    "Release",
    "ReleasePlan",
    "Statistics",
    "TruncationParams",
    "__version__",
    "complete",
    "expected_error",
    "ledger_lock",
    "load_column",
    "load_ledger",
    "open_backend",
    "plan_release",
    "release_plan",
    "run_cut_points",
    "run_experiment",
    "save_ledger",
    "source_fingerprint",
    "write_release",
]
