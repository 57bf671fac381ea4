"""Per-session state: one stored value per widget key, the current dataset, and a memo.

Everything per user lives in ``st.session_state`` (never in module globals). Settings are kept
under ``_settings`` so they survive page switches (Streamlit forgets a widget's state when its
page is not shown); :func:`widget` seeds a widget from the stored value and stores it back.
"""

from __future__ import annotations

import io
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd
import streamlit as st

from dpsum_core import limits
from dpsum_core.data import (
    Dataset,
    Domain,
    domain_warnings,
    make_dataset,
    numeric_columns,
    read_numeric_table,
    read_table,
)
from dpsum_core.errors import DataError, DpsumError, ParameterError
from dpsum_core.experiment import ExperimentConfig, check_run_size
from dpsum_core.thresholds import TruncationParams
from dpsum_core.workloads import Workload, make_workload

from . import keys as K

T = TypeVar("T")

SAMPLE_DIR = Path(__file__).resolve().parent.parent / "sample_data"
SAMPLES: dict[str, str] = {
    "incomes.csv": "Synthetic incomes, 45,000 people (paper scale)",
    "incomes_small.csv": "Synthetic incomes, 5,000 people (quick)",
}
DEFAULT_SAMPLE = "incomes.csv"
SAMPLE_NAMES: tuple[str, ...] = tuple(SAMPLES)
NAMED_WORKLOADS = ("Q1", "Q2", "Q3")
EPSILON_GRID: tuple[float, ...] = (
    0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0,
)  # fmt: skip

_SETTINGS = "_settings"
_MEMO = "_memo"
_UPLOAD = "_upload"
UPLOAD_ERROR = "_upload_error"
DOMAIN_PENDING = "_domain_pending"  # name of an upload whose U the user has not yet set
EXPLORER_RESULT = "_explorer_result"  # memo key of the result shown on the explorer page
COMPARE_RESULT = "_compare_result"
SWEEP_RESULT = "_sweep_result"
NOTICE = "_notice"  # (kind, text) shown once on the explorer page (link / config restored)
AUTORUN = "_autorun"


def defaults() -> dict[str, Any]:
    """Initial settings: the paper's defaults, taken from the engine's own defaults."""
    c = ExperimentConfig()
    tp = c.truncation_params
    return {
        K.DATA_SOURCE: "sample",
        K.DATA_SAMPLE: DEFAULT_SAMPLE,
        K.DATA_COLUMN: None,
        K.DOMAIN_UPPER: float(c.upper),
        K.DOMAIN_BINS_MODE: "bins",
        K.DOMAIN_BINS: int(c.bins),
        K.DOMAIN_WIDTH: float(c.upper / c.bins),
        K.DOMAIN_WEIGHTS: c.weights,
        K.WORKLOAD_KIND: c.workload,
        K.WORKLOAD_EVERY: 5,
        K.WORKLOAD_VALUES: "10000, 50000, 100000, 200000, 400000",
        K.EPSILON: float(c.epsilon),
        K.RHO: float(c.rho),
        K.TRUNCATION: c.truncations[0],
        K.THETA_FIXED: 100_000.0,
        K.SVT_VARIANT: tp.svt_variant,
        K.SVT_R: float(tp.svt_r),
        K.SVT_C: float(tp.svt_c),
        K.SVT_S: float(tp.svt_s),
        K.RM_BETA_AUTO: True,
        K.RM_BETA: 2 * c.rho * c.epsilon / 5,
        K.RM_THETA0: float(tp.rm_theta0),
        K.RM_MU: float(tp.rm_mu),
        K.ALGORITHMS: list(c.algorithms),
        K.TRIALS: int(c.trials),
        K.DELTA: float(c.delta),
        K.SEED: int(c.seed),
        K.ISO: True,
        K.TEACH_QUERY: None,
        K.TEACH_ALGORITHM: "identity",
        K.TEACH_THETA: None,
        K.TEACH_PRIVATE: True,
        K.COMPARE_TRUNCATIONS: ["none", "svt", "recursive"],
        K.COMPARE_VIEW: "heatmap",
        K.SWEEP_EPSILONS: [0.001, 0.01, 0.1, 1.0],
        K.SWEEP_TRUNCATION: "svt",
    }


# --------------------------------------------------------------------------------------------
# Settings
# --------------------------------------------------------------------------------------------
def settings() -> dict[str, Any]:
    """The stored settings of this session (created with the defaults)."""
    ss = st.session_state
    if _SETTINGS not in ss:
        ss[_SETTINGS] = defaults()
    return ss[_SETTINGS]


def get(key: str) -> Any:
    """Current value of a setting: the live widget value if its widget exists this run."""
    ss = st.session_state
    if key in ss:
        return ss[key]
    return settings()[key]


def put(key: str, value: Any) -> None:
    """Change a setting and its widget. Call only from a callback or before the widget is drawn."""
    settings()[key] = value
    st.session_state[key] = value


def widget(fn: Callable[..., T], key: str, *args: Any, **kwargs: Any) -> T:
    """Draw ``fn(*args, key=key, **kwargs)`` seeded from, and stored back to, the settings."""
    store = settings()
    ss = st.session_state
    # Re-assign even when the key exists: a widget of another page leaves its state under the
    # same key, and a new widget only adopts a value set through the Session State API.
    ss[key] = ss[key] if key in ss else store[key]
    value = fn(*args, key=key, **kwargs)
    store[key] = value
    return value


def ensure_option(key: str, options: list | tuple, fallback: Any = None) -> None:
    """Before drawing a choice widget: make sure its stored value is one of ``options``."""
    if not options:
        return
    current = get(key)
    if current not in options:
        put(key, fallback if fallback in options else options[0])


# --------------------------------------------------------------------------------------------
# Memo (per session, bounded): results and figures keyed by plain values
# --------------------------------------------------------------------------------------------
_SIZES = {"result": 4, "compare": 2, "sweep": 4, "figure": 40, "curves": 12, "samples": 12}


def memo(kind: str, key: tuple, compute: Callable[[], T]) -> T:
    """``compute()`` once per (kind, key) in this session; least recently used entries go."""
    store: OrderedDict = st.session_state.setdefault(_MEMO, {}).setdefault(kind, OrderedDict())
    if key in store:
        store.move_to_end(key)
        return store[key]
    value = compute()
    store[key] = value
    while len(store) > _SIZES.get(kind, 8):
        store.popitem(last=False)
    return value


def memo_get(kind: str, key: tuple | None) -> Any:
    """A memoised value, or ``None``."""
    if key is None:
        return None
    return st.session_state.get(_MEMO, {}).get(kind, {}).get(key)


# --------------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------------
@st.cache_resource(show_spinner=False, max_entries=4)
def sample_table(name: str) -> pd.DataFrame:
    """A sample dataset's table (public synthetic data, shared by all sessions, read-only)."""
    if name not in SAMPLES:
        raise DataError(f"unknown sample dataset {name!r}: choose one of {', '.join(SAMPLES)}")
    return read_table(SAMPLE_DIR / name, name=name)


@st.cache_resource(show_spinner=False, max_entries=4)
def sample_columns(name: str) -> list[str]:
    """Numeric columns of a sample dataset."""
    return numeric_columns(sample_table(name))


@st.cache_resource(show_spinner=False, max_entries=16)
def sample_dataset(name: str, column: str, upper: float) -> Dataset:
    """A cleaned sample column (public data, shared; the Dataset is immutable)."""
    return _make(sample_table(name), column, upper, name)


def _make(df: pd.DataFrame, column: str, upper: float, name: str) -> Dataset:
    names = [str(c) for c in df.columns]
    if column not in names:
        raise DataError(f"no column named {column!r} in {name}; columns are: {', '.join(names)}.")
    return make_dataset(df.iloc[:, names.index(column)], upper=upper, name=name, column=column)


def on_upload() -> None:
    """Callback of the data uploader: read the file; on failure keep the current data."""
    ss = st.session_state
    ss.pop(UPLOAD_ERROR, None)
    file = ss.get(K.DATA_UPLOAD)
    if file is None:
        return
    name = getattr(file, "name", "upload")
    try:
        # Size limit, parsing, row limit and "no numeric column" are the engine's checks.
        df, columns = read_numeric_table(io.BytesIO(file.getvalue()), name=name)
    except DpsumError as exc:
        ss[UPLOAD_ERROR] = f"Could not use {name}: {exc}"
        return
    ss[_UPLOAD] = {"name": name, "id": getattr(file, "file_id", name), "df": df, "columns": columns}
    put(K.DATA_SOURCE, "upload")
    put(K.DATA_COLUMN, columns[0])
    # The sample's U rarely suits another column: ask for it (never guess it from the data).
    ss[DOMAIN_PENDING] = name


def domain_pending() -> str | None:
    """The uploaded file whose public U is still to be set (None once it is set or kept)."""
    if get(K.DATA_SOURCE) != "upload" or not has_upload():
        return None
    return st.session_state.get(DOMAIN_PENDING)


def domain_confirmed() -> None:
    """Callback of the U input and of "keep U": the user has chosen U for the upload."""
    st.session_state.pop(DOMAIN_PENDING, None)


def has_upload() -> bool:
    """Whether a file was uploaded successfully in this session."""
    return _UPLOAD in st.session_state


def upload_name() -> str | None:
    """File name of the current upload."""
    up = st.session_state.get(_UPLOAD)
    return up["name"] if up else None


@dataclass(frozen=True)
class DataContext:
    """The current data and domain, or the message that says why they are not available."""

    dataset: Dataset | None
    domain: Domain | None
    columns: list[str]
    column: str | None
    source: str  # "sample" or "upload"
    sample: str | None
    label: str
    data_error: str | None = None
    domain_error: str | None = None
    domain_note: str | None = None

    @property
    def ok(self) -> bool:
        """Data and domain are both usable."""
        return self.dataset is not None and self.domain is not None

    @property
    def error(self) -> str | None:
        """The first problem, if any."""
        return self.data_error or self.domain_error


def data_context() -> DataContext:
    """Resolve the current dataset (cleaned with the current U) and the public domain."""
    source = "upload" if get(K.DATA_SOURCE) == "upload" and has_upload() else "sample"
    if source == "sample":
        sample = get(K.DATA_SAMPLE)
        if sample not in SAMPLES:
            sample = DEFAULT_SAMPLE
        columns = sample_columns(sample)
        label = sample
    else:
        up = st.session_state[_UPLOAD]
        sample, columns, label = None, up["columns"], up["name"]
    column = get(K.DATA_COLUMN)
    if column not in columns:
        column = columns[0]
    domain, domain_error, note = None, None, None
    try:
        domain, note = domain_from_settings()
    except DpsumError as exc:
        domain_error = f"The domain is not valid: {exc}"
    dataset, data_error = None, None
    try:
        upper = _upper()
        if source == "sample":
            dataset = sample_dataset(sample, column, upper)
        else:
            up = st.session_state[_UPLOAD]
            dataset = memo(
                "dataset", (up["id"], column, upper), lambda: _make(up["df"], column, upper, label)
            )
    except DpsumError as exc:
        data_error = (
            f"The upper bound U is not valid: {exc}"
            if isinstance(exc, ParameterError)
            else f"The data cannot be used: {exc}"
        )
    return DataContext(
        dataset, domain, list(columns), column, source, sample, label, data_error,
        domain_error, note,
    )  # fmt: skip


def _upper() -> float:
    value = get(K.DOMAIN_UPPER)
    if value is None:
        raise ParameterError("upper bound U is empty: enter a public upper bound, e.g. 800000")
    return float(value)


def domain_fit_warnings(ctx: DataContext) -> list[str]:
    """The engine's domain-fit warnings for the current data (for this user's eyes only)."""
    if not ctx.ok:
        return []
    key = (ctx.dataset.fingerprint, str(ctx.domain))
    return memo("fit", key, lambda: domain_warnings(ctx.dataset, ctx.domain))


def domain_from_settings() -> tuple[Domain, str | None]:
    """The public domain from the Data page settings, and a note if the width was rounded.

    Raises
    ------
    ParameterError
        U, n or the width is out of range; the message says what to change.
    """
    upper = _upper()
    weights = get(K.DOMAIN_WEIGHTS)
    if get(K.DOMAIN_BINS_MODE) == "width":
        width = get(K.DOMAIN_WIDTH)
        if width is None or not float(width) > 0:
            raise ParameterError(f"bin width must be > 0, got {width}: enter a positive width")
        if not upper > 0:
            raise ParameterError(f"upper bound U must be > 0, got {upper:g}")
        bins = max(1, round(upper / float(width)))
        if bins > limits.MAX_BINS:
            raise ParameterError(
                f"a bin width of {float(width):g} on [0, {upper:g}] gives {bins:,} bins, more "
                f"than the {limits.MAX_BINS:,} allowed: use a bin width of at least "
                f"{upper / limits.MAX_BINS:g}"
            )
        domain = Domain(upper, bins, weights)
        note = None
        if abs(domain.width - float(width)) > 1e-9 * max(1.0, float(width)):
            note = (
                f"U / width is not a whole number: using n = {bins:,} bins of width "
                f"{domain.width:,.6g}."
            )
        return domain, note
    bins = get(K.DOMAIN_BINS)
    if bins is None:
        raise ParameterError("the number of bins is empty: enter n, e.g. 1000")
    if int(bins) > limits.MAX_BINS:
        raise ParameterError(
            f"bins must be between 1 and {limits.MAX_BINS:,}, got {int(bins):,}: use fewer bins"
        )
    return Domain(upper, int(bins), weights), None


# --------------------------------------------------------------------------------------------
# Configuration
# --------------------------------------------------------------------------------------------
def workload_spec() -> str:
    """The workload text (``Q1``, ``every:K``, ``values:…``) from the settings."""
    kind = get(K.WORKLOAD_KIND)
    if kind in NAMED_WORKLOADS:
        return kind
    if kind == "every":
        k = get(K.WORKLOAD_EVERY)
        if k is None:
            raise ParameterError("every K-th edge needs K: enter a whole number ≥ 1")
        return f"every:{int(k)}"
    text = (get(K.WORKLOAD_VALUES) or "").strip()
    if not text:
        raise ParameterError("values: needs at least one threshold, e.g. 10000, 50000")
    return f"values:{text}"


def build_config(
    domain: Domain,
    *,
    truncations: tuple[str, ...] | None = None,
    algorithms: tuple[str, ...] | None = None,
) -> ExperimentConfig:
    """The ExperimentConfig the current settings describe.

    Raises
    ------
    ParameterError
        Any setting out of range (the engine's validators word the message).
    """
    truncs = truncations or (get(K.TRUNCATION),)
    if "fixed" in truncs and get(K.THETA_FIXED) is None:
        raise ParameterError("fixed θ is empty: enter a threshold θ > 0, e.g. 100000")
    params = TruncationParams(
        svt_variant=get(K.SVT_VARIANT),
        svt_r=_num(K.SVT_R, "svt r"),
        svt_c=_num(K.SVT_C, "svt c"),
        svt_s=_num(K.SVT_S, "svt s"),
        rm_beta=None if get(K.RM_BETA_AUTO) else _num(K.RM_BETA, "recursive beta"),
        rm_theta0=_num(K.RM_THETA0, "recursive theta0"),
        rm_mu=_num(K.RM_MU, "recursive mu"),
        theta=float(get(K.THETA_FIXED)) if "fixed" in truncs else None,
    )
    return ExperimentConfig(
        workload=workload_spec(),
        epsilon=get(K.EPSILON),
        rho=get(K.RHO),
        truncations=tuple(truncs),
        algorithms=tuple(algorithms if algorithms is not None else get(K.ALGORITHMS) or ()),
        trials=_num(K.TRIALS, "trials"),
        delta=_num(K.DELTA, "delta"),
        seed=_num(K.SEED, "seed"),
        upper=domain.upper,
        bins=domain.bins,
        weights=domain.weights,
        truncation_params=params,
    )


def _num(key: str, name: str) -> float:
    value = get(key)
    if value is None:
        raise ParameterError(f"{name} is empty: enter a number")
    return value


@dataclass(frozen=True)
class Plan:
    """A valid configuration with its workload, or the error that prevents one."""

    config: ExperimentConfig | None
    workload: Workload | None
    error: str | None


def plan(ctx: DataContext, **overrides: Any) -> Plan:
    """Validate the current settings against the current domain (no randomness, cheap)."""
    if ctx.domain is None:
        return Plan(None, None, ctx.domain_error)
    try:
        config = build_config(ctx.domain, **overrides)
        workload = make_workload(config.workload, ctx.domain)
    except DpsumError as exc:
        return Plan(None, None, str(exc))
    try:
        check_run_size(config, workload)  # the engine's memory limit, shared with the CLI
    except DpsumError as exc:
        return Plan(None, workload, f"{exc}, or the command line for big runs")
    return Plan(config, workload, None)


def result_key(dataset: Dataset, config: ExperimentConfig) -> tuple:
    """Cache key of a run: data fingerprint + where it came from + the full config (with seed)."""
    return (dataset.fingerprint, dataset.name, dataset.column, config.to_json())


def apply_config(
    config: ExperimentConfig,
    *,
    sample: str | None = None,
    column: str | None = None,
    iso: bool | None = None,
) -> None:
    """Write a configuration into the settings (from a link or a config file).

    Call from a callback or before any widget is drawn in this run.
    """
    spec = config.workload
    upper = spec.upper()
    if upper in NAMED_WORKLOADS:
        put(K.WORKLOAD_KIND, upper)
    elif spec.lower().startswith("every:"):
        put(K.WORKLOAD_KIND, "every")
        put(K.WORKLOAD_EVERY, int(spec.split(":", 1)[1]))
    else:
        put(K.WORKLOAD_KIND, "values")
        put(K.WORKLOAD_VALUES, spec.split(":", 1)[1].replace(",", ", "))
    put(K.EPSILON, float(config.epsilon))
    put(K.RHO, float(config.rho))
    put(K.TRUNCATION, config.truncations[0])
    if len(config.truncations) > 1:
        put(K.COMPARE_TRUNCATIONS, list(config.truncations))
    put(K.ALGORITHMS, list(config.algorithms))
    put(K.TRIALS, int(config.trials))
    put(K.DELTA, float(config.delta))
    put(K.SEED, int(config.seed))
    put(K.DOMAIN_UPPER, float(config.upper))
    put(K.DOMAIN_BINS_MODE, "bins")
    put(K.DOMAIN_BINS, int(config.bins))
    put(K.DOMAIN_WIDTH, float(config.upper / config.bins))
    put(K.DOMAIN_WEIGHTS, config.weights)
    tp = config.truncation_params
    put(K.SVT_VARIANT, tp.svt_variant)
    put(K.SVT_R, float(tp.svt_r))
    put(K.SVT_C, float(tp.svt_c))
    put(K.SVT_S, float(tp.svt_s))
    put(K.RM_BETA_AUTO, tp.rm_beta is None)
    if tp.rm_beta is not None:
        put(K.RM_BETA, float(tp.rm_beta))
    put(K.RM_THETA0, float(tp.rm_theta0))
    put(K.RM_MU, float(tp.rm_mu))
    if tp.theta is not None:
        put(K.THETA_FIXED, float(tp.theta))
    if sample is not None:
        put(K.DATA_SOURCE, "sample")
        put(K.DATA_SAMPLE, sample)
        put(K.DATA_COLUMN, column)
    elif column is not None and get(K.DATA_SOURCE) == "upload":
        put(K.DATA_COLUMN, column)
    if iso is not None:
        put(K.ISO, bool(iso))


def notice(kind: str, text: str) -> None:
    """Queue a message for the explorer page (``kind``: success, info, warning, error)."""
    st.session_state[NOTICE] = (kind, text)
