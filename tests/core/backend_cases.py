"""Shared checks of the backend tests: a backend's summary must equal the in-memory one."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from dpsum_core.data.backends.memory import MemoryBackend
from dpsum_core.data.domain import Domain
from dpsum_core.data.summary import DataSummary, complete, cut_points
from dpsum_core.errors import DataError
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import run_cut_points, run_experiment
from dpsum_core.truncation.params import TruncationParams
from dpsum_core.truncation.svt import svt_grid

ROOT = Path(__file__).resolve().parents[2]
BAD = ROOT / "tests" / "data" / "bad"
MANIFEST = json.loads((BAD / "manifest.json").read_text())
_COMMAS = ("thousands_separator", "decimal_comma")
# Files whose numbers are written with commas (or dots between thousands): memory reads and
# reports them cell by cell; DuckDB and Spark refuse them (they read plain numbers only, and
# never read a cell otherwise than memory: dpsum_core/data/backends/formats.py).
BAD_COMMAS = sorted(
    k for k, v in MANIFEST.items()
    if isinstance(v, dict) and any(v.get("ok", {}).get(c) for c in _COMMAS)
)
BAD_OK = sorted(
    k for k, v in MANIFEST.items() if isinstance(v, dict) and "ok" in v and k not in BAD_COMMAS
)
BAD_ERROR = sorted(k for k, v in MANIFEST.items() if isinstance(v, dict) and "error" in v)
DOMAIN = Domain(800_000.0, 1000)
CUTS = cut_points(DOMAIN, svt_grid=svt_grid(DOMAIN.upper, s=50_000.0, c=1.2), theta=123_456.7)


def assert_same_summary(a: DataSummary, b: DataSummary) -> None:
    """Bit-identical counts, sums, top-k, total and cleaning report."""
    assert a.report == b.report
    assert a.records == b.records and a.total_units == b.total_units
    for name in ("points", "counts", "sums", "top"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert a.fingerprint == b.fingerprint


def memory_summary(path: Path, column: str | None = None, upper: float = 800_000.0):
    return MemoryBackend(path, upper=upper, column=column).summarize(
        CUTS if upper == 800_000.0 else cut_points(Domain(upper, 50))
    )


def check_error_agrees(open_other, path: Path) -> None:
    """Where memory refuses a file, the other backend refuses it too (its own words)."""
    try:
        memory_summary(path)
    except DataError:
        memory_failed = True
    else:
        memory_failed = False
    assert memory_failed
    try:
        open_other(path).summarize(CUTS)
    except DataError:
        return
    raise AssertionError(f"{path.name}: the backend accepted a file the memory path refuses")


def check_run_agrees(
    backend, path: Path, config: ExperimentConfig, *, column=None, id_column=None
) -> None:
    """A full run from the backend's summary equals the in-memory Dataset run, bit for bit."""
    data = MemoryBackend(path, upper=config.upper, column=column, id_column=id_column).data
    ref = run_experiment(data, config)
    got, _ = complete(
        backend.summarize(run_cut_points(config)),
        lambda s: run_experiment(s, config),
        backend.extend,
    )
    np.testing.assert_array_equal(ref.true_answers, got.true_answers)
    np.testing.assert_array_equal(ref.binned_answers, got.binned_answers)
    assert ref.cleaning == got.cleaning
    for r0, r1 in zip(ref.runs, got.runs, strict=True):
        np.testing.assert_array_equal(r0.theta, r1.theta)
        np.testing.assert_array_equal(r0.answers, r1.answers)
        np.testing.assert_array_equal(r0.expected_mse, r1.expected_mse)


# Domains whose edges (k·U)/n are not round numbers, as for hourly or weekly amounts.
AWKWARD_DOMAINS = [Domain(1e6 / 3, 37), Domain(123_456.789, 997), Domain(52.5, 7)]


def near_points(domain: Domain, extra: np.ndarray) -> np.ndarray:
    """Every edge and extra point, their neighbouring doubles, 0, −0, U and just above U: the
    values where an engine's bin or interval could differ from numpy's by one."""
    held = np.concatenate([domain.edges, extra])
    near = [held, np.nextafter(held, 0.0), np.nextafter(held, np.inf)]
    near.append(np.nextafter(np.nextafter(held, 0.0), 0.0))
    near.append(held * (1 + 1e-12))
    near.append(np.array([0.0, -0.0, 5e-324, domain.upper * 1.5, -1.0]))
    return np.concatenate(near)


def awkward_cuts(domain: Domain):
    """Cut points with an SVT grid and a fixed θ that fall inside bins of ``domain``."""
    return cut_points(
        domain, svt_grid=svt_grid(domain.upper, s=domain.upper / 9, c=1.2), theta=domain.upper / 7
    )


def clipped_column(path: Path) -> Path:
    """A Parquet column with values below 0, above U, on edges, NaN and ∞ (3 000 rows)."""
    import pandas as pd

    rng = np.random.default_rng(11)
    values = np.concatenate(
        [
            np.round(rng.lognormal(10.4, 0.9, 2900)),
            -rng.uniform(1, 100, 30),
            rng.uniform(8e5, 2e6, 30),
            np.arange(1, 31) * 800.0,
            [np.nan, np.inf, -np.inf],
        ]
    )
    pd.DataFrame({"income": values}).to_parquet(path)
    return path


def check_second_passes_agree(backend, path: Path, monkeypatch) -> None:
    """With a top-k of 20 the recursive θ needs counts at drawn points and SQM's per-query θ
    order statistics below the top-k: both second passes run, and the run equals memory's."""
    from dpsum_core import limits

    monkeypatch.setattr(limits, "SUMMARY_TOP_K", 20)
    passes = []
    extend = backend.extend

    def counted(summary, missing):
        passes.append((missing.points.size, missing.positions.size))
        return extend(summary, missing)

    monkeypatch.setattr(backend, "extend", counted)
    config = ExperimentConfig(workload="Q2", truncations=("recursive",), trials=4, seed=9)
    check_run_agrees(backend, path, config)
    assert any(p for p, _ in passes) and any(q for _, q in passes), passes


def check_extend_is_exact(backend, path: Path, monkeypatch) -> None:
    """A second pass at points and ranks in every region — among the zeros that were negative,
    in the first and last bins, next to an edge, inside a bin holding an extra point — returns
    the exact counts, sums and values of the sorted records."""
    from dpsum_core import limits
    from dpsum_core.data.summary import MissingStatistics

    monkeypatch.setattr(limits, "SUMMARY_TOP_K", 20)
    data = MemoryBackend(path, upper=DOMAIN.upper, column="income").data
    values = data.values
    points = np.array([0.25, 400.0, 800.0 - 1e-9, 24_000.5, 60_001.0, 799_999.5, 52_345.25])
    positions = np.array([0, 3, 29, 31, values.size // 2, values.size - 21])
    summary = backend.summarize(CUTS)
    got = backend.extend(summary, MissingStatistics(points, positions))
    np.testing.assert_array_equal(
        got.count_at_most(points), np.searchsorted(values, points, side="right")
    )
    np.testing.assert_array_equal(got.sum_at_most(points), data.sum_at_most(points))
    assert [got._value_at(int(p)) for p in positions] == values[positions].tolist()


def cents_column(path: Path) -> Path:
    """Hourly wages in dollars and cents (U = 200): float running sums drift on such values."""
    import pandas as pd

    rng = np.random.default_rng(3)
    pd.DataFrame({"wage": np.round(rng.lognormal(3, 0.6, 20_000), 2)}).to_parquet(path)
    return path


CENTS_CONFIG = ExperimentConfig(
    upper=200.0, truncations=("none", "fixed", "svt", "recursive"), trials=4, seed=1,
    truncation_params=TruncationParams(theta=31.07),
)  # fmt: skip


def person_rows(folder: Path) -> tuple[Path, Path]:
    """The same table as CSV and Parquet: several rows per person (``pid``, text: ``007`` and
    ``7`` are two people), values in dollars and cents with negatives, NaN, ∞, values above U,
    text that is no number, and rows without an identifier (empty, NA, blank)."""
    import pandas as pd

    rng = np.random.default_rng(16)
    n = 3000
    pid = rng.integers(0, 400, n).astype(str).astype(object)
    pid[:40] = "007"
    pid[40:80] = "7"
    pid[80:90] = ""
    pid[90:95] = "NA"
    pid[95:100] = "   "
    income = np.round(rng.lognormal(9.5, 1.2, n), 2).astype(object)
    income[100:130] = -np.round(rng.uniform(1, 5000, 30), 2)
    income[130:140] = np.nan
    income[140:145] = np.inf
    income[145:150] = "n/a"
    income[150:160] = 2e6
    frame = pd.DataFrame({"pid": pid, "income": income})
    csv = folder / "people.csv"
    frame.to_csv(csv, index=False)
    parquet = folder / "people.parquet"
    frame.assign(pid=frame.pid.replace({"": None, "NA": None, "   ": None})).assign(
        income=pd.to_numeric(frame.income, errors="coerce")
    ).to_parquet(parquet)
    return csv, parquet
