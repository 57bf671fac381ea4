"""Compare: the grid of algorithms × truncation methods and the ε sweep; a link runs either."""

from __future__ import annotations

from .. import compare
from .. import keys as K
from ..page import Page

PAGE = Page(
    script="app_pages/compare.py",
    title="Compare",
    icon=":material/grid_view:",
    url_path="compare",
    view=compare.VIEW,
    state_keys=(
        K.COMPARE_TRUNCATIONS,
        K.COMPARE_VIEW,
        K.COMPARE_RUN,
        K.COMPARE_PARAMETERS,
        K.SWEEP_EPSILONS,
        K.SWEEP_TRUNCATION,
        K.SWEEP_RUN,
        K.COMPARE_SHARE,
    ),
    truncations_key=K.COMPARE_TRUNCATIONS,
    queue_run=compare.queue_link_run,
    link_seconds=compare.link_seconds,
    chart_on_link=True,
)
