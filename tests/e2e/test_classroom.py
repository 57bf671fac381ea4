"""A classroom on one server (issue 25): results on public data shared by sessions."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import Server, answers_title, new_context, wait_idle

pytestmark = pytest.mark.e2e

LINK = "/?data=incomes_small.csv&workload=Q3&trials=20&seed=11"
COMPUTED = "dpsum shared memo: computed result"


def test_two_students_opening_the_same_link_compute_once(browser):
    """Two browser contexts (two students) open the teacher's Explorer link at once: both see
    the run's figure, and the server computed the run once."""
    server = Server(env={"DPSUM_MEMO_TRACE": "1"})
    contexts = [new_context(browser) for _ in range(2)]
    try:
        pages = [c.new_page() for c in contexts]
        for page in pages:
            page.set_default_timeout(120_000)
            page.goto(server.url + LINK, wait_until="commit")
        for page in pages:
            page.wait_for_function(answers_title(11), timeout=120_000)
            wait_idle(page, 120_000)
        titles = [
            page.evaluate(
                "() => document.querySelector('.st-key-chart_explorer_answers .js-plotly-plot')"
                ".layout.title.text"
            )
            for page in pages
        ]
    finally:
        for c in contexts:
            c.close()
        server.stop()
    assert titles[0] == titles[1] and "incomes_small.csv" in titles[0]
    log = server.log.read_text()
    assert "Traceback" not in log, log[-3000:]
    assert log.count(COMPUTED) == 1, log[-3000:]
