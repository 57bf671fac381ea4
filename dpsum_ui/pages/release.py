"""Release: publish the answers once, against a privacy ledger."""

from __future__ import annotations

from .. import keys as K
from ..page import Page

PAGE = Page(
    script="app_pages/release.py",
    title="Release",
    icon=":material/publish:",
    url_path="release",
    state_keys=(
        K.RELEASE_ALGORITHM,
        K.RELEASE_TRUNCATION,
        K.RELEASE_ISO,
        K.RELEASE_TOTAL,
        K.RELEASE_LEDGER_UPLOAD,
        K.RELEASE_LEDGER_DOWNLOAD,
        K.RELEASE_RAISE,
        K.RELEASE_CONFIRM,
        K.RELEASE_UNIT_CONFIRM,
        K.RELEASE_GO,
        K.RELEASE_ANSWERS_CSV,
        K.RELEASE_RECORD_JSON,
        K.RELEASE_REPORT_HTML,
        K.RELEASE_REPORT_MD,
        K.RELEASE_ESTIMATE,
    ),
    publishing=True,
)
