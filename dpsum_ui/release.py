"""The Release page's logic: the plan from the explorer's settings, the session's ledger, one
release per confirmation, and what may be downloaded.

Everything per user lives in the page's typed state (:class:`dpsum_ui.page_state.ReleaseState`):
the ledger (downloadable, and re-uploadable to continue spending against the same total), the
last release and the last callback's message. The release itself is
:func:`dpsum_core.publish.release.release_plan`, drawn with OpenDP's samplers.
"""

from __future__ import annotations

import json
from dataclasses import replace

from dpsum_core.data.dataset import Statistics
from dpsum_core.errors import DpsumError, ParameterError
from dpsum_core.mechanisms import greedy_h as strategies
from dpsum_core.mechanisms.algorithm import RUNS_ONCE
from dpsum_core.mechanisms.registry import ALGORITHMS, get
from dpsum_core.mechanisms.registry import label as algorithm_label
from dpsum_core.mechanisms.registry import truncation_label as registry_truncation_label
from dpsum_core.mechanisms.workloads import make_workload
from dpsum_core.publish import ledger as ledgers
from dpsum_core.publish import report as releases
from dpsum_core.publish.bands import band_queries, parse_bands
from dpsum_core.publish.command import data_argument
from dpsum_core.publish.release import (
    ESTIMATE_POINTS,
    ESTIMATE_TRIALS,
    Release,
    ReleaseEstimate,
    ReleasePlan,
    decimal_text,
    expected_error,
    plan_release,
    release_plan,
)
from dpsum_core.simulate.cost import estimate_cost
from dpsum_core.simulate.results import configuration_name
from dpsum_core.text import counted, escape_name, noun
from dpsum_core.truncation.registry import TRUNCATION_METHODS

from . import compute, identifiers, oversize, state, store
from . import keys as K
from .datasets import release_content, source_fingerprint
from .names import shown_name
from .page_state import Carried, ReleaseState, load, take, update
from .passes import release_input, with_passes
from .uploads import uploader_size


def algorithm_options(ctx: state.DataContext) -> list[str]:
    """Every algorithm dpsum offers: the recommended one first (from public inputs only), then
    the explorer's chosen ones, then the others."""
    rec = state.recommended(ctx)
    first = [rec.algorithm] if rec is not None else []
    chosen = [a for a in (state.get(K.ALGORITHMS) or []) if a in ALGORITHMS and a not in first]
    return first + chosen + [a for a in ALGORITHMS if a not in first + chosen]


def explorer_algorithm() -> str | None:
    """The explorer's algorithm when exactly one is chosen there; None when it has several
    (or none)."""
    chosen = [a for a in (state.get(K.ALGORITHMS) or []) if a in ALGORITHMS]
    return chosen[0] if len(chosen) == 1 else None


def default_algorithm(ctx: state.DataContext) -> str:
    """The algorithm the page starts on: the explorer's when exactly one is chosen there (what
    the user ran), otherwise the one recommended from public inputs only."""
    one = explorer_algorithm()
    if one is not None:
        return one
    rec = state.recommended(ctx)
    return rec.algorithm if rec is not None else algorithm_options(ctx)[0]


def origin_words(ctx: state.DataContext, algorithm: str, truncation: str) -> str:
    """Which of the plan's settings come from the explorer's settings, and where the algorithm
    comes from: the explorer's one algorithm, the recommended one, or the one chosen on this
    page. Never says the algorithm came from the explorer when the explorer had several."""
    carried = "The workload and ε"
    if truncation not in RUNS_ONCE and truncation == state.get(K.TRUNCATION):
        carried = "The workload, ε and truncation"
    name = f"**{algorithm_label(algorithm)}**"
    rec = state.recommended(ctx)
    chosen = [a for a in (state.get(K.ALGORITHMS) or []) if a in ALGORITHMS]
    if algorithm == explorer_algorithm():
        where = f"the algorithm, {name}, is the one algorithm chosen on the explorer"
    elif rec is not None and algorithm == rec.algorithm:
        other = (
            f"not {algorithm_label(chosen[0])}, the one algorithm chosen on the explorer"
            if len(chosen) == 1
            else f"not taken from the explorer, which compared {counted(len(chosen), 'algorithm')}"
        )
        where = f"the algorithm, {name}, is the recommended one (from public inputs only), {other}"
    else:
        where = f"the algorithm, {name}, is the one chosen above"
    return f"{carried} come from the explorer's settings; {where}."


def truncation_options(algorithm: str) -> list[str]:
    """Its own θ rule alone for an algorithm that chooses θ itself (``posthoc`` for RawSum,
    ``inside`` for ClampShells); the four methods, the explorer's first, otherwise."""
    alg = get(algorithm)
    if alg.runs_once:
        return [alg.theta_rule]
    current = state.get(K.TRUNCATION)
    return [current] + [t for t in TRUNCATION_METHODS if t != current]


def truncation_label(name: str) -> str:
    """A truncation method's label on the page, the registry's as on every page and in the
    command line (never its internal id: ``svt`` → "SVT", ``posthoc`` → "θ after measuring")."""
    return registry_truncation_label(name)


# The page's choices and the fields of ReleaseState that keep them across other pages.
_KEPT = {K.RELEASE_ALGORITHM: "algorithm", K.RELEASE_TRUNCATION: "truncation",
         K.RELEASE_ISO: "isotonic", K.RELEASE_PUBLIC_CAP: "public_cap",
         K.RELEASE_BANDS: "bands"}  # fmt: skip


def keep(*keys: str) -> None:
    """Keep what the widgets ``keys`` hold now in the page's state, so that it is still there
    when the user comes back from another page (Streamlit drops it): after they are drawn, so
    a value set from the explorer is kept as well as one chosen here."""
    update(ReleaseState, **{_KEPT[key]: store.live(key) for key in keys})


def restore(key: str) -> None:
    """Give the widget ``key`` the choice kept for it, unless it holds one (back from another
    page); call before it is drawn."""
    kept = getattr(load(ReleaseState), _KEPT[key])
    if kept is not None:
        store.seed_live(key, kept)


def take_carried(algorithms: list[str]) -> None:
    """Once after Decide's "Use ε = … on the Release page" button: start on the configuration
    that met the target there (the ε is already the explorer's); then the choice is the
    user's. Call after the algorithm's default is offered, before the widgets are drawn."""
    carried = load(ReleaseState).carried
    if take(ReleaseState, "carried_new") and carried and carried.algorithm in algorithms:
        store.set_live(K.RELEASE_ALGORITHM, carried.algorithm)
        store.set_live(K.RELEASE_TRUNCATION, carried.truncation)


def _carried(plan: ReleasePlan) -> Carried | None:
    """What Decide handed on, when this plan's ε is its ε (None otherwise)."""
    carried = load(ReleaseState).carried
    return carried if carried is not None and carried.epsilon == plan.epsilon else None


def chosen_from_data(ctx: state.DataContext, plan: ReleasePlan) -> bool:
    """Whether this plan's ε is the one Decide read from the true answers of the data
    released (Decide plans on the planning data: the same file unless the Data page names
    another release file).

    Privacy
    -------
    Such a choice depends on the data and is not covered by the guarantee: the release's
    files say so (:attr:`~dpsum_core.publish.release.Release.epsilon_chosen_from_data`)."""
    return _carried(plan) is not None and not ctx.separate


def carried_words(plan: ReleasePlan) -> str | None:
    """Where this ε comes from when it is the one Decide handed on (None otherwise): the
    configuration and target it was found for, and that it was read from the true answers."""
    carried = _carried(plan)
    if carried is None:
        return None
    name = configuration_name(carried.algorithm, carried.truncation)
    same = (carried.algorithm, carried.truncation) == (plan.algorithm, plan.truncation)
    return (
        f"ε = {decimal_text(plan.epsilon)} is the one Decide gave: the smallest ε at which "
        f"{name} met the target ({carried.target}), rounded up to two digits"
        + ("" if same else f"; it was found for {name}, not for the algorithm chosen here")
        + ". It was read from curves computed from the true answers: the choice of ε depends "
        "on the data and is not covered by the privacy guarantee."
    )


def show_plan(plan: ReleasePlan | None) -> None:
    """Keep the plan the page shows (``None``: none yet this run), for the sidebar."""
    update(ReleaseState, plan=plan)


def make_plan(
    ctx: state.DataContext, algorithm: str, truncation: str, iso: bool,
    public_cap: float | None = None,
) -> ReleasePlan:
    """The plan of a release from the explorer's current settings and, for ClampShells, an
    optional public cap (raises DpsumError)."""
    if ctx.domain is None:
        raise DpsumError(ctx.domain_error or "the domain is not set")
    trunc = None if truncation in RUNS_ONCE else truncation
    base = state.build_config(ctx.domain, truncations=(trunc or "none",))
    return plan_release(
        base, algorithm=algorithm, truncation=trunc, isotonic=iso, public_cap=public_cap
    )


Bands = tuple[tuple[float, float], ...]


def bands(plan: ReleasePlan) -> Bands:
    """The "Totals by band" field as (low, high) pairs (none when empty), each edge checked
    against the plan's public thresholds, as ``dpsum release --bands`` does before anything is
    read or spent. Raises ParameterError (the CLI's message, without its ``--bands:``)."""
    text = (store.live(K.RELEASE_BANDS) or "").strip()
    if not text:
        return ()
    try:
        pairs = parse_bands(text)
        thresholds = make_workload(plan.config.workload, plan.config.domain).thresholds
        for low, high in pairs:
            band_queries(thresholds, low, high)
    except ParameterError as exc:
        raise ParameterError(str(exc).removeprefix("--bands: ")) from None
    return tuple(pairs)


def estimate(data: Statistics, plan: ReleasePlan) -> ReleaseEstimate | None:
    """The expected error of ``plan`` on the current data (memoised per session); for a server
    dataset with second passes over its files when the summary lacks statistics it needs.
    Priced first (:func:`compute.analytic`): None while an estimate above a link's budget
    waits for its button.

    Raises DpsumError when it cannot be computed (e.g. more data-dependent points than one
    extra pass may fetch; :class:`~dpsum_core.simulate.cost.TooHeavy` above one click's
    budget).

    Privacy
    -------
    Computed from the private data; shown to the custodian before confirming, never released.
    """
    key = (data.fingerprint, json.dumps(plan.record(), sort_keys=True))
    cost = estimate_cost(
        plan.config, plan.algorithm, trials=ESTIMATE_TRIALS, points=ESTIMATE_POINTS
    )
    return compute.analytic(
        "release_estimate", key, cost, "the expected error", K.RELEASE_ESTIMATE,
        lambda: with_passes(data, lambda d: expected_error(d, plan)),
    )  # fmt: skip


def ledger() -> ledgers.Ledger:
    """This session's ledger (empty until a release or an upload)."""
    return load(ReleaseState).ledger or ledgers.Ledger()


RAISE_BOX = "Raise this ledger's total"  # the start of the tick box's label


def sentence(exc: Exception) -> str:
    """An engine message as a sentence: capitalised, ending in one mark ("… a dpsum
    ledger?", never "… ledger?.")."""
    text = str(exc)
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "?", "!")) else f"{text}."


def lacking_words(lacking: tuple[dict, ...]) -> str:
    """Why an uploaded ledger is refused: the releases of this session's ledger it lacks (time,
    ε, algorithm) and what to do."""
    listed = "; ".join(
        f"{r.get('created')} (ε = {decimal_text(r['epsilon'])}, "
        f"{algorithm_label(str(r.get('algorithm')))})"
        for r in lacking
    )
    them = "it" if len(lacking) == 1 else "them"
    return (
        f"This ledger was not loaded: it lacks {counted(len(lacking), 'release')} that this "
        f"session's ledger records: {listed}. Loading it would drop "
        f"{'a release' if len(lacking) == 1 else 'releases'} already charged, and "
        f"under-count the ε spent. Upload the ledger that includes {them} (the one this page "
        "lets you download, which `dpsum release --ledger` can extend), or download this "
        "session's ledger first and continue from it."
    )


def ledger_box_size() -> int | None:
    """The ledger uploader's ``max_upload_size``: changed by each refused ledger (above the
    limit, or not loaded), which resets the box (:func:`dpsum_ui.uploads.uploader_size`)."""
    return uploader_size(load(ReleaseState).ledger_refused)


def on_ledger_too_big() -> None:
    """The browser refused a ledger above the upload limit (:mod:`dpsum_ui.oversize`): said
    on top of the page as a refused ledger is, the ledger in use kept and the box reset."""
    error = oversize.file_message(oversize.limit_mb(load(ReleaseState).ledger_refused), "ledger")
    _refuse_ledger(error)


def _refuse_ledger(error: str) -> None:
    """Say why a ledger was not loaded (on top of the page), keep the ledger in use, and reset
    the uploader (:func:`ledger_box_size`): the refused file is not listed as if loaded."""
    refused = load(ReleaseState).ledger_refused
    update(ReleaseState, done=None, message=("error", error), ledger_refused=refused + 1)


def on_ledger_upload(ctx: state.DataContext) -> None:
    """Callback of the ledger uploader: continue from an earlier session's ledger. A ledger of
    another dataset or another unit of privacy is not loaded (an error says why, never a
    "Ledger loaded" above its refusal), nor one that lacks a release this session's ledger
    records (:func:`~dpsum_core.publish.ledger.missing_releases`: replacing the ledger would
    under-count the ε spent); one that holds them all replaces it, said so.

    Privacy
    -------
    A session ledger that holds releases is never silently replaced: each of its charges is
    kept, in this session or in the uploaded file.
    """
    file = store.live(K.RELEASE_LEDGER_UPLOAD)
    if file is None:
        return
    try:
        book = ledgers.Ledger.from_json(file.getvalue(), name=f"the file {file.name}")
    except DpsumError as exc:
        _refuse_ledger(f"{sentence(exc)} Upload the ledger this page gave you.")
        return
    if ctx.dataset is not None:
        try:
            book.bound_to(release_content(ctx), ctx.dataset.name, ctx.id_column,
                          legacy=lambda: source_fingerprint(ctx),
                          column=ctx.dataset.column)  # fmt: skip
        except DpsumError as exc:
            reason = str(exc).removeprefix("release refused: ").removesuffix("; nothing was drawn")
            _refuse_ledger(f"This ledger was not loaded: {reason}. Upload the ledger of this "
                           "dataset, or start a new one by setting a total below.")  # fmt: skip
            return
    session = ledger()
    if lacking := ledgers.missing_releases(session, book):
        _refuse_ledger(lacking_words(lacking))
        return
    store.set_live(K.RELEASE_RAISE, False)
    total = ""
    if book.total is not None:
        # the total this session's ledger had, else the one typed: the field changes, say it
        was = session.total if session.total is not None else store.live(K.RELEASE_TOTAL)
        total = f", total {decimal_text(book.total)} from the ledger"
        if was is not None and was != book.total:
            total += f" (was {decimal_text(was)})"
        store.set_live(K.RELEASE_TOTAL, book.total)
    kept = (
        f" (the {counted(len(session.releases), 'release')} of this session's ledger among them)"
        if session.releases else ""
    )  # fmt: skip
    update(ReleaseState, ledger=book, done=None, message=(
        "success",
        f"Ledger loaded: {counted(len(book.releases), 'release')}{kept}, ε spent "
        f"{decimal_text(book.spent)}{total}.",
    ))  # fmt: skip


def settled(ctx: state.DataContext, data: Statistics) -> ledgers.Ledger:
    """This session's ledger bound to the current dataset (``data``, of ``ctx``), with the
    total typed on the page (raised only when the "raise the total" box is ticked). Raises
    DpsumError otherwise, in the page's words (the tick box, never the command line's
    ``--raise-budget``)."""
    book = ledger().bound_to(release_content(ctx), data.name, ctx.id_column,
                             legacy=lambda: source_fingerprint(ctx),
                             column=data.column)  # fmt: skip
    total = store.live(K.RELEASE_TOTAL)
    raising = bool(store.live(K.RELEASE_RAISE))
    if book.total is not None and total is not None and total != book.total:
        kept = decimal_text(book.total)
        if total < book.total:
            raise ParameterError(
                f"release refused: this ledger's total is ε = {kept} and a total is only ever "
                f"raised, never lowered: set the total back to {kept} or above"
            )
        if not raising:
            raise ParameterError(
                f"release refused: this ledger's total is ε = {kept}; the total above "
                f"({decimal_text(total)}) would change it. Tick \"{RAISE_BOX} …\" above to "
                f"raise it on purpose (recorded in the ledger), or set the total back to {kept}"
            )
    return book.with_total(total, raise_total=raising)


# Said next to the greyed confirm box and Release button when the band field is wrong (its
# error is up in section 1: review 11 P2-2).
BAND_BLOCKS = "Release is off until the Totals by band field is corrected (above)."


def missing(ctx: state.DataContext) -> list[str]:
    """What is still missing before a release can be made (empty: nothing)."""
    out = []
    if pending := state.domain_pending():
        out.append(
            f"The public upper bound {state.u_still()}: set U for "
            f"{shown_name(pending)} on the "
            "Data page (U must be public: chosen without looking at the data)."
        )
    if store.live(K.RELEASE_TOTAL) is None:
        out.append("No total ε for this dataset: set it in section 2.")
    if unit := unit_unsettled(ctx):
        out.append(unit)
    elif not store.live(K.RELEASE_UNIT_CONFIRM):
        other = (  # an identifier already chosen: nothing to choose on the Data page
            "" if ctx.id_column is not None
            else ", or choose the column that identifies a person on the Data page"
        )
        out.append(
            f"The unit of privacy is not confirmed ({ctx.unit_of_privacy}): tick its box in "
            f"section 3 of the Release page{other}."
        )
    return out


def id_suspects(ctx: state.DataContext) -> tuple[str, ...]:
    """Columns that look like a person's identifier in a file read as one row per person by
    default (the planning file, released as it is); an explicitly chosen unit has none."""
    return () if ctx.separate else identifiers.suspects(ctx)


def unit_unsettled(ctx: state.DataContext) -> str | None:
    """Why the release file's unit of privacy cannot be confirmed yet (None: it can)."""
    if not ctx.unit_chosen:
        return (
            "The release file's unit of privacy is not chosen: on the Data page, choose whether "
            "one row is one person or which column identifies a person (the planning file's "
            "choice is not carried over to another file)."
        )
    if (found := id_suspects(ctx)) and not identifiers.one_row_sure(ctx):
        names = ", ".join(escape_name(c, "markdown") for c in found)
        return (
            f"{noun(len(found), 'Column')} {names} "
            f"{'repeats' if len(found) == 1 else 'repeat'} values that look like codes of people: "
            "choose the one that identifies a person on the Data page, or tick, in section 3, "
            "that one row is one person in this file."
        )
    return None


def on_release(
    ctx: state.DataContext, data: Statistics, plan: ReleasePlan, wanted: Bands = ()
) -> None:
    """Callback of the Release button: check everything, draw once, charge, publish.

    Privacy
    -------
    Every check that can refuse (dataset binding, total, budget) comes before the charge; the
    release is drawn in memory and shown only after its charge is in the session's ledger, so
    a charged release is always published and nothing unpublished is ever shown. The
    confirmation is cleared: another release needs another confirmation. The ``wanted`` bands
    (checked on the page before the button is enabled) are post-processing: no ε. On a server dataset,
    statistics its summary lacks are fetched by second passes over the files before the draws
    that use them, and no quantity is drawn twice (:func:`~dpsum_core.publish.release.release_plan`).
    """
    store.set_live(K.RELEASE_CONFIRM, False)
    try:
        book = settled(ctx, data)
        book.check(plan.epsilon)
        latest, extend = release_input(data)  # a server summary's second passes
        with strategies.session_cache(state.strategy_cache()):
            rel = release_plan(latest, plan, extend=extend)
        rel = replace(rel, epsilon_chosen_from_data=chosen_from_data(ctx, plan))  # said in its files
    except DpsumError as exc:
        update(ReleaseState, done=None,
               message=("error", f"{str(exc)[0].upper()}{str(exc)[1:]}."))  # fmt: skip
        return
    book = book.with_release(plan.ledger_entry(data))
    store.set_live(K.RELEASE_RAISE, False)
    update(ReleaseState, ledger=book, last=rel, last_data=(data.name, ctx.source),
           last_bands=wanted, done=released_message(decimal_text(plan.epsilon), book))  # fmt: skip


def released_message(epsilon: str, book: ledgers.Ledger) -> str:
    """ "Released: ε = … spent, … of … left." """
    left = book.remaining()
    tail = (
        ""
        if left is None or book.total is None
        else f", {decimal_text(left)} of {decimal_text(book.total)} left"
    )
    return f"Released: ε = {epsilon} spent{tail}."


def last() -> Release | None:
    """The session's last release."""
    return load(ReleaseState).last


def last_bands() -> Bands:
    """The bands asked for with the last release (its report and release.json list them)."""
    return load(ReleaseState).last_bands


def last_data() -> tuple[str, str]:
    """The last release's dataset name and source (``sample``, ``upload``, ``server``)."""
    return load(ReleaseState).last_data or ("", "")


def release_of(rel: Release) -> str:
    """What a release was made on, in words (Markdown): its dataset, its column and its unit of
    privacy (public: names the user chose)."""
    name, _ = last_data()
    column = f", column **{escape_name(rel.column, 'markdown')}**" if rel.column else ""
    return (
        f"Made on **{shown_name(name)}**{column} · unit of privacy: "
        f"{escape_name(rel.unit_of_privacy, 'markdown')}"
    )


def made_elsewhere(rel: Release, data: Statistics, ctx: state.DataContext) -> str | None:
    """Said above a release made on other data than the release data selected now: what
    differs (its file, column or unit of privacy), and that the budget is kept per content;
    None when it is the data selected now."""
    name, _ = last_data()
    differs = [what for what, same in (
        ("file", name == data.name), ("column", rel.column == data.column),
        ("unit of privacy", rel.id_column == ctx.id_column)) if not same]  # fmt: skip
    if not differs:
        return None
    col = f"column {escape_name(repr(rel.column), 'markdown')} of " if rel.column else ""
    now = f"column {escape_name(repr(data.column), 'markdown')} of " if data.column else ""
    by_unit = differs[-1] == "unit of privacy"
    unit = f", {escape_name(rel.unit_of_privacy, 'markdown')}" if by_unit else ""
    return (
        f"**This earlier release is of {col}{shown_name(name)}{unit}**, not of the "
        f"data selected now ({now}{shown_name(data.name)}, "
        f"{escape_name(ctx.unit_of_privacy, 'markdown')}): the {' and '.join(differs)} "
        f"{'differs' if len(differs) == 1 else 'differ'}. Its answers and downloads are that "
        "release's. The ledger counts ε per content of the cleaned (identifier, value) rows "
        f"(PRIVACY.md): another {' or '.join(differs)} is another dataset with its own ledger, "
        "even about the same people, so count the ε spent on both yourself"
        + ("; keep one unit of privacy per dataset." if by_unit else ".")
    )


def messages() -> list[tuple[str, str]]:
    """What the page says on top: the last callback's message (once) and the last release's
    success line (on every rerun, a download's included, until replaced)."""
    once = take(ReleaseState, "message")
    done = load(ReleaseState).done
    return [m for m in (once, None if done is None else ("success", done)) if m is not None]


def answers_csv(rel: Release) -> bytes:
    """answers.csv, as the command line writes it."""
    return releases.answers_csv(rel).encode()


def bands_csv(rel: Release) -> bytes | None:
    """bands.csv of the last release's totals by band, as the command line writes it with
    ``--bands`` (None without bands)."""
    bands = list(last_bands())
    return releases.bands_csv(rel, bands).encode() if bands else None


def engine(source: str) -> str:
    """The engine that computed a release's data summary: DuckDB for a server dataset (read
    out of core), memory for a sample or an upload."""
    return "duckdb" if source == "server" else "memory"


def record_json(rel: Release, source: str) -> bytes:
    """release.json, as the command line writes it (with ``--bands``: the last release's)."""
    return releases.record_json(rel, engine=engine(source), bands=list(last_bands())).encode()


def report_markdown(rel: Release, dataset: str, source: str) -> str:
    """report.md, as the command line writes it (the ledger line from this session's ledger,
    with its last raise of the total, if any; its command's ``--data`` named by
    :func:`~dpsum_core.publish.command.data_argument`, an upload's with a note)."""
    book = ledger()
    line = f"this session's ledger: ε spent {decimal_text(book.spent)}" + (
        "" if book.total is None else f" of {decimal_text(book.total)}"
    )
    if book.total_changes:
        last = book.total_changes[-1]
        line += (
            f" (total raised from {decimal_text(last['old_total'])} to "
            f"{decimal_text(last['new_total'])})"
        )
    return releases.report_markdown(
        rel, dataset=dataset, ledger_line=line, engine=engine(source),
        data=data_argument(source, dataset), bands=list(last_bands()),
    )


def report_files(rel: Release, dataset: str, source: str) -> tuple[bytes, bytes, str]:
    """(report.html, report.md, the release's file name stem: data, date-time, short id;
    :func:`~dpsum_core.publish.report.release_stem`)."""
    markdown = report_markdown(rel, dataset, source)
    stem = releases.release_stem(rel, dataset)
    return releases.report_html(markdown).encode(), markdown.encode(), stem


def ledger_json(book: ledgers.Ledger) -> bytes:
    """The ledger file (the same format as ``--ledger``)."""
    return (book.to_json() + "\n").encode()
