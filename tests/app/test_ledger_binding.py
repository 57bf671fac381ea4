"""Issue 27 §7: one binding rule for the app and the CLI. A ledger of `dpsum release --data
<a server file>` binds on the Release page to the same file chosen as a server dataset (the app
bound it by name), and a replaced file is another dataset there too."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from app_helpers import assert_clean, keep, kept, new_app
from test_server_datasets import SAMPLE, server

from dpsum_core.cli import main
from dpsum_core.publish import ledger
from dpsum_ui.page_state import ReleaseState

pytest.importorskip("duckdb")


@pytest.fixture
def root(tmp_path, monkeypatch):
    root = tmp_path / "data"
    root.mkdir()
    pd.read_csv(SAMPLE).iloc[:2000].to_parquet(root / "incomes.parquet")
    monkeypatch.setenv("DPSUM_DATA_DIR", str(root))
    return root


def _cli_ledger(root, tmp_path):
    book = tmp_path / "ledger.json"
    argv = ["release", "--data", str(root / "incomes.parquet"), "--column", "income",
            "--workload", "Q3", "--algorithm", "identity", "--truncation", "none",
            "--epsilon", "0.25", "--budget", "1", "--out", str(tmp_path / "cli"),
            "--ledger", str(book)]  # fmt: skip
    assert main(argv) == 0
    return ledger.load(book)


def _release_page(book: ledger.Ledger):
    at = new_app()
    at.run()
    at.selectbox(key="workload_kind").select("Q3").run()
    at.switch_page("app_pages/data.py").run()
    server(at, "incomes.parquet")
    at.button(key="domain_keep").click().run()
    at.switch_page("app_pages/release.py").run()
    keep(at, ReleaseState(ledger=book))  # as the ledger uploader leaves it
    at.run()
    at.selectbox(key="release_algorithm").set_value("identity").run()
    at.number_input(key="release_total").set_value(1.0).run()
    at.checkbox(key="release_unit_confirm").check().run()
    return at


def test_a_cli_ledger_binds_to_the_same_server_file_in_the_app(root, tmp_path):
    book = _cli_ledger(root, tmp_path)
    assert book.fingerprint.startswith("content:sha256:")
    at = _release_page(book)
    at.checkbox(key="release_confirm").check().run()
    at.button(key="release_go").click().run()
    assert_clean(at)
    assert any(s.value.startswith("Released: ε =") for s in at.success), [e.value for e in at.error]
    after = kept(at, ReleaseState).ledger
    assert after.fingerprint == book.fingerprint and len(after.releases) == 2
    entry = after.releases[-1]
    assert entry["column"] == "income" and entry["id_column"] is None


def test_a_replaced_server_file_does_not_keep_its_ledger(root, tmp_path):
    book = _cli_ledger(root, tmp_path)
    df = pd.read_csv(SAMPLE).iloc[:2000]
    df["income"] = np.round(df["income"] * 1.01, 2)
    df.to_parquet(root / "incomes.parquet")  # the same name, other people
    at = _release_page(book)
    assert any("belongs to the dataset" in e.value for e in at.error), [e.value for e in at.error]
    assert at.checkbox(key="release_confirm").disabled
    assert kept(at, ReleaseState).ledger == book  # nothing charged


def test_hashing_a_server_file_is_priced_and_stoppable(root, monkeypatch):
    from contextlib import contextmanager

    from dpsum_core import limits
    from dpsum_ui import datasets, server_data

    asked: list[float] = []

    class Queue:
        @contextmanager
        def turn(self, seconds, on_wait):
            asked.append(seconds)
            yield

    class Stop(Exception):
        pass

    def stop() -> None:
        raise Stop

    monkeypatch.setattr(datasets, "QUEUE", Queue())
    monkeypatch.setattr(limits, "HASH_BYTES_PER_SECOND", 1.0)  # one byte a second
    _, signature = server_data.files_signature(root, "incomes.parquet")
    target = root / "incomes.parquet"
    assert datasets._hashed(target, signature) == ledger.file_fingerprint(target)
    assert asked == [target.stat().st_size]
    monkeypatch.setattr(datasets, "stop_check", lambda: stop)
    with pytest.raises(Stop):
        datasets._hashed(target, signature)


def test_a_ledger_bound_to_the_files_bytes_is_upgraded_on_the_release_page(root, tmp_path):
    """Issue 24 §3: a ledger of an older version, bound to the server file's bytes, binds on
    the Release page (checked against those bytes) and is rebound to the data's content."""
    from dataclasses import replace

    old = ledger.file_fingerprint(root / "incomes.parquet")
    book = replace(_cli_ledger(root, tmp_path), fingerprint=old, salt=None)
    at = _release_page(book)
    at.checkbox(key="release_confirm").check().run()
    at.button(key="release_go").click().run()
    assert_clean(at)
    after = kept(at, ReleaseState).ledger
    assert after.fingerprint.startswith("content:sha256:") and after.upgraded_from == old
    assert len(after.releases) == 2 and after.spent > book.spent == 0.25  # counted on
