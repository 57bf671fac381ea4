"""The one table from widget keys to ``ExperimentConfig`` fields (pure: no Streamlit here).

Defaults come from the engine's dataclasses, so the app, the CLI and the library agree.
:func:`config_from_values` (settings → config) and :func:`values_from_config` (a link or a
config file → settings) both read :data:`FIELDS`; the few settings that are not one field each
(workload, truncation, β, fixed θ) are written out next to it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dpsum_core.data.domain import Domain
from dpsum_core.errors import ParameterError
from dpsum_core.mechanisms.recommend import recommend
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.truncation.params import TruncationParams

from . import keys as K

NAMED_WORKLOADS = ("Q1", "Q2", "Q3")
DEFAULT_SAMPLE = "incomes.csv"
EPSILON_GRID: tuple[float, ...] = (
    0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0,
)  # fmt: skip
COMPARE_VIEWS: tuple[str, ...] = ("heatmap", "error", "answers")
_CONFIG = ExperimentConfig()
_PARAMS = TruncationParams()


@dataclass(frozen=True)
class Field:
    """One widget holding one config field (``params``: a field of ``TruncationParams``)."""

    key: str
    name: str
    label: str
    params: bool = False
    optional: bool = False  # empty means the engine's default (e.g. s = U·START_FRACTION)

    @property
    def default(self) -> Any:
        """The engine's default, as the widget holds it (tuples as lists)."""
        value = getattr(_PARAMS if self.params else _CONFIG, self.name)
        return list(value) if isinstance(value, tuple) else value


FIELDS: tuple[Field, ...] = (
    Field(K.EPSILON, "epsilon", "epsilon"),
    Field(K.RHO, "rho", "rho"),
    Field(K.ALGORITHMS, "algorithms", "algorithms"),
    Field(K.TRIALS, "trials", "trials"),
    Field(K.DELTA, "delta", "delta"),
    Field(K.SEED, "seed", "seed"),
    Field(K.DOMAIN_UPPER, "upper", "upper bound U"),
    Field(K.DOMAIN_BINS, "bins", "bins"),
    Field(K.DOMAIN_WEIGHTS, "weights", "weights"),
    Field(K.SVT_VARIANT, "svt_variant", "svt variant", params=True),
    Field(K.SVT_R, "svt_r", "svt r", params=True),
    Field(K.SVT_C, "svt_c", "svt c", params=True),
    Field(K.SVT_S, "svt_s", "svt s", params=True, optional=True),
    Field(K.RM_THETA0, "rm_theta0", "recursive theta0", params=True, optional=True),
    Field(K.RM_MU, "rm_mu", "recursive mu", params=True),
)

# Settings that are not one config field each, and the page-only settings.
UI_DEFAULTS: dict[str, Any] = {
    K.DATA_SOURCE: "sample",
    K.DATA_SAMPLE: DEFAULT_SAMPLE,
    K.DATA_COLUMN: None,
    K.DATA_ID_COLUMN: None,
    K.DATA_SERVER: None,
    K.DATA_SERVER_PATH: "",
    K.RELEASE_DATA: "same",
    K.RELEASE_DATA_SAMPLE: DEFAULT_SAMPLE,
    K.RELEASE_DATA_COLUMN: None,
    K.DOMAIN_BINS_MODE: "bins",
    K.DOMAIN_WIDTH: _CONFIG.upper / _CONFIG.bins,
    K.WORKLOAD_KIND: _CONFIG.workload,
    K.WORKLOAD_EVERY: 5,
    K.WORKLOAD_VALUES: "10000, 50000, 100000, 200000, 400000",
    K.TRUNCATION: _CONFIG.truncations[0],
    K.THETA_FIXED: 100_000.0,
    K.RM_BETA_AUTO: _PARAMS.rm_beta is None,
    K.RM_BETA: 2 * _CONFIG.rho * _CONFIG.epsilon / 5,
    K.ISO: True,
    K.TEACH_QUERY: None,
    K.TEACH_ALGORITHM: "identity",
    K.TEACH_THETA: None,
    K.TEACH_PRIVATE: True,
    K.COMPARE_TRUNCATIONS: ["none", "svt", "recursive"],
    K.COMPARE_VIEW: "heatmap",
    K.SWEEP_EPSILONS: [0.001, 0.01, 0.1, 1.0],
    K.SWEEP_TRUNCATION: "svt",
    K.DECIDE_TARGET: "5",
    K.DECIDE_ABOVE: 10.0,
    K.DECIDE_TRUNCATIONS: ["svt"],
}


def defaults() -> dict[str, Any]:
    """Initial settings: the paper's defaults, taken from the engine's own defaults, with the
    algorithm recommended at those defaults (public inputs only) always among those selected."""
    out = {**UI_DEFAULTS, **{f.key: f.default for f in FIELDS}}
    rec = recommend(
        epsilon=_CONFIG.epsilon, upper=_CONFIG.upper, bins=_CONFIG.bins, workload=_CONFIG.workload
    ).algorithm
    if rec not in out[K.ALGORITHMS]:
        out[K.ALGORITHMS] = [*out[K.ALGORITHMS], rec]
    return out


def workload_spec(get: Callable[[str], Any]) -> str:
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


def config_from_values(
    get: Callable[[str], Any],
    *,
    domain: Domain | None = None,
    truncations: tuple[str, ...] | None = None,
    algorithms: tuple[str, ...] | None = None,
) -> ExperimentConfig:
    """The ExperimentConfig that the settings read by ``get(key)`` describe.

    ``domain``: the public domain as resolved from the Data page (which may set the bin
    width rather than n); it replaces the U, n and weight-rule settings.

    Raises
    ------
    ParameterError
        A setting is empty or out of range (the engine's validators word the message).
    """

    def value(field: Field) -> Any:
        v = get(field.key)
        if v is None:
            if field.optional:
                return None
            raise ParameterError(f"{field.label} is empty: enter a value")
        return tuple(v) if isinstance(v, list) else v

    truncs = truncations or (get(K.TRUNCATION),)
    if "fixed" in truncs and get(K.THETA_FIXED) is None:
        raise ParameterError("fixed θ is empty: enter a threshold θ > 0, e.g. 100000")
    params = {f.name: value(f) for f in FIELDS if f.params}
    rm_beta = None
    if not get(K.RM_BETA_AUTO):
        rm_beta = value(Field(K.RM_BETA, "rm_beta", "recursive beta", params=True))
    theta = float(get(K.THETA_FIXED)) if "fixed" in truncs else None
    top = {f.name: value(f) for f in FIELDS if not f.params}
    if algorithms is not None:
        top["algorithms"] = tuple(algorithms)
    if domain is not None:
        top.update(upper=domain.upper, bins=domain.bins, weights=domain.weights)
    return ExperimentConfig(
        workload=workload_spec(get),
        truncations=tuple(truncs),
        truncation_params=TruncationParams(**params, rm_beta=rm_beta, theta=theta),
        **top,
    )


def values_from_config(config: ExperimentConfig) -> dict[str, Any]:
    """The settings that reproduce ``config`` (for a link or a config file)."""
    out: dict[str, Any] = {}
    for f in FIELDS:
        v = getattr(config.truncation_params if f.params else config, f.name)
        if isinstance(v, tuple):
            out[f.key] = list(v)
        elif v is None or f.default is None:
            out[f.key] = None if v is None else float(v)
        else:
            out[f.key] = type(f.default)(v)
    spec = config.workload
    if spec.upper() in NAMED_WORKLOADS:
        out[K.WORKLOAD_KIND] = spec.upper()
    elif spec.lower().startswith("every:"):
        out[K.WORKLOAD_KIND] = "every"
        out[K.WORKLOAD_EVERY] = int(spec.split(":", 1)[1])
    else:
        out[K.WORKLOAD_KIND] = "values"
        values = spec.split(":", 1)[1].split(",")
        out[K.WORKLOAD_VALUES] = ", ".join(v.strip() for v in values if v.strip())
    out[K.TRUNCATION] = config.truncations[0]
    if len(config.truncations) > 1:
        out[K.COMPARE_TRUNCATIONS] = list(config.truncations)
    out[K.DOMAIN_BINS_MODE] = "bins"
    out[K.DOMAIN_WIDTH] = float(config.upper / config.bins)
    tp = config.truncation_params
    out[K.RM_BETA_AUTO] = tp.rm_beta is None
    if tp.rm_beta is not None:
        out[K.RM_BETA] = float(tp.rm_beta)
    if tp.theta is not None:
        out[K.THETA_FIXED] = float(tp.theta)
    return out
