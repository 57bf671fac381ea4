"""A researcher's review at 1280×800 and 1600×900 (sidebar open): table cells, boxes and chart
titles that were cut off or drawn over something. Each test reads what Chromium drew."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import (
    ARTIFACTS,
    answers_title,
    assert_clean,
    button,
    chart_parts,
    chart_title,
    choose,
    goto_page,
    hidden_text,
    key,
    new_context,
    open_app,
    overlapping,
    run_explorer,
    set_number,
    sidebar_has,
    upload_data,
    upload_payload,
    wait_idle,
    wait_rendered,
)

pytestmark = pytest.mark.e2e


@pytest.fixture(params=[(1280, 800), (1600, 900)], ids=["1280x800", "1600x900"])
def page(request, browser, server):
    """A page in the review's two windows (conftest's page fixture has the first only)."""
    context = new_context(browser, *request.param)
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    yield pg
    context.close()

# The widest text of each column of a data grid (cells and header, from the grid's accessible
# table: the text as displayed), measured on a canvas in the grid's own font, against the
# grid's width: what every column needs to be drawn whole (8 px padding each side), and the
# grid's horizontal overflow.
_GRID_NEEDS = """(grid) => {
  const style = getComputedStyle(grid.querySelector('.stDataFrameGlideDataEditor'));
  const font = style.getPropertyValue('--gdg-base-font-style').trim() + ' '
             + style.getPropertyValue('--gdg-font-family').trim();
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = font;
  const w = (t) => ctx.measureText(t).width;
  const heads = [...grid.querySelectorAll('th[role=columnheader]')];
  const columns = heads.map((th, k) => {
    const cells = [...grid.querySelectorAll(`td[aria-colindex="${k + 1}"]`)];
    const widest = cells.reduce((a, td) => w(td.textContent) > w(a) ? td.textContent : a, '');
    return {name: th.textContent, widest,
            need: Math.max(w(widest), w(th.textContent)) + 16};
  });
  const scroller = grid.querySelector('.dvn-scroller');
  return {width: grid.querySelector('canvas').getBoundingClientRect().width, columns,
          overflow: scroller ? scroller.scrollWidth - scroller.clientWidth : 0};
}"""


def test_the_summary_tables_cells_are_drawn_whole_at_1280(page, server):
    """Review: at 1280×800 the ledger's "θ chosen by" cell read "…with its own s…" and the
    summary's Median θ cell "none beyond U: cleaning clips values above U t…". Every column
    of both tables now needs no more than the grid's width (so none is cut or pushed out of
    view), the grid does not scroll sideways, and the ρ note for RawSum and ClampShells is
    shown whole under the ledger."""
    page.goto(f"{server.url}/?data=incomes_small.csv&workload=Q3&trials=5&seed=4"
              "&truncation=none&algorithms=sqm%2Cidentity%2Cworkload%2Ctimm%2Ctamm%2Crawsum"
              "%2Cclampshells")  # fmt: skip
    button(page, "explorer_run").wait_for()
    wait_idle(page)
    button(page, "explorer_run").click()
    page.wait_for_function(answers_title(4), timeout=120_000)
    wait_idle(page)
    page.locator('[data-testid="stTab"]', has_text="Summary & budget").click()
    grids = page.locator('[data-testid="stDataFrame"]')
    grids.nth(1).wait_for()
    wait_idle(page)
    assert_clean(page)
    page.screenshot(path=str(ARTIFACTS / "summary_tables_1280.png"))
    for k in range(2):
        grids.nth(k).scroll_into_view_if_needed()
        grids.nth(k).locator("th[role=columnheader]").first.wait_for(state="attached")
        drawn = grids.nth(k).evaluate(_GRID_NEEDS)
        names = [c["name"] for c in drawn["columns"]]
        assert ("Median θ" in names) if k == 0 else ("θ chosen by" in names), names
        needs = sum(c["need"] for c in drawn["columns"])
        assert needs <= drawn["width"], (
            round(needs), [(c["name"], c["widest"], round(c["need"])) for c in drawn["columns"]])
        assert drawn["overflow"] <= 1, drawn
    note = page.locator('[data-testid="stCaptionContainer"]', has_text="applies to SVT and the recursive mechanism")
    assert "ClampShells locates θ itself" in note.inner_text()
    assert "RawSum chooses θ after measuring" in note.inner_text()


def _weekly_wages(people: int = 400, weeks: int = 12) -> bytes:
    """A weekly-wage file, several rows per person (column person_id)."""
    rows = [f"{p:05d},{300 + (p * 7919 + w * 104_729) % 1500}.{(p + 3 * w) % 100:02d}"
            for p in range(people) for w in range(weeks)]  # fmt: skip
    return ("person_id,weekly_wage\n" + "\n".join(rows) + "\n").encode()


def test_the_unit_of_privacy_and_the_theta_histograms_subtitle_fit_at_1280(page, server):
    """Review with an uploaded weekly-wage file whose people are identified by person_id:
    the Data page's unit-of-privacy box read "…identified by column person_" (cut), and the
    Explorer's θ-and-data histogram's subtitle stopped at "…all rows with the same". The box's
    text is now whole (no line of it covered or cut), and the histogram's title block lies
    inside its figure, clear of the plot."""
    open_app(page, server.url)
    goto_page(page, "Data")
    upload_data(page, upload_payload("wages.csv", _weekly_wages()))
    button(page, "domain_keep").wait_for()
    wait_idle(page)
    set_number(page, "domain_upper", 5000)  # the review's public U (entering it confirms it)
    sidebar_has(page, "Domain [0, 5,000]")
    sidebar_has(page, "wages.csv · weekly_wage")
    wait_idle(page)
    choose(page, "data_id_column", "person_id")
    wait_idle(page)
    assert_clean(page)
    box = page.locator(key("data_id_column"))
    box.screenshot(path=str(ARTIFACTS / "unit_of_privacy_1280.png"))
    field = box.locator("input[role=combobox]")
    assert "person_id" in field.input_value()
    # the box shows its value in a one-line input: cut when its text is wider than the box
    widths = field.evaluate("(e) => [e.scrollWidth, e.clientWidth]")
    assert widths[0] <= widths[1], (field.input_value(), widths)
    caption = page.locator('[data-testid="stCaptionContainer"]', has_text="Unit of privacy: one")
    assert "all rows with the same 'person_id'" in caption.inner_text()
    caption.scroll_into_view_if_needed()
    assert not hidden_text(caption, "p"), hidden_text(caption, "p")
    goto_page(page, "Explorer")
    run_explorer(page)
    page.locator('[data-testid="stTab"]', has_text="θ and data").click()
    page.locator(f"{key('chart_explorer_data')} .main-svg").first.wait_for()
    wait_rendered(page)
    boxes = chart_parts(page, "explorer_data")
    page.locator(key("chart_explorer_data")).screenshot(
        path=str(ARTIFACTS / "theta_data_histogram_1280.png"))
    title, figure = boxes["title"], boxes["figure"]
    assert "person_id" in chart_title(page, "explorer_data")
    assert title["left"] >= figure["left"] - 1 and title["right"] <= figure["right"] + 1, (
        title, figure)
    plots = [n for n in boxes if n.startswith("plot ")]
    assert not overlapping(boxes, [("title", p) for p in plots])


# Boxes of the y tick labels of the plotly chart under ``sel`` ('y tick <axis> <k>: <text>'),
# to join conftest.chart_parts' boxes (which hold the x ticks only).
_Y_TICKS = """(sel) => {
  const c = document.querySelector(sel);
  const rect = (e) => { const r = e.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  return Object.fromEntries([...c.querySelectorAll('g[class$="tick"] text')]
    .filter(e => /^y\\d*tick$/.test(e.parentNode.getAttribute('class')))
    .map((e, k) => ['y tick ' + e.parentNode.getAttribute('class').slice(0, -4) + ' ' + k
                    + ': ' + e.textContent, rect(e)]));
}"""


def _y_tick_pairs(boxes: dict) -> list[tuple[str, str]]:
    ticks = [n for n in boxes if n.startswith("y tick ")]
    return [(a, b) for i, a in enumerate(ticks) for b in ticks[i + 1:]
            if a.split()[2] == b.split()[2]]  # fmt: skip


def test_the_single_query_charts_titles_and_y_labels_are_clear_at_1280(page, server):
    """Review: on Single query the "All algorithms" chart's subtitle "ε = 0.01, ρ = 0.1
    (θ private)" sat on its "1 billion" y tick, and the Identity chart's y labels were
    crammed (1 billion … 1 million 30 px apart, 19 px tall). The title block of "All
    algorithms" now clears its plot and y labels, and the Identity chart's y labels are at
    least a label's height apart."""
    page.goto(f"{server.url}/single-query?algorithm=identity")
    frame = page.frame_locator(".st-key-teach_lesson iframe")
    frame.locator("#chart .main-svg").first.wait_for(timeout=90_000)
    wait_idle(page, 90_000)
    assert_clean(page)
    legend = frame.locator("#chart .legend").text_content() or ""
    assert "Identity" in legend, legend
    boxes = frame.locator("body").evaluate(_Y_TICKS.replace("(sel) =>", "(body, sel) =>")
                                           .replace("document.querySelector(sel)",
                                                    "body.querySelector('#chart')"))
    page.locator(".st-key-teach_lesson").screenshot(path=str(ARTIFACTS / "identity_1280.png"))
    # crammed: two labels closer than a label's height (each grown by half its height)
    spaced = {n: {**b, "top": b["top"] - (b["bottom"] - b["top"]) / 2,
                  "bottom": b["bottom"] + (b["bottom"] - b["top"]) / 2}
              for n, b in boxes.items() if n.startswith("y tick y ")}  # the error axis
    assert len(spaced) >= 2, boxes
    assert not overlapping(spaced, _y_tick_pairs(spaced)), overlapping(spaced,
                                                                       _y_tick_pairs(spaced))

    page.locator(key("teach_all_box")).locator("summary").click()
    page.locator(f"{key('chart_teach_all')} .main-svg").first.wait_for()
    wait_rendered(page)
    boxes = {**chart_parts(page, "teach_all"),
             **page.evaluate(_Y_TICKS, f"{key('chart_teach_all')} .js-plotly-plot")}
    page.locator(key("chart_teach_all")).screenshot(path=str(ARTIFACTS / "all_algorithms_1280.png"))
    assert "θ private" in chart_title(page, "teach_all")
    ticks = [n for n in boxes if n.startswith("y tick")]
    assert ticks, boxes
    title, figure = boxes["title"], boxes["figure"]
    assert title["top"] >= figure["top"] - 1, (title, figure)  # not cut at the top
    plots = [n for n in boxes if n.startswith("plot ")]
    pairs = _y_tick_pairs(boxes) + [("title", n) for n in ticks + plots]
    assert not overlapping(boxes, pairs), overlapping(boxes, pairs)
