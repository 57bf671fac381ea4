"""The current dataset and public domain: samples, uploads (kept in this session only) and
server datasets summarised through DuckDB (only under the configured data directory)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

import pandas as pd
import streamlit as st

from dpsum_core import limits
from dpsum_core.checkpoint import checkpoints
from dpsum_core.data import samples
from dpsum_core.data.cleaning import cleaning_seconds, numeric_columns, unit_of_privacy
from dpsum_core.data.content import Content
from dpsum_core.data.dataset import Dataset, Statistics
from dpsum_core.data.domain import Domain, domain_warnings
from dpsum_core.data.reading import read_table, table_column
from dpsum_core.data.summary import CutPoints, DataSummary
from dpsum_core.errors import DataError, DpsumError, ParameterError
from dpsum_core.publish.ledger import file_fingerprint
from dpsum_core.publish.ledger import source_fingerprint as ledger_source
from dpsum_core.text import escape_name
from dpsum_core.validation import check_positive

from . import keys as K
from . import server_data
from .fields import DEFAULT_SAMPLE
from .memo import mark_public
from .stopping import stop_check
from .store import DataState, UOrigin, data_state, get, live, memo, put, put_data
from .turns import QUEUE
from .uploads import Upload, decoded, read_upload

SAMPLE_DIR = samples.sample_dir()
SAMPLES: dict[str, str] = {
    "incomes.csv": "Synthetic incomes, 45,000 people (paper scale)",
    "incomes_small.csv": "Synthetic incomes, 5,000 people (quick)",
}
SAMPLE_NAMES: tuple[str, ...] = samples.NAMES  # each described in SAMPLES
Role = Literal["planning", "release"]  # which dataset: every page but Release, or Release's
Source = Literal["sample", "upload", "server"]


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
def sample_dataset(name: str, column: str, upper: float, id_column: str | None = None) -> Dataset:
    """A cleaned sample column (public data, shared; the Dataset is immutable), one value per
    person of ``id_column`` if given. Public: results on it are shared by every session."""
    return mark_public(_make(sample_table(name), column, upper, name, id_column))


def _make(
    df: pd.DataFrame, column: str, upper: float, name: str, id_column: str | None = None
) -> Dataset:
    """Clean ``column`` (by person of ``id_column``), priced like a run: a heavy cleaning (a
    large table by person: :func:`~dpsum_core.data.cleaning.cleaning_seconds`) waits for a turn
    on the cores, and this script's stop check is bound at the cleaning's checkpoints, so a
    closed tab or a new click stops it."""
    check = stop_check()
    seconds = cleaning_seconds(len(df), by_person=id_column is not None)
    with QUEUE.turn(seconds, lambda ahead: check()), checkpoints(check):
        # with its content: what binds a ledger (dpsum_core.publish.ledger), hashed as cleaned
        return table_column(df, column, upper=upper, name=name, id_column=id_column, content=True)


def _names(df: pd.DataFrame) -> list[str]:
    """Every column of a table, as text (the candidates for a privacy identifier)."""
    return [str(c) for c in df.columns]


def _read_upload(key: str) -> tuple[Upload | None, str | None]:
    """(the file of the uploader ``key``, listed, or None; why it cannot be used, or None):
    its columns are decoded when chosen (:func:`_upload_dataset`). An empty uploader gives
    (None, None); on failure the caller keeps the current data."""
    file = live(key)
    if file is None:
        return None, None
    name = getattr(file, "name", "upload")
    try:
        # Size limit, format, header, metadata and "no numeric column" are the engine's checks.
        return read_upload(file.getvalue(), name, getattr(file, "file_id", name)), None
    except DpsumError as exc:
        # shown as Markdown: the file's name (in the message too) is escaped, never rendered
        return None, escape_name(f"Could not use {name}: {exc}", "markdown")


def _upload_dataset(
    kind: str, up: Upload, column: str, upper: float, id_column: str | None
) -> Dataset:
    """An upload's column cleaned with U, its columns decoded once per (file, column,
    identifier) in this session (the decoded frame held against the process-wide budget)."""
    return memo(kind, (up.id, column, upper, id_column), lambda: _make(
        memo("decoded", (up.id, column, id_column), lambda: decoded(up, column, id_column)),
        column, upper, up.name, id_column,
    ))  # fmt: skip


# The release file's explicit "one row is one person" (a value no column name is).
ONE_ROW = "\x00one row per person"


def release_file() -> tuple[str, str]:
    """The release file's identity: ("upload", its fingerprint) or ("sample", its name)."""
    up = data_state().release_upload
    if get(K.RELEASE_DATA) == "upload" and up is not None:
        return ("upload", str(up.fingerprint))
    return ("sample", str(get(K.RELEASE_DATA_SAMPLE)))


def on_release_unit() -> None:
    """Callback of the release file's unit of privacy: chosen for this file only."""
    put_data(replace(data_state(), release_unit_for=release_file()))


def release_unit() -> str | None:
    """The unit of privacy chosen for the current release file (:data:`ONE_ROW` or a column),
    ``None`` when none was chosen for this file: another file asks again, never carried over."""
    if data_state().release_unit_for != release_file():
        return None
    return get(K.RELEASE_ID_COLUMN)


def on_release_upload() -> None:
    """Callback of the release dataset's uploader (the planning data is left as it is)."""
    up, error = _read_upload(K.RELEASE_DATA_UPLOAD)
    planning, release = data_state().refused
    kept = replace(data_state(), release_upload_error=error,
                   refused=(planning, release + (error is not None)))  # fmt: skip
    if up is None:
        put_data(kept)
        return
    put_data(replace(kept, release_upload=up))
    put(K.RELEASE_DATA, "upload")
    column = get(K.DATA_COLUMN)
    put(K.RELEASE_DATA_COLUMN, column if column in up.columns else up.columns[0])


def upload_of(ctx: DataContext) -> Upload | None:
    """The uploaded file ``ctx`` reads (None: a sample or a server dataset)."""
    if ctx.source != "upload":
        return None
    kept = data_state()
    return kept.release_upload if ctx.separate and ctx.role == "release" else kept.upload


def upload_error(role: Role) -> str | None:
    """Why the last file given to the planning or the release uploader cannot be used."""
    kept = data_state()
    return kept.release_upload_error if role == "release" else kept.upload_error


def has_release_upload() -> bool:
    """Whether a release file was uploaded successfully in this session."""
    return data_state().release_upload is not None


def release_separate() -> bool:
    """Whether the release dataset is another file than the planning dataset."""
    choice = get(K.RELEASE_DATA)
    return choice == "sample" or (choice == "upload" and has_release_upload())


def on_upload() -> None:
    """Callback of the data uploader: read the file; on failure keep the current data."""
    up, error = _read_upload(K.DATA_UPLOAD)
    planning, release = data_state().refused
    kept = replace(data_state(), upload_error=error,
                   refused=(planning + (error is not None), release))  # fmt: skip
    if up is None:
        put_data(kept)
        return
    put(K.DATA_SOURCE, "upload")
    put(K.DATA_COLUMN, up.columns[0])
    put(K.DATA_ID_COLUMN, None)  # another table: its unit of privacy is chosen again
    # The sample's U rarely suits another column: ask for it (never guess it from the data).
    put_data(replace(kept, upload=up, pending=up.name, pending_from=_current_upper(kept)))


@st.cache_resource(show_spinner=False, max_entries=4)
def _sample_fingerprint(name: str) -> str:
    return file_fingerprint(SAMPLE_DIR / name)


def release_content(ctx: DataContext) -> Content:
    """What binds a ledger to the current dataset, as on the command line: the content of its
    cleaned (identifier, value) rows, hashed when it was cleaned or summarised (private: only
    the ledger keeps it, salted), so a ledger of the same rows in any file or engine binds."""
    content = None if ctx.dataset is None else ctx.dataset.report.content
    assert content is not None  # every dataset of the app is cleaned with its content
    return content


def source_fingerprint(ctx: DataContext) -> str:
    """What bound a ledger of versions 2 and 3 to the current dataset, by the CLI's rule
    (:func:`dpsum_core.publish.ledger.source_fingerprint`): the SHA-256 of an uploaded file's,
    a sample's or a server file's bytes, and for a server folder its files' names, sizes and
    modification times. Checked only to upgrade such a ledger to :func:`release_content`;
    computed once per (files, sizes, modification times) in this session."""
    if (up := upload_of(ctx)) is not None:
        return str(up.fingerprint)
    if ctx.source == "server":
        root, signature = server_data.files_signature(server_data.data_dir(), ctx.server)
        target = server_data.resolve(root, str(ctx.server))
        return memo("server_fingerprint", signature, lambda: _hashed(target, signature))
    return _sample_fingerprint(str(ctx.sample))


def _hashed(target: Path, signature: tuple) -> str:
    """A server dataset's ledger fingerprint; hashing a large file's bytes takes a turn on the
    cores (priced by its size) and stops when the tab is closed."""
    check = stop_check()
    seconds = sum(size for *_, size in signature) / limits.HASH_BYTES_PER_SECOND
    with QUEUE.turn(seconds, lambda ahead: check()), checkpoints(check):
        return ledger_source(target)


def domain_pending() -> str | None:
    """The uploaded file or server dataset whose public U is still to be set (None once it is
    set or kept)."""
    if current_source() == "sample":
        return None
    return data_state().pending


def _current_upper(kept: DataState) -> tuple[UOrigin | None, str | None]:
    """Where the current U came from, remembered when a new dataset asks for U."""
    return (kept.u_origin, kept.u_set_for)


def domain_confirmed() -> None:
    """Callback of the U input and of "keep U": the user has chosen U for the upload."""
    put_data(replace(data_state(), pending=None))


def has_upload() -> bool:
    """Whether a file was uploaded successfully in this session."""
    return data_state().upload is not None


def current_source() -> Source:
    """The source in use: "upload" once a file is uploaded, "server" only while the data
    directory is configured, else "sample"."""
    choice = get(K.DATA_SOURCE)
    if (choice == "upload" and has_upload()) or (
        choice == "server" and server_data.data_dir() is not None
    ):
        return choice
    return "sample"


# --------------------------------------------------------------------------------------------
# Server datasets (issue 11): summarised through DuckDB, the summary kept in this session only
# --------------------------------------------------------------------------------------------
def on_server() -> None:
    """Callback of the server dataset choice: like an upload, ask for U (never guess it)."""
    kept = data_state()
    if kept.pending is None:
        kept = replace(kept, pending_from=_current_upper(kept))
    put(K.DATA_SOURCE, "server")
    put(K.DATA_ID_COLUMN, None)  # another table: its unit of privacy is chosen again
    put_data(replace(kept, pending=server_name() or "the server dataset"))


def on_source() -> None:
    """Callback of the data source choice: choosing the server asks for U, as an upload does."""
    if live(K.DATA_SOURCE) == "server":
        on_server()


def server_name() -> str | None:
    """The chosen server dataset: a typed relative path, else the listed choice."""
    typed = str(get(K.DATA_SERVER_PATH) or "").strip()
    return typed or get(K.DATA_SERVER)


def select_server(name: str, column: str | None, id_column: str | None = None) -> None:
    """Select the server dataset ``name`` and its ``column``, as a link or a settings file
    asks. U is the link's own (public: its author chose it), so it is not asked for again;
    it is never derived from the data. Call from a callback or before any widget is drawn.

    Raises
    ------
    DataError
        No data directory is configured, or ``name`` is refused by
        :func:`dpsum_ui.server_data.dataset_files` (absolute, ``..``, leading outside, missing);
        then nothing was selected, read or listed.

    Privacy
    -------
    Only names are checked here; the data is read later by :func:`data_context`, and only from
    the files :func:`dpsum_ui.server_data.dataset_files` accepts.
    """
    root = server_data.data_dir()
    if root is None:
        raise DataError(
            "this app has no server data directory (the server was started without "
            "DPSUM_DATA_DIR), so it cannot open server datasets"
        )
    server_data.dataset_files(root, name)  # every check, before anything is selected
    listed = name in server_data.list_datasets(root)
    put(K.DATA_SOURCE, "server")
    if listed:
        put(K.DATA_SERVER, name)
    put(K.DATA_SERVER_PATH, "" if listed else name)
    put(K.DATA_COLUMN, column)
    put(K.DATA_ID_COLUMN, id_column)
    put_data(replace(data_state(), pending=None))


def _duckdb(
    root: Path, name: str, *, upper: float, column: str | None, id_column: str | None = None
):
    """A DuckDB backend over exactly the files of ``name`` that pass the server data rules,
    checked again here, just before DuckDB reads them: DuckDB is given this list of real paths,
    never the folder (a file or link added since an earlier check is checked, or not read)."""
    from dpsum_core.data.backends.duckdb import DuckDBBackend

    files = server_data.dataset_files(root, name)
    return DuckDBBackend(files, upper=upper, column=column, name=name, id_column=id_column)


@dataclass(frozen=True)
class DataContext:
    """The current data and domain, or the message that says why they are not available."""

    dataset: Statistics | None  # a DataSummary for a server dataset
    domain: Domain | None
    columns: list[str]
    column: str | None
    source: Source
    sample: str | None
    label: str
    data_error: str | None = None
    domain_error: str | None = None
    domain_note: str | None = None
    server: str | None = None  # the server dataset's name (relative to the data directory)
    role: Role = "planning"
    separate: bool = False  # the release dataset is another file than the planning dataset
    id_column: str | None = None  # the privacy identifier (None: one row per person)
    all_columns: tuple[str, ...] = ()  # every column: the choices of a privacy identifier
    unit_chosen: bool = True  # False: a separate release file whose unit is not chosen yet

    @property
    def unit_of_privacy(self) -> str:
        """The unit the guarantee protects, in plain words."""
        return unit_of_privacy(self.id_column)

    @property
    def ok(self) -> bool:
        """Data and domain are both usable."""
        return self.dataset is not None and self.domain is not None

    @property
    def error(self) -> str | None:
        """The first problem, if any."""
        return self.data_error or self.domain_error


def data_context(role: Role = "planning") -> DataContext:
    """Resolve the current dataset (cleaned with the current U) and the public domain.

    ``role``: ``"planning"`` (Explorer, Compare, Single query, Decide, the Data page's
    histogram) or ``"release"`` (the Release page alone). Both share the public domain; the
    release dataset is the planning dataset unless the Data page names another file.
    """
    if role == "release":
        if release_separate():
            return _release_context()
        return replace(_planning_context(), role="release")
    ctx = _planning_context()
    return replace(ctx, separate=True) if release_separate() else ctx


def _release_context() -> DataContext:
    """The release dataset when it is another file (a sample or an upload) than the planning
    dataset: cleaned with the same public U, binned on the same public domain."""
    source: Source
    up = data_state().release_upload
    if get(K.RELEASE_DATA) == "upload" and up is not None:  # (release_separate: it is there)
        source, sample, columns, label = "upload", None, up.columns, up.name
        names = up.names
    else:
        sample = get(K.RELEASE_DATA_SAMPLE)
        if sample not in SAMPLES:
            sample = DEFAULT_SAMPLE
        source, columns, label, up = "sample", sample_columns(sample), sample, None
        names = _names(sample_table(sample))
    # The release file's own unit of privacy, chosen for it (None: not chosen yet): the
    # planning file's choice is never carried over.
    unit = release_unit()
    unit_chosen = unit == ONE_ROW or unit in names
    id_column = unit if unit_chosen and unit != ONE_ROW else None
    column = get(K.RELEASE_DATA_COLUMN)
    if column not in columns:
        planning = get(K.DATA_COLUMN)
        column = planning if planning in columns else (columns[0] if columns else None)
    try:
        upper = check_positive(_upper(), "upper bound U", upper=limits.MAX_UPPER)
    except DpsumError as exc:
        error = f"The upper bound U is not valid: {exc}"
        return DataContext(None, None, list(columns), column, source, sample, label, None,
                           error, role="release", separate=True, id_column=id_column,
                           all_columns=tuple(names), unit_chosen=unit_chosen)  # fmt: skip
    domain: Domain | None = None
    domain_error: str | None = None
    note: str | None = None
    data_error: str | None = None
    dataset: Dataset | None = None
    try:
        domain, note = domain_from_settings()
    except DpsumError as exc:
        domain_error = f"The domain is not valid: {exc}"
    try:
        if up is None:
            dataset = sample_dataset(str(sample), str(column), upper, id_column)
        else:
            dataset = _upload_dataset("release_dataset", up, str(column), upper, id_column)
    except DpsumError as exc:
        data_error = f"The release data cannot be used: {exc}"
    return DataContext(dataset, domain, list(columns), column, source, sample, label,
                       data_error, domain_error, note, role="release",
                       separate=True, id_column=id_column,
                       all_columns=tuple(names), unit_chosen=unit_chosen)  # fmt: skip


def _planning_context() -> DataContext:
    root = server_data.data_dir()
    source = current_source()
    upload = data_state().upload if source == "upload" else None  # (current_source: it is there)
    server: tuple[Path, tuple] | None = None
    data_error: str | None = None
    name: str | None = None
    sample: str | None
    if source == "server":
        name = server_name()
        label, sample = name or "server dataset", None
        try:
            server = server_data.files_signature(root, name)
            columns, names = memo(
                "server_columns", (name, server[1]),
                lambda: _server_columns(_duckdb(server[0], label, upper=1.0, column=None)),
            )  # fmt: skip
        except DpsumError as exc:
            columns, names = [], []
            data_error = f"The server dataset cannot be used: {exc}"
    elif upload is not None:
        sample, columns, label = None, upload.columns, upload.name
        names = upload.names
    else:
        sample = get(K.DATA_SAMPLE)
        if sample not in SAMPLES:
            sample = DEFAULT_SAMPLE
        columns = sample_columns(sample)
        label = sample
        names = _names(sample_table(sample))
    column = get(K.DATA_COLUMN)
    if column not in columns:
        column = columns[0] if columns else None
    id_column = get(K.DATA_ID_COLUMN)
    domain: Domain | None = None
    domain_error: str | None = None
    note: str | None = None
    dataset: Statistics | None = None
    try:
        upper = check_positive(_upper(), "upper bound U", upper=limits.MAX_UPPER)
    except DpsumError as exc:
        # One cause, one message: a bad U makes both the domain and the cleaning impossible.
        error = f"The upper bound U is not valid: {exc}"
        return DataContext(
            None, None, list(columns), column, source, sample, label, None, error, None, name,
            id_column=id_column, all_columns=tuple(names),
        )  # fmt: skip
    try:
        domain, note = domain_from_settings()
    except DpsumError as exc:
        domain_error = f"The domain is not valid: {exc}"
    try:
        if sample is not None:  # the source is a sample
            dataset = sample_dataset(sample, column, upper, id_column)
        elif upload is not None:
            dataset = _upload_dataset("dataset", upload, column, upper, id_column)
        elif server is not None and domain is not None:
            dataset = _server_summary(server, label, column, upper, domain, id_column)
    except DpsumError as exc:
        data_error = (
            f"The upper bound U is not valid: {exc}"
            if isinstance(exc, ParameterError)
            else f"The data cannot be used: {exc}"
        )
    if domain_pending() is None and (kept := data_state()).u_set_for != label:
        put_data(replace(kept, u_set_for=label))
    return DataContext(
        dataset, domain, list(columns), column, source, sample, label, data_error,
        domain_error, note, name, id_column=id_column, all_columns=tuple(names),
    )  # fmt: skip


def _server_columns(backend) -> tuple[list[str], list[str]]:
    """(numeric columns, every column) of a server dataset."""
    return backend.numeric_columns, list(backend.columns())


def _server_summary(
    server: tuple[Path, tuple],
    name: str,
    column: str,
    upper: float,
    domain: Domain,
    id_column: str | None = None,
) -> DataSummary:
    """The summary at the domain's bin edges, computed once per (files, column, U, edges) in
    this session (private data: never a process-wide cache). Other cut points (SVT grid, θ)
    come by second passes (:func:`with_passes`)."""
    path, signature = server
    key = (signature, column, id_column, upper, domain.upper, domain.bins)

    def build() -> server_data.ServerEntry:
        with st.spinner(f"Summarising {name} through DuckDB…"):
            backend = _duckdb(path, name, upper=upper, column=column, id_column=id_column)
            # offered to every user of this server: results on it are shared (dpsum_ui.memo)
            summary = mark_public(backend.summarize(CutPoints(domain), content=True))
            return server_data.ServerEntry(backend, summary, server, name)

    return memo("server", key, build).summary


def _upper() -> float:
    value = get(K.DOMAIN_UPPER)
    if value is None:
        raise ParameterError("upper bound U is empty: enter a public upper bound, e.g. 800000")
    return float(value)


def domain_fit_warnings(ctx: DataContext) -> list[str]:
    """The engine's domain-fit warnings for the current data (for this user's eyes only)."""
    data, domain = ctx.dataset, ctx.domain
    if data is None or domain is None:
        return []
    key = (data.fingerprint, str(domain))
    return memo("fit", key, lambda: domain_warnings(data, domain))


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
