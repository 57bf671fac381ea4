"""Data: choose the data, its column and the domain (U, bins)."""

from __future__ import annotations

from .. import keys as K
from ..page import Page

PAGE = Page(
    script="app_pages/data.py",
    title="Data",
    icon=":material/table_chart:",
    url_path="data",
    state_keys=(
        K.DATA_SOURCE,
        K.DATA_SAMPLE,
        K.DATA_UPLOAD,
        K.DATA_COLUMN,
        K.DATA_ID_COLUMN,
        K.DATA_SERVER,
        K.DATA_SERVER_PATH,
        K.RELEASE_DATA,
        K.RELEASE_DATA_SAMPLE,
        K.RELEASE_DATA_UPLOAD,
        K.RELEASE_DATA_COLUMN,
        K.DOMAIN_UPPER,
        K.DOMAIN_KEEP,
        K.DOMAIN_BINS_MODE,
        K.DOMAIN_BINS,
        K.DOMAIN_WIDTH,
        K.DOMAIN_WEIGHTS,
    ),
    chart_first=True,  # the data's histogram
)
