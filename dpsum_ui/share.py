"""Sharing: an ExperimentConfig (+ which dataset) to and from a URL query string or a JSON
file. Pure functions (no Streamlit), so they are easy to test; no mathematics here.

What a link or a config file says about the data, by source:

- a sample dataset: its name and column (``data=incomes.csv&column=income``), and the column
  identifying a person when one is chosen (``id_column=person``: the unit of privacy);
- a server dataset: its name relative to the server's data directory, its column and its
  privacy identifier if any (``data=server:census/2020&column=income&id_column=pid``). Anyone using that app already sees the name on
  the Data page, and it means something only on that server; the app checks it with
  :mod:`dpsum_ui.server_data` before anything is read;
- an uploaded file: only the marker ``data=upload`` — not even the columns' names, which may
  itself say something about the data — so whoever opens the link is told to upload the same
  file.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from dpsum_core import __version__
from dpsum_core.errors import ParameterError
from dpsum_core.mechanisms.workloads import make_workload
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.truncation.params import TruncationParams
from dpsum_core.truncation.registry import PARAMETERS

from .fields import default_algorithms

UPLOAD_MARKER = "upload"
SERVER_PREFIX = "server:"  # data=server:<name relative to the server's data directory>


def _kinds(cls) -> dict[str, str]:
    """Field name → "list", "number" or "text", read from the dataclass's own annotations."""
    out = {}
    for f in fields(cls):
        t = str(f.type)
        out[f.name] = (
            "list" if t.startswith("tuple") else "number" if t.split(" ")[0] in ("float", "int")
            else "text"
        )  # fmt: skip
    return out


_CONFIG_KINDS = {k: v for k, v in _kinds(ExperimentConfig).items() if k != "truncation_params"}
# The truncation methods' parameters, under their own names (the methods' descriptions).
_PARAM_KINDS = {name: "number" if p.numeric else "text" for name, p in PARAMETERS.items()}
# Query-string names: the config's own field names, except the list "truncations" which a
# reader expects as "truncation"; "data", "column" and "iso" describe what is shown.
_QUERY_NAMES = {"truncations": "truncation"}
CONFIG_QUERY_KEYS: tuple[str, ...] = (
    *(_QUERY_NAMES.get(f, f) for f in _CONFIG_KINDS),
    *_PARAM_KINDS,
)

GRID_PARAM = "view"  # on a Compare link: the grid was shown (and is run once when opened)
SIMULATE_PARAM = "simulate"  # on a Decide link: the simulation was shown (run once when opened)
# What a link names besides the configuration: the data (``data=incomes.csv&column=income``
# alone is a link too, the README's own form) and its privacy identifier.
SOURCE_QUERY_KEYS: tuple[str, ...] = ("data", "column", "id_column")
# What a page shows beyond the configuration: query name → (widget key, kind, allowed values),
# declared by each page (dpsum_ui.page.Page.view).
ViewParams = Mapping[str, tuple[str, str, tuple | None]]


class LinkProblems(ParameterError):
    """Every value of a link that cannot be used, each said once and naming its parameter
    (``problems``): one notice lists them all, not only the first found."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems: tuple[str, ...] = tuple(dict.fromkeys(problems))
        super().__init__("; ".join(self.problems))


@dataclass(frozen=True)
class SharedSettings:
    """What a link or a config file restores (``config`` None: a link naming only its data,
    which keeps the current settings)."""

    config: ExperimentConfig | None
    sample: str | None = None  # sample dataset to load (None: keep the current data)
    uploaded: bool = False  # made with an uploaded file, which is never carried
    column: str | None = None
    iso: bool | None = None
    # server dataset named by the link, relative to the data directory: not yet checked
    # (absolute, "..", missing…), the app refuses it with server_data before reading anything
    server: str | None = None
    id_column: str | None = None  # the privacy identifier (None: one row per person)


def number_text(value: float | int) -> str:
    """Shortest exact text of a number: ``800000`` rather than ``800000.0``, ``0.01``."""
    v = float(value)
    if v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    return repr(v)


@dataclass(frozen=True)
class Source:
    """Which data a view was computed on, as a link names it: a sample or a server dataset by
    name (neither: an uploaded file, never named), its column and privacy identifier."""

    sample: str | None = None
    server: str | None = None
    column: str | None = None
    id_column: str | None = None

    @classmethod
    def of(cls, ctx: Any) -> Source:
        """The source of a data context (anything with ``sample``, ``server``, ``column`` and
        ``id_column``, e.g. :class:`dpsum_ui.datasets.DataContext`)."""
        return cls(ctx.sample, ctx.server, ctx.column, ctx.id_column)


def link_query(
    config: ExperimentConfig,
    source: Source,
    *,
    iso: bool,
    view: ViewParams | None = None,
    values: Mapping[str, Any] | None = None,
    flags: tuple[str, ...] = (),
) -> dict[str, str]:
    """The one link builder of every page: the query string of a view computed with
    ``config`` on ``source``, then what the page shows beyond the configuration (its ``view``
    parameters with their ``values``, :func:`view_to_query`), then each of ``flags`` set
    (e.g. :data:`SIMULATE_PARAM`: what was run is run again when the link is opened)."""
    params = config_to_query(
        config, sample=source.sample, server=source.server, column=source.column, iso=iso,
        id_column=source.id_column,
    )  # fmt: skip
    if view:
        params.update(view_to_query(view, values or {}))
    params.update(dict.fromkeys(flags, "1"))
    return params


def config_to_query(
    config: ExperimentConfig,
    *,
    sample: str | None,
    column: str | None = None,
    iso: bool = True,
    server: str | None = None,
    id_column: str | None = None,
) -> dict[str, str]:
    """Query-string parameters that reproduce ``config`` (defaults of the truncation
    parameters are left out to keep the link short). ``sample`` or ``server`` names the
    dataset; with neither the data was uploaded, and its ``column`` and ``id_column`` (the
    privacy identifier) are left out."""
    c = config
    dataset = _named(sample, server)
    out: dict[str, str] = {"data": dataset or UPLOAD_MARKER}
    if column and dataset:
        out["column"] = column
    if id_column and dataset:
        out["id_column"] = id_column
    for name, kind in _CONFIG_KINDS.items():
        value = getattr(c, name)
        if value is None:  # an optional field left unset (public_cap): not carried
            continue
        out[_QUERY_NAMES.get(name, name)] = (
            ",".join(value) if kind == "list" else number_text(value) if kind == "number"
            else str(value)
        )  # fmt: skip
    default = TruncationParams()
    for name in PARAMETERS:
        value = getattr(c.truncation_params, name)
        if value is not None and value != getattr(default, name):
            out[name] = value if isinstance(value, str) else number_text(value)
    out["iso"] = "1" if iso else "0"
    return out


def has_settings(params: Mapping[str, object]) -> bool:
    """Whether a query string carries settings: a config key, or which data it shows."""
    return any(k in params for k in (*CONFIG_QUERY_KEYS, *SOURCE_QUERY_KEYS))


def read_link(
    params: Mapping[str, str | list[str]], view: ViewParams, *, samples: tuple[str, ...]
) -> tuple[SharedSettings | None, dict[str, object]]:
    """A link's settings (:func:`query_to_settings`) and the view of the page it opens
    (:func:`query_to_view`).

    Raises
    ------
    LinkProblems
        Every value of either that cannot be used (``?tau=abc&theta=-5``: both).
    """
    problems: list[str] = []
    shared: SharedSettings | None = None
    shown: dict[str, object] = {}
    try:
        shared = query_to_settings(params, samples=samples)
    except ParameterError as exc:
        problems.extend(_problems(exc))
    try:
        shown = query_to_view(view, params)
    except ParameterError as exc:
        problems.extend(_problems(exc))
    if problems:
        raise LinkProblems(problems)
    return shared, shown


def query_to_settings(
    params: Mapping[str, str | list[str]], *, samples: tuple[str, ...]
) -> SharedSettings | None:
    """Parse a link's query string; ``None`` if it carries no settings (:func:`has_settings`).

    A link naming only its data (``data=incomes.csv&column=income``) gives settings whose
    ``config`` is None: the current settings stay.

    Raises
    ------
    LinkProblems
        Every value that is not a number, malformed, out of its range or naming unknown data;
        each message names the parameter.
    """
    flat = _flat(params)
    if not has_settings(flat):
        return None
    problems: list[str] = []
    data = _parsed(flat, {_QUERY_NAMES.get(n, n): (n, k) for n, k in _CONFIG_KINDS.items()},
                   problems)  # fmt: skip
    tp = _parsed({k: v for k, v in flat.items() if v != ""},
                 {n: (n, k) for n, k in _PARAM_KINDS.items()}, problems)  # fmt: skip
    config = None
    if data or tp:
        try:
            config = _config(data, tp)
        except LinkProblems as exc:
            problems.extend(exc.problems)
    sample, server, uploaded = None, None, False
    try:
        sample, server, uploaded = _dataset(flat.get("data"), samples)
    except ParameterError as exc:
        problems.append(str(exc))
    if "data" not in flat:
        problems.extend(
            f"{name}={flat[name]!r} in the link names no dataset: add data=, e.g. "
            f"data=incomes.csv&column=income"
            for name in ("column", "id_column") if flat.get(name)
        )  # fmt: skip
    if problems:
        raise LinkProblems(problems)
    iso = None
    if "iso" in flat:
        iso = flat["iso"].strip().lower() not in ("0", "false", "no", "off")
    return SharedSettings(
        config, sample, uploaded, flat.get("column") or None, iso, server,
        flat.get("id_column") or None,
    )  # fmt: skip


def _flat(params: Mapping[str, str | list[str]]) -> dict[str, str]:
    """A query string's values as text, the last one of a repeated key."""
    last = {k: (v[-1] if isinstance(v, list) and v else v) for k, v in params.items()}
    return {k: str(v) for k, v in last.items() if v is not None}


def _problems(exc: ParameterError) -> tuple[str, ...]:
    return exc.problems if isinstance(exc, LinkProblems) else (str(exc),)


def _parsed(
    flat: Mapping[str, str], names: Mapping[str, tuple[str, str]], problems: list[str]
) -> dict[str, Any]:
    """The values of ``flat`` named in ``names`` (query name → (field, kind)), parsed; what
    cannot be parsed is added to ``problems``."""
    out = {}
    for q, (name, kind) in names.items():
        if q in flat:
            try:
                out[name] = _parse(flat[q], kind, q)
            except ParameterError as exc:
                problems.append(str(exc))
    return out


def _config(data: Mapping[str, Any], tp: Mapping[str, Any]) -> ExperimentConfig:
    """The configuration of a link's parsed values (``tp``: the truncation parameters).

    Raises
    ------
    LinkProblems
        Each value that is wrong by itself, with the link's other good values (a θ above the
        default U but below the link's own U is not wrong); when none is, what is wrong in
        their combination.
    """
    values = {("", k): v for k, v in data.items()} | {("tp", k): v for k, v in tp.items()}

    def problem(keys: Sequence[tuple[str, str]]) -> str | None:
        fields_ = {k: values[(s, k)] for s, k in keys if not s}
        params = {k: values[(s, k)] for s, k in keys if s}
        try:
            _checked(ExperimentConfig.from_dict(
                {**fields_, "truncation_params": params} if params else fields_
            ))  # fmt: skip
        except ParameterError as exc:
            return str(exc)
        return None

    try:
        return _selected(_checked(ExperimentConfig.from_dict(
            {**data, "truncation_params": dict(tp)} if tp else dict(data)
        )), data)  # fmt: skip
    except ParameterError as whole:
        good = [key for key in values if problem([key]) is None]
        problems = []
        for key in (k for k in values if k not in good):
            message = problem([*good, key])
            if message is None:
                good.append(key)
            else:
                problems.append(message)
        raise LinkProblems(problems or [str(whole)]) from None


def settings_to_json(
    config: ExperimentConfig,
    *,
    sample: str | None,
    column: str | None = None,
    iso: bool = True,
    server: str | None = None,
    id_column: str | None = None,
) -> str:
    """The config file offered for download: the config plus which sample or server dataset
    it used, its column and privacy identifier (for uploaded data only the fact, never its
    columns)."""
    dataset: dict = {"uploaded": True}
    if _named(sample, server):
        dataset = {"sample": sample} if sample else {"server": server}
        if column:
            dataset["column"] = column
        if id_column:
            dataset["id_column"] = id_column
    doc = {
        "dpsum_version": __version__,
        "config": config.to_dict(),
        "dataset": dataset,
        "isotonic": bool(iso),
        "note": "Uploaded data is never stored in this file; only a sample or server "
        "dataset's name is.",
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
        config = _checked(ExperimentConfig.from_dict(doc["config"]))
        ds: dict = doc["dataset"] if isinstance(doc.get("dataset"), dict) else {}
        column = ds.get("column") if isinstance(ds.get("column"), str) else None
        id_column = ds.get("id_column") if isinstance(ds.get("id_column"), str) else None
        iso = doc.get("isotonic")
        iso = iso if isinstance(iso, bool) else None
        if "server" in ds:
            server = ds["server"] if isinstance(ds["server"], str) else ""
            return SharedSettings(
                config, column=column, iso=iso, server=_server_name(server, "in the file"),
                id_column=id_column,
            )  # fmt: skip
        name = ds.get("sample") or ds.get("name")
        sample = name if name in samples else None
        uploaded = bool(ds.get("uploaded")) or (name is not None and sample is None)
        return SharedSettings(config, sample, uploaded, column, iso, id_column=id_column)
    return SharedSettings(_selected(_checked(ExperimentConfig.from_dict(doc)), doc))


def _selected(config: ExperimentConfig, given: Mapping[str, Any]) -> ExperimentConfig:
    """``config`` with the default selection of algorithms, the ★ of its own public inputs
    among them (:func:`~dpsum_ui.fields.default_algorithms`, as a fresh session), when
    ``given`` (a link's or a bare config file's values) names no algorithms."""
    return config if "algorithms" in given else config.with_(algorithms=default_algorithms(config))


def _checked(config: ExperimentConfig) -> ExperimentConfig:
    """The config, once its workload is known to fit its domain (``every:0`` is refused here,
    rather than clamped to 1 by a widget later)."""
    make_workload(config.workload, config.domain)
    return config


def _named(sample: str | None, server: str | None) -> str | None:
    """The dataset's name in a link: the sample's, ``server:<name>``, or None for an upload."""
    if sample and server:
        raise ValueError("a link names one dataset: a sample or a server dataset, not both")
    return sample or (SERVER_PREFIX + server if server else None)


def _dataset(value: str | None, samples: tuple[str, ...]) -> tuple[str | None, str | None, bool]:
    """(sample, server dataset, uploaded) named by a link's ``data`` value."""
    if value is None or value == "":
        return None, None, False
    if value == UPLOAD_MARKER:
        return None, None, True
    if value.startswith(SERVER_PREFIX):
        return None, _server_name(value[len(SERVER_PREFIX) :], "in the link"), False
    if value not in samples:
        raise ParameterError(
            f"unknown sample dataset {value!r} in the link: choose one of {', '.join(samples)}"
        )
    return value, None, False


def _server_name(name: str, where: str) -> str:
    """A server dataset's name as written; only an empty one is refused here (whether it lies
    inside the data directory is for :func:`dpsum_ui.server_data.resolve` to say)."""
    if not name.strip():
        raise ParameterError(
            f"the server dataset {where} has no name: use {SERVER_PREFIX}<name inside the "
            f"data directory>, e.g. {SERVER_PREFIX}census/2020"
        )
    return name


def _parse(text: str, kind: str, name: str):
    if kind == "list":
        return tuple(p for p in text.split(",") if p.strip())
    if kind == "number":
        return _number(text, name, "in the link")
    return text


def view_to_query(view: ViewParams, values: Mapping[str, Any]) -> dict[str, str]:
    """Query-string parameters of what a page shows: ``view`` is the page's view parameters
    (:attr:`dpsum_ui.page.Page.view`), ``values`` widget key → value, as stored in the
    session: numbers for ``number``, a list of numbers for ``numbers``."""
    out = {}
    for name, (key, kind, _) in view.items():
        value = values.get(key)
        if value is None:
            continue
        if kind == "numbers":
            out[name] = ",".join(number_text(v) for v in value)
        elif kind == "number":
            out[name] = number_text(value)
        elif kind == "flag":
            out[name] = "1" if value else "0"
        else:
            out[name] = str(value)
    return out


def query_to_view(view: ViewParams, params: Mapping[str, str | list[str]]) -> dict[str, object]:
    """Widget values of what a page shows (its view parameters ``view``), from a link (only
    the keys present).

    Raises
    ------
    LinkProblems
        Every value that is not a number or not one of the allowed choices, each named.
    """
    flat = _flat(params)
    out: dict[str, object] = {}
    problems = []
    for name, (key, kind, allowed) in view.items():
        if name in flat:
            try:
                out[key] = _view_value(name, flat[name], kind, allowed)
            except ParameterError as exc:
                problems.append(str(exc))
    if problems:
        raise LinkProblems(problems)
    return out


def _view_value(name: str, text: str, kind: str, allowed: tuple | None) -> object:
    """One view parameter's widget value, from its text in a link."""
    value: object
    bad: list[object]
    if kind == "numbers":
        value = [_number(t, name, "in the link") for t in text.split(",") if t.strip()]
        bad = [v for v in value if allowed is not None and v not in allowed]
    elif kind == "number":
        value, bad = _number(text, name, "in the link"), []
    elif kind == "flag":
        value, bad = text.strip().lower() not in ("0", "false", "no", "off"), []
    else:
        value = text
        bad = [] if allowed is None or text in allowed else [text]
    if bad and allowed is not None:  # only a list of allowed values can refuse one
        choices = ", ".join(number_text(a) if not isinstance(a, str) else a for a in allowed)
        raise ParameterError(f"{name}={text!r} in the link: choose from {choices}")
    return value


def _number(text: str, name: str, where: str) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        raise ParameterError(f"{name}={text!r} {where} is not a number") from None
