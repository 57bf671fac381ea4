"""Planning and release data (issue 19): the planning pages read the planning file only, the
Release page the release file only; the sidebar, each page's recap and every figure say which."""

from __future__ import annotations

import io

import numpy as np
from app_helpers import assert_clean, charts, kept, new_app, run_explorer, title
from streamlit.testing.v1 import AppTest

from dpsum_core.data.reading import load_column
from dpsum_core.publish.ledger import Ledger
from dpsum_ui.datasets import ONE_ROW
from dpsum_ui.page_state import ReleaseState

PRIVATE = "private_2025.csv"


def _private_bytes() -> bytes:
    rng = np.random.default_rng(7)
    values = rng.integers(1_000, 700_000, size=400)
    return b"income\n" + b"\n".join(str(v).encode() for v in values) + b"\n"


def _captions(at: AppTest) -> str:
    return " ".join(c.value for c in at.caption)


def _two_files() -> AppTest:
    at = new_app()
    at.run()
    at.switch_page("app_pages/data.py").run()
    at.selectbox(key="data_sample").select("incomes_small.csv").run()
    assert any("same file" in w.value for w in at.warning)  # today's warning, by default
    at.radio(key="release_data").set_value("upload").run()
    at.file_uploader(key="release_data_upload").set_value(
        (PRIVATE, _private_bytes(), "text/csv")
    ).run()
    assert_clean(at)
    assert at.selectbox(key="release_data_column").value == "income"
    at.selectbox(key="release_id_column").set_value(ONE_ROW).run()  # its own unit (issue 24 §3)
    return at


def test_default_is_one_file_for_planning_and_release(app: AppTest) -> None:
    app.switch_page("app_pages/release.py").run()
    assert "Uses: data **incomes.csv · income**" in _captions(app)


def test_planning_pages_read_the_planning_file_and_release_the_release_file() -> None:
    at = _two_files()
    at.switch_page("app_pages/explorer.py").run()
    at.selectbox(key="workload_kind").select("Q3").run()
    run_explorer(at)
    assert_clean(at)
    for page in ("explorer", "single_query", "compare", "decide"):
        at.switch_page(f"app_pages/{page}.py").run()
        assert_clean(at)
        text = _captions(at) + " ".join(title(s) for s in charts(at))
        assert "planning data **incomes\\_small.csv · income**" in text, page
        assert PRIVATE not in text, page
        for spec in charts(at):
            assert "planning data" in title(spec), (page, title(spec))

    at.switch_page("app_pages/release.py").run()
    assert_clean(at)
    assert "release data **private\\_2025.csv · income**" in _captions(at)
    assert "incomes_small" not in _captions(at)
    at.number_input(key="release_total").set_value(0.05).run()
    at.checkbox(key="release_unit_confirm").check().run()
    at.checkbox(key="release_confirm").check().run()
    at.button(key="release_go").click().run()
    assert_clean(at)
    book: Ledger = kept(at, ReleaseState).ledger
    # The ledger is bound to the content of the release file, not the planning sample.
    released = load_column(io.BytesIO(_private_bytes()), upper=800_000.0, content=True)
    assert released.report.content is not None and book.salt is not None
    assert book.fingerprint == released.report.content.digest(book.salt)
    assert book.dataset == PRIVATE


def test_a_missing_choice_is_named_with_a_link_to_the_page_that_fixes_it(app: AppTest) -> None:
    app.switch_page("app_pages/data.py").run()
    app.radio(key="data_source").set_value("upload").run()
    app.file_uploader(key="data_upload").set_value(
        ("hours.csv", b"hours\n" + b"\n".join(str(i).encode() for i in range(1, 60)), "text/csv")
    ).run()
    app.switch_page("app_pages/compare.py").run()
    assert "not yet set for hours.csv" in _captions(app)
    links = [el for el in app.get("page_link") if "Set U on the Data page" in el.proto.label]
    assert links and links[0].proto.page.endswith("data")


def _in_use(at: AppTest) -> str:
    return " ".join(s.value for s in at.success if s.value.startswith("In use:"))


def test_a_file_in_use_is_named_with_its_size_when_its_box_is_empty() -> None:
    """Back on the Data page after another page, Streamlit's uploader boxes are empty while
    both files are still in use: each is named with its size, with a way to stop using it."""
    at = _two_files()
    at.radio(key="data_source").set_value("upload").run()
    at.file_uploader(key="data_upload").set_value(("plan.csv", b"pay\n" + b"\n".join(
        str(i * 1000).encode() for i in range(1, 90)), "text/csv")).run()  # fmt: skip
    assert not _in_use(at)  # the boxes show their files themselves
    size = len(_private_bytes()) / 1000
    at.switch_page("app_pages/release.py").run()
    at.switch_page("app_pages/decide.py").run()
    at.switch_page("app_pages/data.py").run()
    assert_clean(at)
    shown = _in_use(at)
    assert "In use: **plan.csv** · 528 B" in shown, shown  # 89 rows of "pay"
    assert f"In use: **{PRIVATE}** · {size:.1f} KB" in shown, shown
    # removing the release file: the release reads the planning data again
    at.button(key="release_data_upload_remove").click().run()
    assert_clean(at)
    assert PRIVATE not in _in_use(at) and at.radio(key="release_data").value == "same"
    # removing the planning file: the sample is read again, and the page asks for a file
    at.button(key="data_upload_remove").click().run()
    assert_clean(at)
    assert not _in_use(at)
    assert any("No file uploaded yet" in i.value for i in at.info)
