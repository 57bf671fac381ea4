"""Sharing: an ExperimentConfig (+ sample dataset name) to and from a URL query string or a
JSON file. Pure functions (no Streamlit), so they are easy to test; no mathematics here.

Uploaded data is never put in a link or a config file: only the *name* of a sample dataset
(and its column) is, and for an uploaded file only the marker ``data=upload`` — not even the
column's name, which may itself say something about the data — so whoever opens the link is
told to upload the same file.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, fields

from dpsum_core import __version__
from dpsum_core.errors import ParameterError
from dpsum_core.experiment import ExperimentConfig
from dpsum_core.thresholds import TruncationParams

UPLOAD_MARKER = "upload"
_FLOAT_FIELDS = ("epsilon", "rho", "delta", "upper")
_INT_FIELDS = ("trials", "seed", "bins")
_LIST_FIELDS = ("truncations", "algorithms")
_TEXT_FIELDS = ("workload", "weights")
_TP_FLOAT = ("svt_r", "svt_c", "svt_s", "rm_beta", "rm_theta0", "rm_mu", "theta")
_TP_TEXT = ("svt_variant",)
# Query-string names: the config's own field names, except the list "truncations" which a
# reader expects as "truncation"; "data", "column" and "iso" describe what is shown.
_QUERY_NAMES = {"truncations": "truncation"}
CONFIG_QUERY_KEYS: tuple[str, ...] = (
    *(_QUERY_NAMES.get(f, f) for f in (*_TEXT_FIELDS, *_FLOAT_FIELDS, *_INT_FIELDS, *_LIST_FIELDS)),
    *_TP_FLOAT,
    *_TP_TEXT,
)
SHOWN_QUERY_KEYS: tuple[str, ...] = ("data", "column", "iso")


@dataclass(frozen=True)
class SharedSettings:
    """What a link or a config file restores."""

    config: ExperimentConfig
    sample: str | None = None  # sample dataset to load (None: keep the current data)
    uploaded: bool = False  # made with an uploaded file, which is never carried
    column: str | None = None
    iso: bool | None = None


def number_text(value: float | int) -> str:
    """Shortest exact text of a number: ``800000`` rather than ``800000.0``, ``0.01``."""
    v = float(value)
    if v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    return repr(v)


def config_to_query(
    config: ExperimentConfig,
    *,
    sample: str | None,
    column: str | None = None,
    iso: bool = True,
) -> dict[str, str]:
    """Query-string parameters that reproduce ``config`` (defaults of the truncation
    parameters are left out to keep the link short). ``sample=None`` marks uploaded data,
    whose ``column`` is left out."""
    c = config
    out: dict[str, str] = {"data": sample if sample else UPLOAD_MARKER}
    if column and sample:
        out["column"] = column
    out.update(
        workload=c.workload,
        epsilon=number_text(c.epsilon),
        rho=number_text(c.rho),
        truncation=",".join(c.truncations),
        algorithms=",".join(c.algorithms),
        trials=str(c.trials),
        delta=number_text(c.delta),
        seed=str(c.seed),
        upper=number_text(c.upper),
        bins=str(c.bins),
        weights=c.weights,
    )
    default = TruncationParams()
    for f in fields(TruncationParams):
        value = getattr(c.truncation_params, f.name)
        if value is not None and value != getattr(default, f.name):
            out[f.name] = value if isinstance(value, str) else number_text(value)
    out["iso"] = "1" if iso else "0"
    return out


def has_config(params: Mapping[str, object]) -> bool:
    """Whether a query string carries a configuration (any config key)."""
    return any(k in params for k in CONFIG_QUERY_KEYS)


def query_to_settings(
    params: Mapping[str, str | list[str]], *, samples: tuple[str, ...]
) -> SharedSettings | None:
    """Parse a link's query string; ``None`` if it carries no configuration.

    Raises
    ------
    ParameterError
        A value is not a number, a key is malformed, or the config is invalid; the message
        names the parameter.
    """
    flat = {k: (v[-1] if isinstance(v, list) and v else v) for k, v in params.items()}
    flat = {k: str(v) for k, v in flat.items() if v is not None}
    if not has_config(flat):
        return None
    data: dict = {}
    for name in _TEXT_FIELDS:
        if name in flat:
            data[name] = flat[name]
    for name in (*_FLOAT_FIELDS, *_INT_FIELDS):
        if name in flat:
            data[name] = _number(flat[name], name, "in the link")
    for name in _LIST_FIELDS:
        q = _QUERY_NAMES.get(name, name)
        if q in flat:
            data[name] = tuple(p for p in flat[q].split(",") if p.strip())
    tp: dict = {}
    for name in _TP_FLOAT:
        if name in flat and flat[name] != "":
            tp[name] = _number(flat[name], name, "in the link")
    for name in _TP_TEXT:
        if name in flat:
            tp[name] = flat[name]
    if tp:
        data["truncation_params"] = tp
    config = ExperimentConfig.from_dict(data)
    sample, uploaded = _dataset(flat.get("data"), samples)
    iso = None
    if "iso" in flat:
        iso = flat["iso"].strip().lower() not in ("0", "false", "no", "off")
    return SharedSettings(config, sample, uploaded, flat.get("column") or None, iso)


def settings_to_json(
    config: ExperimentConfig, *, sample: str | None, column: str | None = None, iso: bool = True
) -> str:
    """The config file offered for download: the config plus which sample data it used
    (for uploaded data only the fact, never its column)."""
    dataset: dict = {"sample": sample} if sample else {"uploaded": True}
    if column and sample:
        dataset["column"] = column
    doc = {
        "dpsum_version": __version__,
        "config": config.to_dict(),
        "dataset": dataset,
        "isotonic": bool(iso),
        "note": "Uploaded data is never stored in this file; only a sample dataset's name is.",
    }
    return json.dumps(doc, indent=2, sort_keys=True)


def json_to_settings(text: str | bytes, *, samples: tuple[str, ...]) -> SharedSettings:
    """Read a config file: this app's format, a bare ``config.to_json()``, or a CLI run.json.

    Raises
    ------
    ParameterError
        Not JSON, not an object, or an invalid configuration.
    """
    try:
        doc = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        detail = getattr(exc, "msg", None) or str(exc)
        raise ParameterError(
            f"the file is not valid JSON ({detail}): upload a config .json saved by dpsum"
        ) from None
    if not isinstance(doc, dict):
        raise ParameterError('the configuration must be a JSON object, e.g. {"epsilon": 0.01}')
    if isinstance(doc.get("config"), dict):
        config = ExperimentConfig.from_dict(doc["config"])
        ds = doc.get("dataset") if isinstance(doc.get("dataset"), dict) else {}
        name = ds.get("sample") or ds.get("name")
        sample = name if name in samples else None
        uploaded = bool(ds.get("uploaded")) or (name is not None and sample is None)
        column = ds.get("column") if isinstance(ds.get("column"), str) else None
        iso = doc.get("isotonic")
        return SharedSettings(
            config, sample, uploaded, column, iso if isinstance(iso, bool) else None
        )
    return SharedSettings(ExperimentConfig.from_dict(doc))


def _dataset(value: str | None, samples: tuple[str, ...]) -> tuple[str | None, bool]:
    if value is None or value == "":
        return None, False
    if value == UPLOAD_MARKER:
        return None, True
    if value not in samples:
        raise ParameterError(
            f"unknown sample dataset {value!r} in the link: choose one of {', '.join(samples)}"
        )
    return value, False


def _number(text: str, name: str, where: str) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        raise ParameterError(f"{name}={text!r} {where} is not a number") from None
