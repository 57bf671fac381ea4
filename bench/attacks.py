"""The attacks of issue 27 for ``bench/load.py``'s attack phase: their files and one browser
session that fires each without waiting, then reports how it ended.

- ``decide_link``: the Decide link on server data (U = 20 001, 5 000 bins, 7 algorithms × 3
  truncations): 241 s wall, 150 s CPU and RSS 435 → 1 030 MB on the code the issue attacked;
  the priced page restores its settings and refuses it;
- ``id_column_bomb``: an uploaded CSV where one placeholder id has ``id_rows`` rows and
  ``id_rows`` more ids one row each, the id column then chosen (quadratic cleaning: 27.1);
- ``parquet_bomb``: an uploaded Parquet file of 13 float columns × ``parquet_rows`` zeros, zstd
  (a small file decoding to gigabytes: issue 27.3).
"""

from __future__ import annotations

import io
import shutil
import time
from pathlib import Path
from urllib.parse import urlencode

import numpy as np

from bench.common import SAMPLE

ATTACKS = ("decide_link", "id_column_bomb", "parquet_bomb")
SERVER_FILE = "incomes.csv"
PARQUET_COLUMNS = 13


def id_bomb_csv(rows: int) -> bytes:
    """A placeholder id (``UNKNOWN``) on ``rows`` rows, then ``rows`` ids with one row each
    (text ids: the value column stays ``income``)."""
    big = "UNKNOWN,100\n" * rows
    singles = "".join(f"id{i},100\n" for i in range(1, rows + 1))
    return ("pid,income\n" + big + singles).encode()


def parquet_bomb(rows: int) -> bytes:
    """13 float64 columns of ``rows`` zeros, zstd-compressed, written in row groups of 10⁶
    (so that making it never holds the decoded table)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    chunk = min(rows, 1_000_000)
    zeros = pa.array(np.zeros(chunk))
    names = [f"c{i}" for i in range(PARQUET_COLUMNS)]
    table = pa.table(dict.fromkeys(names, zeros))
    out = io.BytesIO()
    with pq.ParquetWriter(out, table.schema, compression="zstd") as writer:
        left = rows
        while left > 0:
            writer.write_table(table.slice(0, min(chunk, left)))
            left -= chunk
    return out.getvalue()


def decide_link() -> dict[str, str]:
    """The hostile Decide link's query string (a server dataset named :data:`SERVER_FILE`)."""
    from dpsum_core.mechanisms.registry import ALGORITHMS
    from dpsum_core.simulate.config import ExperimentConfig
    from dpsum_ui import decide, share

    config = ExperimentConfig(upper=20_001.0, bins=5000, algorithms=ALGORITHMS,
                              truncations=("none", "svt", "recursive"))  # fmt: skip
    params = share.config_to_query(config, sample=None, server=SERVER_FILE, column="income")
    params.update(share.view_to_query(decide.VIEW, {"decide_target": "5", "decide_above": 10.0}))
    return params


def attack_files(data_dir: str, *, id_rows: int = 100_000, parquet_rows: int = 1_000_000) -> dict:
    """The server dataset of the Decide link (copied into ``data_dir``) and the two bombs."""
    shutil.copy(SAMPLE, Path(data_dir) / SERVER_FILE)
    return {
        "decide_query": decide_link(),
        "id_csv": id_bomb_csv(id_rows),
        "parquet": parquet_bomb(parquet_rows),
    }


class Attacker:
    """One browser session (a new context) firing one attack."""

    def __init__(self, browser, url: str, files: dict) -> None:
        from tests.e2e.conftest import new_context

        self.url, self.files = url, files
        self.context = new_context(browser)
        self.page = self.context.new_page()
        self.page.set_default_timeout(60_000)
        self.name = ""
        self.started = time.perf_counter()

    def fire(self, name: str) -> None:
        """Start attack ``name`` and return without waiting for the server's work."""
        from tests.e2e.conftest import choose, upload_data, wait_idle

        self.name, page = name, self.page
        if name == "decide_link":
            self.started = time.perf_counter()
            page.goto(f"{self.url}/decide?{urlencode(self.files['decide_query'])}",
                      wait_until="commit")  # fmt: skip
            return
        page.goto(f"{self.url}/data")
        wait_idle(page)
        if name == "id_column_bomb":
            upload_data(page, {"name": "ids.csv", "mimeType": "text/csv",
                               "buffer": self.files["id_csv"]})  # fmt: skip
            page.locator(".st-key-data_id_column input").wait_for(timeout=120_000)
            wait_idle(page, 120_000)
            self.started = time.perf_counter()
            # the quadratic part (issue 27.1) starts here
            choose(page, "data_id_column", "Rows of the same person are identified by column pid")
            return
        self.started = time.perf_counter()
        upload_data(page, {"name": "zeros.parquet", "mimeType": "application/octet-stream",
                           "buffer": self.files["parquet"]})  # fmt: skip

    def settle(self, timeout_s: float) -> dict:
        """Wait up to ``timeout_s`` for the page to be idle; what it shows then."""
        from tests.e2e.conftest import ERROR, EXCEPTION, IDLE

        page = self.page
        try:
            page.wait_for_timeout(500)  # let the script run begin before looking for idle
            page.locator(IDLE).wait_for(timeout=max(1.0, timeout_s) * 1000)
            timed_out = False
        except Exception:  # still running: the attack is skipped, its tab closed
            timed_out = True
        errors = page.locator(ERROR).all_inner_texts() if not timed_out else []
        refused = any("would take about" in e or "Nothing was run" in e for e in errors)
        return {
            "outcome": "timed out (skipped)" if timed_out else "refused" if refused
            else "error shown" if errors else "finished",
            "timed_out": timed_out,
            "seconds_to_settle": round(time.perf_counter() - self.started, 1),
            "page_errors": [e[:300] for e in errors],
            "exceptions": 0 if timed_out else page.locator(EXCEPTION).count(),
        }

    def close(self) -> None:
        """Close the tab (its session goes away)."""
        self.context.close()
