"""What the pages use: settings (:mod:`.store`), data (:mod:`.datasets`) and the plan.

The session store, the datasets and the widget↔config table (:mod:`.fields`) live in their
own modules; this one turns the stored settings into a validated configuration and back, and
re-exports what the pages need so that they import one name.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar

from dpsum_core.data.dataset import Statistics
from dpsum_core.data.domain import Domain
from dpsum_core.errors import DpsumError
from dpsum_core.mechanisms.recommend import Recommendation, recommend
from dpsum_core.mechanisms.workloads import Workload, make_workload
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import check_run_size

from . import fields
from . import keys as K
from .datasets import (  # noqa: F401  (re-exported for the pages)
    DEFAULT_SAMPLE,
    ONE_ROW,
    SAMPLE_NAMES,
    SAMPLES,
    DataContext,
    Role,
    data_context,
    domain_confirmed,
    domain_fit_warnings,
    domain_from_settings,
    domain_pending,
    has_release_upload,
    has_upload,
    on_release_unit,
    on_release_upload,
    on_server,
    on_source,
    on_upload,
    release_separate,
    release_unit,
    sample_columns,
    sample_dataset,
    select_server,
    upload_error,
)
from .fields import EPSILON_GRID, NAMED_WORKLOADS, defaults  # noqa: F401
from .names import shown_name
from .store import (  # noqa: F401
    NOTICE,
    UOrigin,
    data_state,
    ensure_option,
    get,
    memo,
    memo_get,
    notice,
    put,
    put_data,
    remember_link_view,
    settings,
    strategy_cache,
    take_link_value,
    widget,
)


def upper_from(origin: UOrigin) -> None:
    """Record where the current U came from: ``"link"`` (a link's settings) or ``"user"``."""
    put_data(replace(data_state(), u_origin=origin))


def on_upper() -> None:
    """Callback of the U input: the user entered U for the current dataset."""
    upper_from("user")
    domain_confirmed()


def pending_from() -> str:
    """Where the current U came from, credited in the "U is still …" prompt of a new dataset:
    the link, the user (for which dataset), or the dataset whose default it is (Markdown, the
    dataset's name escaped)."""
    origin, name = data_state().pending_from or (None, None)
    label = shown_name(name) if name else None
    if origin == "link":
        return "the value of the link you opened"
    if origin == "user":
        return f"the value you entered for {label}" if label else "the value you entered"
    return f"the value set for {label or 'the previous dataset'}"


def u_still() -> str:
    """``U is still 20,000, the value you entered for per_person.csv``: the current U and
    where it came from, the one wording of the Data and Release pages (Markdown)."""
    upper = get(K.DOMAIN_UPPER)
    shown = "empty" if upper is None else f"{upper:,.6g}"
    return f"U is still {shown}, {pending_from()}"


def workload_spec() -> str:
    """The workload text (``Q1``, ``every:K``, ``values:…``) from the settings."""
    return fields.workload_spec(get)


def build_config(
    domain: Domain,
    *,
    truncations: tuple[str, ...] | None = None,
    algorithms: tuple[str, ...] | None = None,
) -> ExperimentConfig:
    """The ExperimentConfig the current settings describe (U, n and the weights included).

    Raises
    ------
    ParameterError
        Any setting out of range (the engine's validators word the message).
    """
    return fields.config_from_values(
        get, domain=domain, truncations=truncations, algorithms=algorithms
    )


def recommended(ctx: DataContext) -> Recommendation | None:
    """The engine's recommendation for the current public settings (ε, U, n, workload), or
    ``None`` while they are invalid: the one rule behind the Explorer's mark, Decide's headline
    and the Release page's default.

    A public, data-independent choice on purpose: ranking the algorithms by their simulated
    error on this data (computed without noise) would make the released mechanism depend on
    the data unnoised.
    """
    if ctx.domain is None:
        return None
    try:
        config = build_config(ctx.domain, truncations=("none",))
    except DpsumError:
        return None
    return recommend(
        epsilon=config.epsilon, upper=config.upper, bins=config.bins, workload=config.workload
    )


@dataclass(frozen=True)
class Ready:
    """Settings that can run: the validated configuration and its workload, built once."""

    config: ExperimentConfig
    workload: Workload
    error: ClassVar[None] = None  # so that ``plan.error`` reads alike on every plan


@dataclass(frozen=True)
class Blocked:
    """Why the settings cannot run (a sentence for the page), with the workload when it was
    built and only the run's size is refused."""

    error: str
    workload: Workload | None = None
    config: ClassVar[None] = None  # so that ``plan.config`` reads alike on every plan


Plan = Ready | Blocked
"""What :func:`plan` gives: narrow it with ``isinstance(plan, Ready)`` before a run."""


def plan(ctx: DataContext, **overrides: Any) -> Plan:
    """Validate the current settings against the current domain (no randomness, cheap)."""
    if ctx.domain is None:
        return Blocked(ctx.domain_error or "The domain is not valid: fix it on the Data page.")
    try:
        config = build_config(ctx.domain, **overrides)
        workload = make_workload(config.workload, ctx.domain)
    except DpsumError as exc:
        return Blocked(str(exc))
    try:
        check_run_size(config, workload)  # the engine's memory limit, shared with the CLI
    except DpsumError as exc:
        return Blocked(f"{exc}, or the command line for big runs", workload)
    return Ready(config, workload)


def result_key(dataset: Statistics, config: ExperimentConfig) -> tuple:
    """Cache key of a run: data fingerprint + where it came from + the full config (with seed)."""
    return (dataset.fingerprint, dataset.name, dataset.column, config.to_json())


def apply_config(
    config: ExperimentConfig | None,
    *,
    sample: str | None = None,
    column: str | None = None,
    iso: bool | None = None,
    id_column: str | None = None,
) -> None:
    """Write a configuration into the settings (from a link or a config file; ``None``: a link
    naming only its data, the settings stay); with a named sample, its column and privacy
    identifier (``None``: one row per person).

    Call from a callback or before any widget is drawn in this run.
    """
    if config is not None:
        for key, value in fields.values_from_config(config).items():
            put(key, value)
    if sample is not None:
        put(K.DATA_SOURCE, "sample")
        put(K.DATA_SAMPLE, sample)
        put(K.DATA_COLUMN, column)
        put(K.DATA_ID_COLUMN, id_column)
    elif column is not None and get(K.DATA_SOURCE) == "upload":
        put(K.DATA_COLUMN, column)
    if iso is not None:
        put(K.ISO, bool(iso))
