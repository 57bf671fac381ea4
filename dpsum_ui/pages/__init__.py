"""The page table: one module per page, each a :class:`dpsum_ui.page.Page` record named
``PAGE``, in navigation order. ``app.py`` builds the navigation from :data:`PAGES`, and the
frame restores a link by asking the page opened (:func:`by_url_path`).

A new page is its script in ``app_pages/``, its module here and one line in :data:`PAGES`.
"""

from __future__ import annotations

from ..page import Page
from . import about, compare, data, decide, explorer, release, single_query

PAGES: tuple[Page, ...] = (
    data.PAGE,
    explorer.PAGE,
    single_query.PAGE,
    compare.PAGE,
    decide.PAGE,
    release.PAGE,
    about.PAGE,
)


def by_url_path(url_path: str) -> Page:
    """The page at ``url_path`` ("" for the default page, the Explorer)."""
    return next(p for p in PAGES if p.url_path == url_path)
