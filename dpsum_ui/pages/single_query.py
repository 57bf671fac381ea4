"""Single query: one query, θ and the error curves, as a lesson; a link redraws them."""

from __future__ import annotations

from .. import keys as K
from .. import teaching
from ..page import Page

PAGE = Page(
    script="app_pages/single_query.py",
    title="Single query",
    icon=":material/school:",
    url_path="single-query",
    view=teaching.VIEW,
    state_keys=(
        K.TEACH_QUERY,
        K.TEACH_ALGORITHM,
        K.TEACH_THETA,
        K.TEACH_PRIVATE,
        K.TEACH_SHARE,
        K.TEACH_ALL,
        K.TEACH_COMPUTE,
    ),
    redraws=teaching.redraws,
)
