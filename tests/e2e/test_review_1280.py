"""A researcher's review at 1280×800 (sidebar open): table cells, boxes and chart titles that
were cut off or drawn over something. Each test reads what Chromium drew."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import (
    ARTIFACTS,
    answers_title,
    assert_clean,
    button,
    wait_idle,
)

pytestmark = pytest.mark.e2e

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
