"""Single query's demonstrations in Chromium (issue 25.5): one person with a huge value and the
repeated noisy answers follow θ in the lesson frame with no server round trip, and the answers
are the configured seed's."""

from __future__ import annotations

import pytest

from tests.e2e.test_classroom import lesson_frame, open_single_query

pytestmark = pytest.mark.e2e

LINK = "/single-query?data=incomes.csv&workload=Q3&tau=240000&theta=80000&algorithm=identity"

_DEMO = """async () => {
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const text = (id) => document.getElementById(id).textContent;
  return {theta: text('theta_value'), truncated: text('demo_truncated'),
          untruncated: text('demo_untruncated'),
          bar: document.getElementById('bar_truncated').style.width,
          answers: text('draws_answers'), centre: text('draws_centre'),
          dots: [...document.querySelectorAll('#strip .dot')].map(e => e.style.left),
          truth: document.getElementById('strip_truth').style.left,
          note: document.querySelector('#draws .key:last-child').textContent};
}"""


def demo_state(frame) -> dict:
    return frame.locator("body").evaluate(_DEMO)


def test_the_demonstrations_follow_theta_in_the_browser(browser, server):
    sent: list = []
    context, page = open_single_query(browser, server.url + LINK, sent=sent)
    try:
        frame = lesson_frame(page)
        sent.clear()
        before = demo_state(frame)
        for _ in range(4):
            frame.locator("#theta").press("ArrowLeft")
        after = demo_state(frame)
        for _ in range(4):
            frame.locator("#theta").press("ArrowRight")
        back = demo_state(frame)
    finally:
        context.close()
    assert not sent, sent[:3]  # no message to the server for a θ step
    assert back == before
    theta = after["theta"]
    assert after["truncated"].startswith(f"Truncated at θ = {theta}:")
    assert after["truncated"] != before["truncated"]
    assert after["untruncated"] == before["untruncated"]  # without truncation: θ plays no part
    assert "moves by 240,000" in before["untruncated"]
    # the truncated move's bar: min(θ, τ)/τ of the untruncated one
    theta_value = float(theta.replace(",", ""))
    assert float(after["bar"].rstrip("%")) == pytest.approx(
        100 * min(theta_value, 240_000) / 240_000, abs=1e-3)  # CSS keeps 4 decimals
    assert float(after["bar"].rstrip("%")) < float(before["bar"].rstrip("%"))
    assert after["answers"] != before["answers"] and after["dots"] != before["dots"]
    assert len(after["dots"]) == 5 and all(d.endswith("%") for d in after["dots"])
    assert all(0.0 <= float(d.rstrip("%")) <= 100.0 for d in after["dots"] + [after["truth"]])
    assert "seed 0" in after["note"] and "Illustrations on incomes.csv" in after["note"]


def test_the_noisy_answers_are_the_seeds_in_every_browser(browser, server):
    """Two students with the same seed see the same answers; another seed draws others."""
    states = []
    for seed in (5, 5, 6):
        context, page = open_single_query(browser, f"{server.url}{LINK}&seed={seed}")
        try:
            states.append(demo_state(lesson_frame(page)))
        finally:
            context.close()
    assert states[0]["answers"] == states[1]["answers"] and "seed 5" in states[0]["note"]
    assert states[2]["answers"] != states[0]["answers"] and "seed 6" in states[2]["note"]
    assert states[2]["truncated"] == states[0]["truncated"]  # the demo does not depend on it


def test_the_star_draws_its_noisy_answers_on_the_first_view(browser, server):
    """Reviewers saw the demonstration empty until another algorithm was picked: the ★
    (ClampShells), opened by a link (the page itself opens on TaMM, whose θ is the slider),
    chooses its own θ. Its five answers are drawn on the first view, and stay put when θ moves
    (they are at its own θ)."""
    context, page = open_single_query(browser, server.url + "/single-query?algorithm=clampshells")
    try:
        frame = lesson_frame(page)
        before = demo_state(frame)
        for _ in range(4):
            frame.locator("#theta").press("ArrowLeft")
        after = demo_state(frame)
    finally:
        context.close()
    assert len(before["dots"]) == 5 and all(d.endswith("%") for d in before["dots"])
    assert before["answers"].count(",") >= 4  # five answers, in words
    assert "ClampShells answered q_τ 5 times" in before["note"]
    assert "chose its own θ each time" in before["note"]
    assert after["answers"] == before["answers"] and after["dots"] == before["dots"]
    assert after["truncated"] != before["truncated"]  # the other demonstration follows θ
