"""The typed state of the analysis pages (Explorer, Compare, Decide, Release).

Each page keeps one frozen dataclass under one session key (:func:`dpsum_ui.store.page_state`),
read with :func:`load` and replaced with :func:`update`; nothing here is an untyped dict. (Their
plan is :data:`dpsum_ui.state.Plan`: ``Ready(config, workload) | Blocked(error)``.)
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, TypeVar

from dpsum_core.data.dataset import Statistics
from dpsum_core.publish.ledger import Ledger
from dpsum_core.publish.release import Release, ReleasePlan
from dpsum_core.simulate.config import ExperimentConfig

from . import store
from .share import Source

S = TypeVar("S")


# --------------------------------------------------------------------------------------------
# What the pages keep
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Run:
    """A run a page shows: its memo key, the data it read and where that data came from."""

    key: tuple
    data: Statistics
    source: Source


@dataclass(frozen=True)
class Sweep:
    """An ε sweep Compare shows: its memo key, its configuration, the data's name and source."""

    key: tuple
    config: ExperimentConfig
    name: str
    source: Source

    @property
    def epsilons(self) -> tuple[float, ...]:
        """The ε values it ran (the last part of its key)."""
        return tuple(self.key[-1])


@dataclass(frozen=True)
class ExplorerState:
    """The Explorer: the run shown, a link's queued run, a settings file that failed."""

    shown: Run | None = None
    queued: bool = False
    config_error: str | None = None
    config_refused: int = 0  # settings files refused (too large, or unread): each resets the box


@dataclass(frozen=True)
class CompareState:
    """Compare: the grid and the sweep shown, and what a link queued of them."""

    grid: Run | None = None
    sweep: Sweep | None = None
    queued_grid: bool = False
    queued_sweep: bool = False


@dataclass(frozen=True)
class DecideState:
    """Decide: whether a link queued its simulation."""

    queued: bool = False


@dataclass(frozen=True)
class Carried:
    """What Decide's "Use ε = … on the Release page" button handed on: the ε (the smallest
    meeting the target, rounded up), the configuration that meets it there and the target in
    words."""

    epsilon: float
    algorithm: str
    truncation: str
    target: str


@dataclass(frozen=True)
class ReleaseState:
    """Release: this session's ledger, its last release, the last callback's message (shown
    once), the last release's success line (kept on screen across reruns, e.g. a download,
    until another release or ledger upload replaces it) and the choices made on the page
    (Streamlit drops a widget's value when another page is shown: they are restored from
    here when the user comes back)."""

    ledger: Ledger | None = None
    last: Release | None = None
    message: tuple[str, str] | None = None
    done: str | None = None
    public_cap: float | None = None  # the cap typed, kept when the user leaves the page
    algorithm: str | None = None  # the algorithm, truncation and isotonic switch chosen here
    truncation: str | None = None
    isotonic: bool | None = None
    plan: ReleasePlan | None = None  # the plan the page shows now (the sidebar names its settings)
    ledger_refused: int = 0  # ledgers refused (too large, or not loaded): each resets the box
    last_data: tuple[str, str] | None = None  # the last release's dataset name and source
    carried: Carried | None = None  # the last ε and configuration Decide handed on
    carried_new: bool = False  # not yet put in the page's choices (once, then the user's)
    bands: str | None = None  # the "Totals by band" text, kept when the user leaves the page
    last_bands: tuple[tuple[float, float], ...] = ()  # the bands of the last release's files


def load(cls: type[S]) -> S:
    """This session's state of the page ``cls`` describes."""
    return store.page_state(cls)


def update(cls: type[Any], **changes: Any) -> None:
    """Replace fields of a page's state (the others are kept)."""
    store.save_page_state(replace(load(cls), **changes))


def take(cls: type[Any], name: str) -> Any:
    """A field of a page's state, read once: it is reset to its default (a queued run, a
    message)."""
    value = getattr(load(cls), name)
    default = next(f.default for f in fields(cls) if f.name == name)
    if value != default:
        update(cls, **{name: default})
    return value


# --------------------------------------------------------------------------------------------
# What the frame asks (dpsum_ui.page, dpsum_ui.shell, dpsum_ui.warmup)
# --------------------------------------------------------------------------------------------
def queue_explorer_run() -> None:
    """Queue one Explorer run (a link's run on most pages)."""
    update(ExplorerState, queued=True)


def link_run_queued() -> bool:
    """Whether a link queued a run that draws a chart (the Explorer's or Compare's)."""
    compare = load(CompareState)
    return load(ExplorerState).queued or compare.queued_grid or compare.queued_sweep


def explorer_shown() -> Run | None:
    """The run the Explorer shows, if any (for the sidebar)."""
    return load(ExplorerState).shown
