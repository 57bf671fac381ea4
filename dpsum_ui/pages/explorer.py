"""Explorer (the default page): the settings, one run, its tabs; a link runs it once."""

from __future__ import annotations

from .. import keys as K
from ..page import Page

PAGE = Page(
    script="app_pages/explorer.py",
    title="Explorer",
    icon=":material/insights:",
    state_keys=(
        K.EXPLORER_RUN,
        K.EXPLORER_TAB,
        K.EXPLORER_FOCUS,
        K.EXPLORER_PARAMETERS,
        K.EXPLORER_SHARE,
        K.EXPLORER_PREVIEW,
        K.SHARE_CONFIG_UPLOAD,
        K.SHARE_CONFIG_DOWNLOAD,
        K.SHARE_SUMMARY_CSV,
        K.SHARE_RUN_JSON,
    ),
    chart_on_link=True,
)
