"""Decide: the smallest ε that meets a target; a link redraws the curves, or runs the
simulation it showed."""

from __future__ import annotations

from .. import decide
from .. import keys as K
from ..page import Page

PAGE = Page(
    script="app_pages/decide.py",
    title="Decide",
    icon=":material/target:",
    url_path="decide",
    view=decide.VIEW,
    state_keys=(
        K.DECIDE_TARGET,
        K.DECIDE_TARGET_ON,
        K.DECIDE_ABOVE,
        K.DECIDE_TRUNCATIONS,
        K.DECIDE_SIMULATE,
        K.DECIDE_SHARE,
        K.DECIDE_TABLE,
        K.DECIDE_CSV,
        K.DECIDE_COMPUTE,
        K.DECIDE_MEASURE,
        K.DECIDE_WIDTH,
    ),
    truncations_key=K.DECIDE_TRUNCATIONS,
    redraws=decide.redraws,
    queue_run=decide.queue_link_run,
    link_seconds=decide.link_seconds,
    chart_first=True,  # the error-versus-ε curves
)
