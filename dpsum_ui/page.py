"""What the frame needs to know about a page: the record every page module fills in
(:mod:`dpsum_ui.pages`), and what a link asks of the page it opens.

The frame (``app.py`` and :mod:`dpsum_ui.shell`) reads these hooks and never branches on a
page's URL: a new page is one module in :mod:`dpsum_ui.pages` and one line in its table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from types import MappingProxyType

from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.cost import run_cost

from . import page_state
from .share import ViewParams


@dataclass(frozen=True)
class Link:
    """What a link asks its page to show besides the settings: the Compare grid (``grid``),
    the ε sweep (``sweep``), Decide's simulation (``simulate``)."""

    grid: bool = False
    sweep: bool = False
    simulate: bool = False


def explorer_run(link: Link) -> None:
    """Queue one Explorer run (what a link does unless its page says otherwise)."""
    del link  # one run, whatever the link shows
    page_state.queue_explorer_run()


def one_run_seconds(config: ExperimentConfig, link: Link) -> float:
    """The estimated seconds of one run of ``config`` (a link's run on most pages)."""
    del link
    return run_cost(config).seconds


def runs(link: Link) -> str | None:
    """A page whose link always runs: nothing is redrawn from the settings alone."""
    del link
    return None


@dataclass(frozen=True)
class Page:
    """One page of the dashboard and how a shared link opens it.

    Attributes
    ----------
    script, title, icon, url_path
        The page file (in ``app_pages/``), its title and icon in the navigation, its URL path
        ("" for the default page).
    view
        The view parameters a link to this page carries, beyond the configuration.
    state_keys
        The session keys of this page's own widgets.
    truncations_key
        Where the link's truncation methods go on this page (None: the shared setting only).
    redraws
        Given the link, what the page redraws from the settings by itself without a run (for
        the notice, e.g. "query, θ and curves"), or None when the link's run must be queued.
    queue_run
        Queue the link's run for this page (read by the page on its next draw).
    link_seconds
        The estimated seconds of what the link would run by itself on this page.
    chart_first
        The page draws a chart as soon as it opens (the chart library is loaded at once).
    chart_on_link
        A link that runs this page by itself draws a chart.
    publishing
        The page publishes (the sidebar shows the release data and no unnoised count).
    """

    script: str
    title: str
    icon: str
    url_path: str = ""
    view: ViewParams = field(default_factory=lambda: MappingProxyType({}))
    state_keys: tuple[str, ...] = ()
    truncations_key: str | None = None
    redraws: Callable[[Link], str | None] = runs
    queue_run: Callable[[Link], None] = explorer_run
    link_seconds: Callable[[ExperimentConfig, Link], float] = one_run_seconds
    chart_first: bool = False
    chart_on_link: bool = False
    publishing: bool = False
