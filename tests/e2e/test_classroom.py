"""A classroom on one server (issue 25): results on public data shared by sessions; on Single
query, θ moved in the browser, the page fitting a projector, and the lesson as one offline file."""

from __future__ import annotations

import numpy as np
import pytest

from dpsum_ui.lesson import MAX_LESSON_BYTES
from tests.e2e.conftest import (
    ARTIFACTS,
    SIDEBAR,
    Server,
    answers_title,
    assert_clean,
    hidden_text,
    key,
    new_context,
    overlapping,
    record_timings,
    wait_idle,
)

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


# --------------------------------------------------------------------------------------------
# Single query: the lesson frame (θ in the browser), the fit, the downloadable lesson
# --------------------------------------------------------------------------------------------
FRAME = ".st-key-teach_lesson iframe"
THETA_STEP_LIMIT_MS = 50.0

# Installed in the frame before a key press: resolves with the milliseconds, by the frame's
# clock, from the keydown event (its timeStamp: when the key was pressed) to the four numbers
# and the explanations changed in the DOM (``dom``), and to the chart's marker and readout
# moved too, just before the next frame is painted (``painted``: the marker is moved in that
# frame's animation callback, registered before this probe's).
_STEP_PROBE = """(el) => { window.__step = new Promise((done) => {
  const numbers = document.getElementById('numbers');
  let pressed = null;
  el.addEventListener('keydown', (e) => { pressed = e.timeStamp; }, {once: true, capture: true});
  new MutationObserver((_, obs) => { obs.disconnect(); const dom = performance.now();
    requestAnimationFrame(() => done({dom: dom - pressed, painted: performance.now() - pressed}));
  }).observe(numbers, {childList: true, subtree: true, characterData: true});
}); }"""


def lesson_frame(page):
    """The lesson frame of the Single query page, once its chart is drawn."""
    frame = page.frame_locator(FRAME)
    frame.locator("#chart .main-svg").first.wait_for()
    return frame


def frame_state(frame) -> dict:
    """θ shown (and its slider's aria-valuetext), the four numbers, the short explanations and
    the chart's marker."""
    return frame.locator("body").evaluate(
        """async () => {
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        return {
        theta: document.getElementById('theta_value').textContent,
        valuetext: document.getElementById('theta').getAttribute('aria-valuetext'),
        numbers: [...document.querySelectorAll('#numbers .value')].map(e => e.textContent),
        cards: [...document.querySelectorAll('#cards summary span:first-child')]
                 .map(e => e.textContent),
        marker: document.getElementById('chart')._fullLayout.shapes[0].x0,
        readout: document.getElementById('chart')._fullLayout.annotations[0].text}; }"""
    )


def theta_steps(page, steps: int) -> list[dict]:
    """Arrow-key steps of θ in the lesson frame (right, then left, …): per step the
    milliseconds from the key press to the numbers updated (``dom``) and painted."""
    frame = lesson_frame(page)
    slider = frame.locator("#theta")
    out = []
    for i in range(steps):
        slider.evaluate(_STEP_PROBE)
        slider.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")
        out.append(slider.evaluate("() => window.__step"))
    return out


def open_single_query(browser, url: str, width: int = 1280, height: int = 800,
                      sent: list | None = None):
    """A new context on the Single query page (its lesson frame drawn): (context, page).
    ``sent``: a list that receives every message the page sends on its websockets."""
    context = new_context(browser, width, height)
    page = context.new_page()
    page.set_default_timeout(90_000)
    if sent is not None:
        page.on("websocket", lambda ws: ws.on("framesent", lambda f: sent.append(f)))
    page.goto(url)
    lesson_frame(page)
    wait_idle(page, 90_000)
    return context, page


def test_theta_moves_in_the_browser_with_no_server_round_trip(browser, server):
    """Issue 25.2: each arrow-key step of θ updates the marker, the readout, the four numbers,
    the explanations and what a screen reader announces (aria-valuetext "θ = 101,000", not the
    slider's index) in the page itself (≤ 50 ms by the page's clock), and sends nothing to the
    server."""
    sent: list = []
    # TaMM: its truncation bias follows θ bin by bin (the ★ ClampShells' steps at shell edges,
    # where it can clamp, so a few steps of θ may leave its numbers unchanged)
    context, page = open_single_query(browser, f"{server.url}/single-query?algorithm=tamm", sent=sent)
    try:
        frame = lesson_frame(page)
        assert sent  # the page's socket is watched (it sent its first run)
        sent.clear()
        before = frame_state(frame)
        theta_steps(page, 2)  # two first steps (warm the JIT), then the timed ones
        timings = theta_steps(page, 14)
        after = frame_state(frame)
        for _ in range(3):  # below τ: the truncation bias is no longer 0
            frame.locator("#theta").press("ArrowLeft")
        moved = frame_state(frame)
        assert page.locator(
            '[data-testid="stApp"][data-test-script-state="notRunning"]').count() == 1
    finally:
        context.close()
    assert after == before  # 16 steps right/left: back where it started, the same numbers
    assert moved["theta"] != before["theta"] and moved["numbers"] != before["numbers"]
    assert moved["cards"][0] != before["cards"][0]  # the truncation sentence follows θ
    assert moved["marker"] == pytest.approx(float(moved["theta"].replace(",", "")), rel=1e-9)
    assert f"θ = {moved['theta']}" in moved["readout"]
    # a screen reader announces θ, not the slider's index (the review heard "42")
    assert moved["valuetext"] == f"θ = {moved['theta']}", moved["valuetext"]
    assert before["valuetext"] == f"θ = {before['theta']}", before["valuetext"]
    assert not sent, sent[:3]  # no message to the server for a θ step
    dom = sorted(t["dom"] for t in timings)
    painted = sorted(t["painted"] for t in timings)
    record_timings(theta_step_ms={"numbers_median": round(dom[len(dom) // 2], 1),
                                  "numbers_max": round(dom[-1], 1),
                                  "with_chart_median": round(painted[len(dom) // 2], 1),
                                  "with_chart_max": round(painted[-1], 1)})  # fmt: skip
    assert dom[len(dom) // 2] <= THETA_STEP_LIMIT_MS / 2, dom  # margin: half the target
    assert dom[-1] <= THETA_STEP_LIMIT_MS, dom


def test_single_query_link_reproduces_the_frames_theta_in_a_new_context(browser, server):
    """θ moved in the browser is written into the address bar: the link opens the same view."""
    context, page = open_single_query(browser, f"{server.url}/single-query")
    try:
        page.locator(f"{key('teach_algorithm')} button", has_text="TaMM").click()
        page.wait_for_function("() => location.search.includes('algorithm=tamm')")
        wait_idle(page)
        frame = lesson_frame(page)
        page.wait_for_function(
            "(sel) => document.querySelector(sel).contentDocument.getElementById('chart')"
            "._fullLayout.title.text.startsWith('TaMM')", arg=FRAME)
        for _ in range(3):
            frame.locator("#theta").press("ArrowLeft")
        state = frame_state(frame)
        theta = state["theta"].replace(",", "")
        page.wait_for_function(
            "(t) => new URLSearchParams(location.search).get('theta') === t", arg=theta)
        link = page.url
    finally:
        context.close()
    context, other = open_single_query(browser, link)
    try:
        assert frame_state(lesson_frame(other)) == state
    finally:
        context.close()


# Elements of the first screen: θ, the four numbers, the chart, the four explanations.
_GEOMETRY = """async () => {
  await window.lessonDrawn;  // the chart drawn and arranged (its rows' heights)
  const rect = (e) => { const r = e.getBoundingClientRect();
    return {bottom: r.bottom, right: r.right, left: r.left, top: r.top}; };
  const cut = (e) => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1;
  const items = [['θ', document.getElementById('theta')],
    ['θ value', document.getElementById('theta_value')],
    ['chart', document.querySelector('#chart .main-svg')],
    ...[...document.querySelectorAll('.metric')].map(e => ['number ' +
        e.querySelector('.label').textContent, e]),
    ...[...document.querySelectorAll('.card')].map(e => ['card ' +
        e.querySelector('h2').textContent, e])];
  const texts = [...document.querySelectorAll('.metric .label, .metric .value, .metric .note,'
                 + ' .card h2, .card summary, label, output')];
  const chart = document.getElementById('chart');
  const parts = [['title', chart.querySelector('.gtitle')],
    ['legend', chart.querySelector('.legend')],
    ['readout', chart.querySelector('.annotation')],
    ['plot', chart.querySelector('.draglayer .xy .nsewdrag')],
    ['x title', chart.querySelector('.g-xtitle text, .g-x2title text')],
    ...[...chart.querySelectorAll('.xtick text')].map((e, k) => ['x tick ' + k, e]),
    ...[...chart.querySelectorAll('.y2tick text')].map((e) => ['rug ' + e.textContent, e])];
  const panels = [...document.querySelectorAll('.panel')].map(e => ['panel ' +
        e.querySelector('h2').textContent, rect(e)]);
  return {items: items.map(([n, e]) => [n, rect(e)]), panels,
          parts: parts.filter(([, e]) => e).map(([n, e]) => [n, rect(e)]),
          cut: texts.filter(cut).map(e => e.textContent),
          small: texts.map(e => [e.textContent, parseFloat(getComputedStyle(e).fontSize)])
                      .filter(([, s]) => s < 16),
          // the chart's own texts (svg): legend, readout, axis titles, ticks, rug labels
          chart_small: [...chart.querySelectorAll('svg text, svg tspan')]
            .filter(e => e.textContent.trim())
            .map(e => [e.textContent, parseFloat(getComputedStyle(e).fontSize)])
            .filter(([, s]) => s < 16),
          x_title: chart.querySelector('.g-xtitle text, .g-x2title text')?.textContent ?? '',
          metrics: document.querySelectorAll('.metric').length,
          cards: document.querySelectorAll('.card').length};
}"""


# The error plot's least height on any window (dpsum_ui.lesson: MIN_PLOT_PX), and the windows
# where everything, the explanations too, is on the first screen (README).
MIN_PLOT_PX = 220
EVERYTHING_FIRST = {(1920, 1080)}


def _overlaps(parts: list) -> list[tuple[str, str]]:
    """Pairs of the chart's title, legend, readout, plot area and tick labels that overlap
    (the review saw the legend overprint the title at 1280×800)."""
    boxes = dict(parts)
    pairs = [("title", "legend"), ("title", "readout"), ("readout", "legend"),
             ("readout", "plot"), ("legend", "plot"), ("title", "plot")]
    pairs += [("x title", "legend"), ("x title", "plot")]
    pairs += [(tick, other) for tick in boxes if tick.startswith("x tick")
              for other in ("legend", "readout", "x title")]  # fmt: skip
    pairs += [(a, b) for a in boxes for b in boxes if a < b and a.startswith("rug ")
              and b.startswith("rug ")]  # fmt: skip
    return overlapping(boxes, pairs)


@pytest.mark.parametrize(
    ("width", "height", "sidebar", "algorithm", "opened"),
    [(1280, 800, "open", "identity", "page"), (1280, 800, "collapsed", "identity", "page"),
     (1366, 768, "open", "identity", "page"), (1366, 768, "collapsed", "identity", "page"),
     (1400, 900, "open", "identity", "page"), (1600, 900, "open", "identity", "page"),
     (1920, 1080, "open", "identity", "page"), (1280, 800, "open", "rawsum", "page"),
     (1280, 800, "open", "clampshells", "page"), (1280, 800, "open", "identity", "link"),
     (1280, 800, "open", "identity", "guide"), (1280, 720, "open", "clampshells", "page"),
     (1366, 768, "open", "clampshells", "page")],
)
def test_single_query_fits_the_room(browser, server, width, height, sidebar, algorithm, opened):
    """Issue 25.3: on a projector (1920×1080) the chart, θ, the four numbers (with their units)
    and the four explanations on the first screen; on a smaller window θ, the numbers and the
    error plot there, at least MIN_PLOT_PX tall (the page scrolls to the legend and the
    explanations: the review saw the plot squeezed to 100 px at 1280×800 and 70 px at
    1366×768). No text cut (in the frame nor in the controls above it), labels ≥ 16 px —
    the chart's own svg texts too: legend, readout, axis titles, ticks, the SVT / Recursive
    labels (the review measured 12 and 13 px there) — also with the longer budget sentences
    of RawSum and ClampShells, opened from a shared link (its notice) and with the guide on;
    θ's axis titled as in the downloads; the chart's title, legend, readout, axis title and
    plot area never overprint each other, and both rugs are labelled; screenshots in
    tests/e2e/artifacts. The chart as drawn (its svg) meets no explanation card nor
    demonstration panel, and nothing covers a line of their text (the review saw the chart
    drawn over the cards at 1400, 1600 and 1920 px wide, where it is taller than its column).
    With the ★ (ClampShells here, no SVT / Recursive row; the page opens on TaMM): its θ axis,
    ticks and title, on the first screen too, at 1280×720 with the sidebar open (researcher's review
    P3-5 saw them below it, on Identity)."""
    url = f"{server.url}/single-query"
    if opened == "link":  # the address bar of a visit is a shared link
        context, page = open_single_query(browser, url, width, height)
        page.wait_for_function("() => location.search.includes('theta=')")
        url = page.url
        context.close()
    elif opened == "guide":
        url += "?guide=1"
    context, page = open_single_query(browser, url, width, height)
    try:
        if opened == "link":
            page.get_by_text("Settings restored from the link").wait_for()
        if opened == "guide":
            page.get_by_text("Guide: Step").wait_for()
        name = {"identity": "Identity", "rawsum": "RawSum", "clampshells": "ClampShells"}[algorithm]
        # the page opens on TaMM (its θ is the slider), none of these
        page.locator(f"{key('teach_algorithm')} button", has_text=name).click()
        page.wait_for_function(
            "([sel, name]) => { const c = document.querySelector(sel)?.contentDocument"
            "?.getElementById('chart'); return !!c?._fullLayout?.title?.text"
            "?.startsWith(name); }",
            arg=[FRAME, name])
        wait_idle(page)
        if sidebar == "collapsed":
            page.locator(SIDEBAR).hover()
            page.locator('[data-testid="stSidebarCollapseButton"] button').click()
            page.locator(SIDEBAR).wait_for(state="hidden")
            page.wait_for_function(  # the frame's chart is redrawn at the new width
                "(sel) => document.querySelector(sel).contentDocument.getElementById('chart')"
                ".getBoundingClientRect().width > 700", arg=FRAME)
        frame = lesson_frame(page)
        box = page.locator(FRAME).bounding_box()
        geometry = frame.locator("body").evaluate(_GEOMETRY)
        assert_rows_apart(frame.locator("body").evaluate(_ROWS))
        covered = hidden_text(frame.locator("body"), ".card, .panel")
        streamlit_small = page.evaluate(
            """() => [...document.querySelectorAll(
                '.st-key-teach_panel [data-testid="stWidgetLabel"] p,'
                + '.st-key-teach_panel [data-testid="stSliderThumbValue"],'
                + '.st-key-teach_panel button p')]
                .filter(e => e.offsetParent !== null)
                .map(e => [e.textContent, parseFloat(getComputedStyle(e).fontSize)])
                .filter(([, s]) => s < 16)"""
        )
        # The controls above the frame: no label cut to "…" (the review saw "ε, θ mode, worklo…").
        streamlit_cut = page.evaluate(
            """() => [...document.querySelectorAll(
                '.st-key-teach_panel [data-testid="stWidgetLabel"] p,'
                + '.st-key-teach_panel button p, .st-key-teach_panel button div')]
                .filter(e => e.offsetParent !== null
                        && (e.scrollWidth > e.clientWidth + 1
                            || e.getBoundingClientRect().right
                               > e.closest('button, [data-testid="stWidgetLabel"]')
                                  .getBoundingClientRect().right + 1))
                .map(e => e.textContent)"""
        )
        page.screenshot(path=str(
            ARTIFACTS / f"single_query_{width}x{height}_{sidebar}_{algorithm}_{opened}.png"))
        assert_clean(page)
    finally:
        context.close()
    assert geometry["metrics"] == 4 and geometry["cards"] == 4
    parts = dict(geometry["parts"])
    assert parts["plot"]["bottom"] - parts["plot"]["top"] >= MIN_PLOT_PX - 0.5, parts["plot"]
    # no SVT / Recursive row (RawSum, ClampShells): θ's axis, its ticks and title, too
    axis = [(n, r) for n, r in geometry["parts"] if n.startswith(("x tick", "x title"))
            and algorithm in ("rawsum", "clampshells")]  # fmt: skip
    assert len(axis) > 1 or algorithm not in ("rawsum", "clampshells"), geometry["parts"]
    first = [(n, r) for n, r in geometry["items"] + [("plot", parts["plot"])] + axis
             if (width, height) in EVERYTHING_FIRST or not n.startswith(("card ", "chart"))]
    below = [(name, round(box["y"] + r["bottom"])) for name, r in first
             if box["y"] + r["bottom"] > height]  # fmt: skip
    assert not below, below  # above the fold: everything, or θ, the numbers and the plot
    outside = [name for name, r in geometry["items"] if box["x"] + r["right"] > width]
    assert not outside, outside
    assert not geometry["cut"], geometry["cut"]  # no text overflows its box
    assert not geometry["small"], geometry["small"]
    assert not geometry["chart_small"], geometry["chart_small"]
    assert geometry["x_title"] == ("truncation threshold θ" if algorithm == "identity"
                                   else f"θ: where {name} would cut (it chooses its own θ)")
    assert not streamlit_small, streamlit_small
    assert not streamlit_cut, streamlit_cut
    assert not _overlaps(geometry["parts"]), _overlaps(geometry["parts"])
    boxes = dict(geometry["items"] + geometry["panels"])
    under_chart = overlapping(boxes, [("chart", n) for n in boxes
                                      if n.startswith(("card ", "panel "))])
    assert not covered, covered
    assert not under_chart, under_chart
    rugs = sorted(n for n, _ in geometry["parts"] if n.startswith("rug "))
    assert rugs == ([] if algorithm in ("rawsum", "clampshells")
                    else ["rug Recursive", "rug SVT"]), rugs  # fmt: skip


# The rows' domains as drawn: the error plot above, the SVT / Recursive row below, never on
# top of each other (a NaN height once gave both the whole chart at 1280×800, where the plot's
# own box still measured 300 px).
_ROWS = """async () => { await window.lessonDrawn;
  const L = document.getElementById('chart')._fullLayout;
  return [L.yaxis.domain, L.yaxis2 ? L.yaxis2.domain : null]; }"""


def assert_rows_apart(rows: list) -> None:
    plot, rug = rows
    assert all(np.isfinite(plot)), rows
    if rug is not None:
        assert all(np.isfinite(rug)) and rug[1] < plot[0], rows


_PLOT_HEIGHT = """async () => { await window.lessonDrawn;
  return document.querySelector('#chart .draglayer .xy .nsewdrag').getBoundingClientRect().height;
}"""


def test_the_plot_keeps_its_least_height_when_the_window_narrows(browser, server):
    """A narrower window (the sidebar opened, a window resized) puts the legend on more rows:
    the chart is arranged again and its error plot stays ≥ MIN_PLOT_PX (it fell to 185 px
    from 1280 to 1050 px wide)."""
    context, page = open_single_query(browser, f"{server.url}/single-query", 1280, 800)
    try:
        before = lesson_frame(page).locator("body").evaluate(_PLOT_HEIGHT)
        page.set_viewport_size({"width": 1050, "height": 800})
        page.wait_for_function(  # plotly's resize, then the frame's arrangement after it
            "(sel) => document.querySelector(sel).contentWindow.lessonArranged >= 2", arg=FRAME)
        # With the SVT / Recursive row (TaMM, the page's first algorithm since review 9) the
        # frame's own resize takes one arrangement more: the plot is 185 px for a moment between
        # them. Wait until no arrangement came for a polling interval (longer than the frame's
        # 300 ms debounce), then measure.
        page.wait_for_function(_SETTLED, arg=FRAME, polling=700, timeout=10_000)
        after = lesson_frame(page).locator("body").evaluate(_PLOT_HEIGHT)
        assert_rows_apart(lesson_frame(page).locator("body").evaluate(_ROWS))
    finally:
        context.close()
    assert before >= MIN_PLOT_PX - 0.5, before
    assert after >= MIN_PLOT_PX - 0.5, after


# True once the frame's arrangement count and plot height are what the previous poll saw.
_SETTLED = """(sel) => { const w = document.querySelector(sel).contentWindow;
  const h = w.document.querySelector('#chart .draglayer .xy .nsewdrag').getBoundingClientRect().height;
  const now = [w.lessonArranged, h], seen = w.__dpsumSeen;
  w.__dpsumSeen = now;
  return !!seen && seen[0] === now[0] && seen[1] === now[1]; }"""

_PHONE = """async () => { await window.lessonDrawn;
  const rect = (e) => { const r = e.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  const main = window.parent.document.querySelector('[data-testid="stMain"]');
  return {frame: document.documentElement.clientWidth, body: document.body.scrollWidth,
          page: [main.scrollWidth, main.clientWidth], modebar: !!document.querySelector('.modebar'),
          side: rect(document.querySelector('.side')),
          boxes: [...document.querySelectorAll('.card, .panel, #tools')].map(rect)}; }"""


@pytest.mark.parametrize(("link", "x_title"), [
    ("", "truncation threshold θ"),  # the page opens on TaMM (review 9)
    ("?algorithm=clampshells", "θ: where ClampShells would cut (it chooses its own θ)"),
], ids=["tamm", "clampshells"])  # fmt: skip
def test_single_query_on_a_phone_puts_the_chart_under_the_numbers(browser, server, link, x_title):
    """Researcher's review P2-1 (390×844): the chart was squeezed to about 70 px beside the
    numbers, its mode bar over the title, tick labels, legend and the "Add one person" box cut
    at the right. Now: the chart under θ and the numbers, as wide as the frame (≥ 300 px), its
    plot ≥ MIN_PLOT_PX tall; nothing wider than the window; the chart's parts within it and
    apart (readout and θ's axis title wrapped); no mode bar; no text cut or under 16 px."""
    context, page = open_single_query(browser, f"{server.url}/single-query{link}", 390, 844)
    try:
        body = lesson_frame(page).locator("body")
        geometry, phone = body.evaluate(_GEOMETRY), body.evaluate(_PHONE)
        page.screenshot(path=str(ARTIFACTS / f"single_query_390x844{link[11:]}.png"))
        assert_clean(page)
        page.set_viewport_size({"width": 1280, "height": 800})  # wide again: drawn anew
        page.wait_for_function(
            "(sel) => !!document.querySelector(sel).contentDocument.querySelector('.modebar')",
            arg=FRAME)
        turned = body.evaluate(_GEOMETRY)
    finally:
        context.close()
    items, parts = dict(geometry["items"]), dict(geometry["parts"])
    chart = items["chart"]
    assert chart["right"] - chart["left"] >= 300, chart  # was ≈ 70 px
    assert not overlapping({"side": phone["side"], "chart": chart}, [("side", "chart")])
    assert phone["side"]["bottom"] <= chart["top"] + 1, (phone["side"], chart)  # stacked
    assert phone["body"] <= phone["frame"] and phone["page"][0] <= phone["page"][1], phone
    assert all(b["right"] <= phone["frame"] + 0.5 for b in phone["boxes"]), phone["boxes"]
    out = [n for n, r in parts.items() if r["left"] < -0.5 or r["right"] > phone["frame"] + 0.5]
    assert not out, [(n, parts[n]) for n in out]  # ticks, legend, readout, axis title
    assert parts["plot"]["bottom"] - parts["plot"]["top"] >= MIN_PLOT_PX - 0.5, parts["plot"]
    assert not _overlaps(geometry["parts"]), _overlaps(geometry["parts"])
    assert not phone["modebar"]
    assert not geometry["cut"] and not geometry["small"] and not geometry["chart_small"]
    assert turned["x_title"] == x_title  # 1 line
    assert not _overlaps(turned["parts"]), _overlaps(turned["parts"])


# The two demonstrations' texts (one person with a huge value, the noisy answers), as θ sets them.
_DEMOS = """() => ['demo_truncated', 'draws_answers', 'draws_centre']
  .map((id) => document.getElementById(id).textContent)"""

# Boxes of the downloaded lesson's two figures as drawn and of the boxes under them.
_BOXES = """() => { const rect = (e) => { const r = e.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  const named = [['chart', document.querySelector('#chart .main-svg')],
    ['histogram', document.querySelector('#histogram .main-svg')],
    ...[...document.querySelectorAll('.card, .panel, .extra h2, .settings')]
       .map((e, k) => ['box ' + k + ' ' + e.textContent.slice(0, 30), e])];
  return Object.fromEntries(named.map(([n, e]) => [n, rect(e)])); }"""


def test_the_downloaded_lesson_works_from_disk_with_the_network_blocked(browser, server,
                                                                         tmp_path):
    """Issue 25.4: one HTML file ≤ 5 MB (plotly.js inline) that opens from disk with every
    network request refused: chart, θ slider, numbers, explanations, histogram, settings;
    neither figure drawn over the explanations, demonstrations or settings under it."""
    # Identity: its noisy answers move with the slider's θ (the ★, ClampShells', are at its own θ)
    context, page = open_single_query(browser, f"{server.url}/single-query?algorithm=identity")
    try:
        state = frame_state(lesson_frame(page))
        state_demo = lesson_frame(page).locator("html").evaluate(_DEMOS)
        with page.expect_download() as info:  # made in the frame, at the θ on screen
            lesson_frame(page).locator('#tools button[data-kind="lesson"]').click()
        path = tmp_path / "lesson.html"
        info.value.save_as(path)
    finally:
        context.close()
    size = path.stat().st_size
    record_timings(lesson_bytes=size)
    assert size <= MAX_LESSON_BYTES, size
    offline = new_context(browser, 1280, 800)
    refused: list[str] = []

    def refuse(route) -> None:
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            refused.append(route.request.url)
            route.abort()

    try:
        offline.route("**/*", refuse)
        offline.set_offline(True)
        lesson = offline.new_page()
        lesson.goto(path.as_uri())
        lesson.locator("#chart .main-svg").first.wait_for(timeout=30_000)
        lesson.locator("#histogram .main-svg").first.wait_for(timeout=30_000)
        first = frame_state(lesson.locator("html"))
        demos = [lesson.locator("html").evaluate(_DEMOS)]
        for _ in range(3):
            lesson.locator("#theta").press("ArrowLeft")
        moved = frame_state(lesson.locator("html"))
        demos.append(lesson.locator("html").evaluate(_DEMOS))
        text = lesson.locator("body").inner_text()
        boxes = lesson.evaluate(_BOXES)
    finally:
        offline.close()
    assert first == state  # the same view as in the app
    assert moved["theta"] != first["theta"] and moved["numbers"] != first["numbers"]
    assert moved["marker"] == pytest.approx(float(moved["theta"].replace(",", "")), rel=1e-9)
    assert demos[0] == state_demo and demos[1] != demos[0]  # the demonstrations, offline too
    for word in ("Truncation bias", "Binning bias", "Sensitivity", "Budget split", "seed: 0",
                 "incomes.csv", "ε = 0.01", "Add one person with a huge value",
                 "5 noisy answers at this θ", "drawn with seed 0"):
        assert word in text, word
    assert not refused, refused
    drawn_over = overlapping(boxes, [(f, n) for f in ("chart", "histogram") for n in boxes
                                     if n.startswith("box ")])
    assert not drawn_over, drawn_over  # each figure as tall as its place, nothing under it
