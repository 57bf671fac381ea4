"""The page table (dpsum_ui.pages): the navigation, link restoring and its cost come from each
page's record, so a new page is its module and one line, with no branch in the frame."""

from __future__ import annotations

from pathlib import Path

from app_helpers import TIMEOUT, new_app
from streamlit.testing.v1 import AppTest

from dpsum_ui import keys as K
from dpsum_ui.pages import PAGES, by_url_path

ROOT = Path(__file__).resolve().parents[2]


def test_the_table_lists_every_page_file_once_with_its_own_keys() -> None:
    scripts = sorted(p.script for p in PAGES)
    assert scripts == sorted(f"app_pages/{f.name}" for f in (ROOT / "app_pages").glob("*.py"))
    paths = [p.url_path for p in PAGES]
    assert len(set(paths)) == len(paths) and paths.count("") == 1  # one default page
    assert by_url_path("").title == "Explorer"
    owned = [k for p in PAGES for k in p.state_keys]
    assert len(set(owned)) == len(owned), "a widget key belongs to one page"
    for page in PAGES:  # a link restores only the page's own widgets
        assert {key for key, _, _ in page.view.values()} <= set(page.state_keys), page.title
        assert page.truncations_key is None or page.truncations_key in page.state_keys
    assert [p.title for p in PAGES if p.publishing] == ["Release"]


def _new_page_opened_by_link() -> None:
    """A page that exists only in this test: the frame restores its link from its hooks."""
    import streamlit as st

    from dpsum_ui import keys as K
    from dpsum_ui import shell
    from dpsum_ui.page import Link, Page

    def queue(link: Link) -> None:
        st.session_state["queued"] = link

    page = Page(
        script="app_pages/new.py",
        title="New",
        icon=":material/star:",
        url_path="new",
        view={"depth": (K.EXPLORER_TAB, "number", None)},
        state_keys=(K.EXPLORER_TAB, K.COMPARE_TRUNCATIONS),
        truncations_key=K.COMPARE_TRUNCATIONS,
        queue_run=queue,
        link_seconds=lambda config, link: 0.5 if link.grid else 0.0,
    )
    shell.restore_from_link(page)
    shell.show_notice()


def test_a_new_page_restores_its_link_through_its_hooks_alone() -> None:
    at = AppTest.from_function(_new_page_opened_by_link, default_timeout=TIMEOUT)
    at.query_params.update(
        {"data": "incomes.csv", "column": "income", "truncation": "svt", "depth": "3", "view": "1"}
    )
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state[K.EXPLORER_TAB] == 3.0  # its view parameter
    assert at.session_state[K.COMPARE_TRUNCATIONS] == ["svt"]  # its truncations key
    assert at.session_state["queued"].grid  # its own run, with what the link showed
    assert any("run once with the same seed" in i.value for i in at.info)


def test_the_frame_never_branches_on_a_page() -> None:
    frame = [ROOT / "app.py", *sorted((ROOT / "dpsum_ui").glob("*.py"))]
    for path in frame:
        text = path.read_text()
        assert "page ==" not in text and "url_path ==" not in text, path.name
        assert "url_path in" not in text, path.name


def test_every_page_that_reads_the_data_says_the_same_when_it_is_unusable() -> None:
    at = new_app()
    at.run()
    for script in ("explorer", "single_query", "compare", "decide", "release"):
        at.session_state[K.DOMAIN_UPPER] = 0.0  # what the Data page's field refuses
        at.switch_page(f"app_pages/{script}.py").run()
        assert not at.exception, [e.value for e in at.exception]
        notices = [e.value for e in at.error if e.value.endswith("Fix it on the Data page.")]
        assert notices == ["The upper bound U is not valid: upper bound U must be > 0 and at "
                           "most 1,000,000,000,000,000, got 0. Fix it on the Data page."], script  # fmt: skip
        links = [p.proto.label for p in at.get("page_link") if p.proto.page == "data"]
        assert "Go to the Data page" in links, script
