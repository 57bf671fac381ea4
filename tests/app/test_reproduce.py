"""Reproduce this (issue 19): the command shown on the Explorer, run in a subprocess on the
sample data, writes the explorer's summary.csv numbers for the same seed; Release shows its
``dpsum release`` command; an upload's path is a placeholder."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pandas as pd
from app_helpers import assert_clean, kept, new_app, run_explorer

from dpsum_core.publish.csvfile import csv_bytes
from dpsum_ui.page_state import ExplorerState
from dpsum_ui.reproduce import UPLOAD_PLACEHOLDER

ROOT = Path(__file__).resolve().parents[2]


def _codes(at) -> list[tuple[str, str]]:
    return [(c.language, c.value) for c in at.code]


def test_the_explorers_command_reproduces_its_summary_csv(tmp_path) -> None:
    at = new_app(data="incomes_small.csv", workload="Q3", trials="7", seed="11",
                 truncation="recursive", algorithms="identity,tamm,rawsum")  # fmt: skip
    at.run()
    if not at.get("code"):  # the link queued one run: press Run if it did not
        run_explorer(at)
    assert_clean(at)
    (command,) = [v for lang, v in _codes(at) if lang == "bash" and v.startswith("dpsum run")]
    (python,) = [v for lang, v in _codes(at) if lang == "python" and "run_experiment" in v]
    # a sample by name: an installed dpsum reads it from any folder (no sample_data/ there)
    assert "--seed 11" in command and "--data sample:incomes_small.csv" in command
    memo = at.session_state["_memo"]["result"]
    shown = memo[kept(at, ExplorerState).shown.key]
    expected = shown.summary()

    args = shlex.split(command.replace("\\\n", " "))
    assert args[:2] == ["dpsum", "run"]
    args[args.index("--out") + 1] = str(tmp_path / "out")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # run from a folder outside the checkout
    done = subprocess.run([sys.executable, "-m", "dpsum_core", *args[1:]], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr
    # the command writes the Explorer's download byte for byte (9 significant digits)
    assert (tmp_path / "out" / "summary.csv").read_bytes() == csv_bytes(expected)

    # The Python lines make the same numbers too.
    namespace: dict = {}
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(python, namespace)
    finally:
        os.chdir(cwd)
    pd.testing.assert_frame_equal(namespace["result"].summary().drop(columns="seconds",
                                  errors="ignore"), expected.drop(columns="seconds",
                                  errors="ignore"), check_exact=True)  # fmt: skip
    # …and write the same summary.csv bytes as the command
    assert (tmp_path / "summary.csv").read_bytes() == (tmp_path / "out" / "summary.csv").read_bytes()


def test_release_shows_its_command_with_an_uploads_path_as_a_placeholder() -> None:
    at = new_app()
    at.run()
    at.switch_page("app_pages/data.py").run()
    at.radio(key="data_source").set_value("upload").run()
    at.file_uploader(key="data_upload").set_value(
        ("mine.csv", b"pay\n" + b"\n".join(str(i * 1000).encode() for i in range(1, 90)),
         "text/csv")
    ).run()
    at.button(key="domain_keep").click().run()
    at.switch_page("app_pages/release.py").run()
    assert_clean(at)
    (command,) = [v for lang, v in _codes(at) if lang == "bash"]
    assert command.startswith("dpsum release")
    assert f"--data '{UPLOAD_PLACEHOLDER}'" in command and "mine.csv" not in command
    assert "--column pay" in command and "--algorithm" in command
