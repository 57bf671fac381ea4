"""Golden cases: what is run, and how its output is turned into plain text to compare.

The cases reach the code only from the outside, so that they survive moving the engine's
modules (issue 15): the command line as a subprocess (``python -m dpsum_core …``) and the
dashboard through ``streamlit.testing.v1.AppTest.from_file(app.py)`` opened by shared links.
Nothing here imports ``dpsum_core`` or ``dpsum_ui``.

Every case produces ``{relative file name: text}``; the test compares each text with the
recorded file with tests/golden/compare.py: names, columns, text, order and counts exactly,
numbers within a tolerance that absorbs another CPU's BLAS and SIMD kernels (last bits) and
still catches a real change. Bit-for-bit equality is checked separately, where the code
promises it: the same case run twice on one machine.

Excluded, because they legitimately differ from one run to the next (and only these):

- ``run.json`` of ``run``: ``timings`` (wall-clock seconds per configuration) and
  ``versions`` (Python/library versions).
- ``run.json`` of ``reproduce``: ``engine_seconds`` and each run's ``timings`` and
  ``versions``, for the same reasons.
- ``release.json``: ``versions``, ``created`` (the release's date and time); and ``theta``
  when the truncation is svt/recursive/posthoc, because a release draws its noise from
  OpenDP's samplers with the system's entropy and takes no seed (by design, SPEC/README), so a
  privately chosen θ differs on every release (and with it, the counts ``bias_bounded`` and
  ``open_above`` of ``intervals`` and the ``above_theta_thresholds``). A release's ``answers.csv`` keeps only its
  ``threshold`` column: ``private_answer`` is that unseeded noise. Release files are named
  ``<data>_<date-time>_<id>_…``: the stamp is replaced by ``_<date-time>_<id>_`` in printed text.
- the ledger: each entry's ``created`` (date and time); the binding's ``salt`` (random per
  ledger) and its salted content ``fingerprint`` (kept as ``content:sha256:<salted>``).
- printed text (stdout/stderr of the CLI, texts of the app): durations such as ``0.86 s`` are
  replaced by ``<seconds> s`` and the temporary folder of the run (its ``--out`` and ``--ledger``) by ``<tmp>``.
- the app's tables: the ``Seconds`` column (wall-clock time of each configuration).
- plotly figures: ``layout.template`` is replaced by the SHA-256 of its canonical JSON (it
  is large and the same in every figure; any change still fails the comparison).
- nothing else is excluded, but ``reproduce`` needs ≥ 100 bins (Q3 is every 100th edge),
  which makes its Q1 rows and its Q1/Q2 figures large: those are stored as fingerprints
  (compare.fingerprint: per column or key path, the count, sum, sum of magnitudes and
  position-weighted sum of the numbers, the rest by SHA-256), compared with the same
  tolerance; its Q2/Q3 summary rows and Q3 figures are stored literally. The engine and figure code behind them is stored
  literally by the ``run`` and app cases.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from .compare import csv_columns, fingerprint, json_paths

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "outputs"
APP = ROOT / "app.py"
SMALL = "sample_data/incomes_small.csv"
FULL = "sample_data/incomes.csv"
ALL_ALGORITHMS = "sqm,identity,workload,timm,tamm,rawsum"
ALL_TRUNCATIONS = "none,fixed,svt,recursive"

_STAMP = re.compile(r"_\d{8}-\d{6}_[0-9a-f]{6}_")
_SECONDS = re.compile(r"\b\d+(?:\.\d+)? s\b")


def canonical_json(value) -> str:
    """JSON text with sorted keys, one key per line and each list of plain values on one line
    (short files, readable diffs); floats as ``repr`` (exact), NaN/Infinity as Python's json
    writes them."""
    return _json(value, "") + "\n"


def _json(value, indent: str) -> str:
    inner = indent + " "
    if isinstance(value, dict) and value:
        items = [
            f"{inner}{json.dumps(str(k), ensure_ascii=False)}: {_json(value[k], inner)}"
            for k in sorted(value)
        ]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    if isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
        return "[\n" + ",\n".join(inner + _json(v, inner) for v in value) + "\n" + indent + "]"
    return json.dumps(value, ensure_ascii=False)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _scrub(text: str, out: str | None = None) -> str:
    if out:
        text = text.replace(out, "<tmp>")
    text = _STAMP.sub("_<date-time>_<id>_", text)  # a release's file names (unique per release)
    return _SECONDS.sub("<seconds> s", text)


# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CliCase:
    """``python -m dpsum_core <argv> [--out <tmp>]``; ``out=False`` for help and refusals."""

    name: str
    argv: tuple[str, ...]
    kind: str  # run | reproduce | release | text (stdout, stderr and exit status only)
    out: bool = True
    ledger: bool = False
    seeded_theta: bool = False  # release: θ is public (none/fixed), so it is compared


# fmt: off
# run and reproduce with --no-png: their images depend on a browser being installed (and cost
# ≈5 s each); their figures.html is written either way.
CLI_CASES: tuple[CliCase, ...] = (
    # every algorithm × every truncation method, Q1 on a small domain (16 bins)
    CliCase("run_q1_all", ("run", "--data", SMALL, "--workload", "Q1", "--bins", "16",
            "--algorithms", ALL_ALGORITHMS, "--truncation", ALL_TRUNCATIONS,
            "--theta", "100000", "--trials", "4", "--seed", "7", "--no-png"), "run"),
    # the same on the default 1000-bin domain, every:200 (5 queries), other ε and ρ
    CliCase("run_every200_all", ("run", "--data", FULL, "--workload", "every:200",
            "--algorithms", ALL_ALGORITHMS, "--truncation", ALL_TRUNCATIONS,
            "--theta", "50000", "--rho", "0.25", "--epsilon", "0.05", "--trials", "5",
            "--seed", "3", "--no-png"), "run"),
    # values: workload, clipping by U, midpoint weights, every truncation parameter set
    CliCase("run_values_params", ("run", "--data", FULL,
            "--workload", "values:1000,50000,100001,590000", "--upper", "600000",
            "--bins", "300", "--weights", "midpoint", "--svt-variant", "tight",
            "--svt-r", "0.99", "--svt-c", "1.5", "--svt-s", "20000", "--rm-beta", "0.003",
            "--rm-theta0", "40000", "--rm-mu", "0.4", "--epsilon", "0.1", "--rho", "0.3",
            "--delta", "50", "--algorithms", ALL_ALGORITHMS, "--truncation", ALL_TRUNCATIONS,
            "--theta", "250000", "--trials", "6", "--seed", "11", "--no-png"), "run"),
    # the out-of-core engine (data summary, second pass) on Q3
    CliCase("run_duckdb_q3", ("run", "--data", SMALL, "--engine", "duckdb", "--workload", "Q3",
            "--algorithms", ALL_ALGORITHMS, "--truncation", "none,svt,recursive",
            "--trials", "3", "--seed", "2", "--no-png"), "run"),
    CliCase("reproduce_small", ("reproduce", "--data", SMALL, "--bins", "100", "--trials", "2",
            "--seed", "4", "--no-png"), "reproduce"),
    # releases: only what does not depend on the (unseeded, by design) noise is compared
    CliCase("release_tamm_fixed_noiso", ("release", "--data", SMALL, "--workload", "Q3",
            "--algorithm", "tamm", "--truncation", "fixed", "--theta", "100000",
            "--no-isotonic", "--budget", "0.05"), "release", ledger=True, seeded_theta=True),
    CliCase("release_identity_none_iso", ("release", "--data", SMALL, "--workload", "every:250",
            "--algorithm", "identity", "--truncation", "none", "--epsilon", "0.5"), "release",
            seeded_theta=True),
    CliCase("release_sqm_svt", ("release", "--data", FULL, "--workload", "values:5000,400000",
            "--algorithm", "sqm", "--truncation", "svt", "--rho", "0.2",
            "--svt-variant", "tight"), "release"),
    CliCase("release_workload_recursive", ("release", "--data", SMALL, "--workload", "Q3",
            "--algorithm", "workload", "--truncation", "recursive", "--rm-mu", "0.3"),
            "release"),
    CliCase("release_rawsum", ("release", "--data", SMALL, "--workload", "Q3",
            "--algorithm", "rawsum"), "release"),
    # refusals: one line on stderr, exit status 2
    CliCase("refuse_release_seed", ("release", "--data", SMALL, "--algorithm", "tamm",
            "--truncation", "svt", "--seed", "3"), "text"),
    CliCase("refuse_rawsum_svt", ("release", "--data", SMALL, "--algorithm", "rawsum",
            "--truncation", "svt"), "text"),
    CliCase("refuse_over_budget", ("release", "--data", SMALL, "--algorithm", "tamm",
            "--truncation", "svt", "--budget", "0.005"), "text", ledger=True),
    CliCase("refuse_bad_workload", ("run", "--data", SMALL, "--workload", "every:5000",
            "--trials", "2"), "text"),
    CliCase("refuse_bad_truncation", ("run", "--data", SMALL, "--truncation", "clamp",
            "--trials", "2"), "text"),
    # help texts carry the engine's defaults
    CliCase("help_run", ("run", "--help"), "text", out=False),
    CliCase("help_release", ("release", "--help"), "text", out=False),
    CliCase("help_reproduce", ("reproduce", "--help"), "text", out=False),
)
# fmt: on


def _env() -> dict[str, str]:
    env = dict(os.environ)
    # argparse wraps --help to the terminal's width; fix it so the text does not depend on it
    env.update(COLUMNS="100", LINES="50", PYTHONIOENCODING="utf-8")
    return env


def run_cli(case: CliCase) -> dict[str, str]:
    """Run one CLI case in a fresh folder and return its normalised outputs."""
    with tempfile.TemporaryDirectory(prefix="dpsum-golden-") as tmp:
        out = str(Path(tmp) / "out")
        argv = list(case.argv)
        if case.out:
            argv += ["--out", out]
        if case.ledger:
            argv += ["--ledger", str(Path(tmp) / "ledger.json")]
        proc = subprocess.run(
            [sys.executable, "-m", "dpsum_core", *argv],
            cwd=ROOT,
            env=_env(),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        files = {
            "exit_status.txt": f"{proc.returncode}\n",
            "stdout.txt": _scrub(proc.stdout, tmp),
            "stderr.txt": _scrub(proc.stderr, tmp),
        }
        folder = Path(out)
        if case.kind != "text" and proc.returncode != 0:
            raise RuntimeError(f"{case.name} exited with {proc.returncode}: {proc.stderr}")
        if case.kind == "run":
            files.update(_run_files(folder))
        elif case.kind == "reproduce":
            files.update(_reproduce_files(folder))
        elif case.kind == "release":
            files.update(_release_files(folder, case))
        if case.ledger and (Path(tmp) / "ledger.json").exists():
            book = json.loads((Path(tmp) / "ledger.json").read_text())
            for entry in book.get("releases", []):
                entry.pop("created", None)
            bound = book.get("dataset") or {}
            if "salt" in bound:  # random per ledger, and the digest with it
                bound["salt"] = "<salt>"
                bound["fingerprint"] = bound["fingerprint"].split(":")[0] + ":sha256:<salted>"
            files["ledger.json"] = canonical_json(book)
        return {f"cli/{case.name}/{k}": v for k, v in files.items()}


def _run_files(out: Path) -> dict[str, str]:
    info = json.loads((out / "run.json").read_text())
    info.pop("timings")
    info.pop("versions")
    return {
        "answers.csv": (out / "answers.csv").read_text(),
        "summary.csv": (out / "summary.csv").read_text(),
        "run.json": canonical_json(info),
        "NOTICE.txt": (out / "NOTICE.txt").read_text(),
    }


def _reproduce_files(out: Path) -> dict[str, str]:
    info = json.loads((out / "run.json").read_text())
    info.pop("engine_seconds")
    for run in info["runs"]:
        run.pop("timings")
        run.pop("versions")
    lines = (out / "summary.csv").read_text().splitlines(keepends=True)
    header, rows = lines[0], lines[1:]
    q1 = [r for r in rows if r.startswith('"Q1",')]
    rest = [r for r in rows if not r.startswith('"Q1",')]
    assert len(q1) + len(rest) == len(rows) and q1 and rest
    figures = _html_figures((out / "figures.html").read_text())
    shown, summarised = [], {}
    for title, spec in figures:
        if ", Q3," not in title:
            summarised[title] = fingerprint(json_paths(spec))
        else:
            shown.append({"title": title, "figure": spec})
    return {
        "run.json": canonical_json(info),
        "summary_Q2_Q3.csv": header + "".join(rest),
        "summary_Q1.fingerprint.json": canonical_json(
            {"rows": len(q1), "header": header,
             "columns": fingerprint(csv_columns(header + "".join(q1)))}
        ),
        "figures_Q3.json": canonical_json(shown),
        "figures_Q1_Q2.fingerprint.json": canonical_json(summarised),
        "figure_titles.txt": "".join(f"{t}\n" for t, _ in figures),
        "NOTICE.txt": (out / "NOTICE.txt").read_text(),
    }


_H2 = re.compile(r"<h2>(.*?)</h2>")
_NEWPLOT = re.compile(r'Plotly\.newPlot\(\s*"[^"]+",\s*')


def _html_figures(html: str) -> list[tuple[str, dict]]:
    """(heading, {"data", "layout"}) of every figure of a report page (the div ids are random
    uuids and are dropped; plotly.js itself is not compared)."""
    decoder = json.JSONDecoder()
    out = []
    titles = _H2.findall(html)
    starts = [m.end() for m in _NEWPLOT.finditer(html)]
    assert len(titles) == len(starts), (len(titles), len(starts))
    for title, start in zip(titles, starts, strict=True):
        data, end = decoder.raw_decode(html, start)
        rest = html[end:].lstrip()
        assert rest.startswith(",")
        layout, _ = decoder.raw_decode(rest[1:].lstrip())
        out.append((title, normal_figure({"data": data, "layout": layout})))
    return out


def _release_files(out: Path, case: CliCase) -> dict[str, str]:
    files: dict[str, str] = {}
    found = sorted(out.glob("*_release.json"))  # each release names its own files
    if not found:
        return files
    info = json.loads(found[0].read_text())
    info.pop("versions")
    info.pop("created")
    if not case.seeded_theta:
        info.pop("theta", None)
        info.pop("above_theta_thresholds", None)  # the τ that θ moves follow θ
        # how many intervals are open above follows the privately chosen θ (SQM)
        for key in ("bias_bounded", "open_above"):
            info.get("intervals", {}).pop(key, None)
    files["release.json"] = canonical_json(info)
    lines = next(out.glob("*_answers.csv")).read_text().splitlines()
    files["answers_thresholds.txt"] = "".join(line.split(",")[0] + "\n" for line in lines)
    return files


# ---------------------------------------------------------------------------------------------
# Dashboard (AppTest)
# ---------------------------------------------------------------------------------------------
def decode(value):
    """Plotly ≥ 6 typed arrays ``{"dtype","bdata","shape"}`` → nested lists (exact values)."""
    import numpy as np

    if isinstance(value, dict):
        if "bdata" in value and "dtype" in value:
            array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
            if "shape" in value:
                shape = value["shape"]
                shape = [int(s) for s in shape.split(",")] if isinstance(shape, str) else shape
                array = array.reshape(shape)
            return {"dtype": value["dtype"], "values": array.tolist()}
        return {k: decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode(v) for v in value]
    return value


def normal_figure(spec: dict) -> dict:
    spec = decode(spec)
    layout = spec.get("layout", {})
    if "template" in layout:
        layout["template"] = {"sha256": sha256(canonical_json(layout["template"]))}
    return spec


@dataclass(frozen=True)
class AppCase:
    """A shared link opened on ``page`` (``None``: the default page, Workload explorer);
    ``tabs``: also open each tab of these tab groups, by label, one after the other;
    ``expanders``: open these expanders (keys) before the snapshot, for the pages that build
    an expander's content only while it is open."""

    name: str
    query: dict[str, str]
    page: str | None = None
    tabs: tuple[str, ...] = ()
    expanders: tuple[str, ...] = ()


EXPLORER_TABS = ("explorer_tab",)
TEACH_OPEN = ("teach_all_box",)  # every algorithm's θ curves
DECIDE_OPEN = ("decide_table",)  # the curves as tables

# fmt: off
APP_CASES: tuple[AppCase, ...] = (
    AppCase("explorer_q3_svt_iso", {"data": "incomes.csv", "column": "income", "workload": "Q3",
            "truncation": "svt", "trials": "10", "seed": "5", "iso": "1"}, tabs=EXPLORER_TABS),
    AppCase("explorer_every100_recursive_noiso", {"data": "incomes_small.csv",
            "workload": "every:100", "truncation": "recursive", "rm_theta0": "40000",
            "rm_mu": "0.4", "rho": "0.3", "algorithms": "identity,timm,tamm,rawsum",
            "trials": "8", "seed": "9", "iso": "0"}, tabs=EXPLORER_TABS),
    AppCase("explorer_values_fixed", {"data": "incomes_small.csv",
            "workload": "values:1000,50000,100001", "truncation": "fixed", "theta": "100000",
            "trials": "5", "seed": "1", "iso": "1"}, tabs=EXPLORER_TABS),
    AppCase("explorer_every250_none_midpoint", {"data": "incomes.csv", "workload": "every:250",
            "truncation": "none", "epsilon": "0.1", "weights": "midpoint", "trials": "5",
            "seed": "2", "iso": "1"}, tabs=EXPLORER_TABS),
    AppCase("compare_grid_error_and_sweep", {"data": "incomes.csv", "workload": "Q3",
            "trials": "10", "seed": "8", "view": "error", "sweep": "0.01,1"},
            page="app_pages/compare.py"),
    AppCase("compare_heatmap_small", {"data": "incomes_small.csv", "workload": "every:250",
            "trials": "6", "seed": "3", "view": "heatmap", "epsilon": "0.1",
            "sweep": "0.01,0.1,1", "sweep_truncation": "recursive"},
            page="app_pages/compare.py"),
    AppCase("compare_answers_view", {"data": "incomes_small.csv", "workload": "Q3",
            "trials": "5", "seed": "4", "view": "answers"}, page="app_pages/compare.py"),
    AppCase("single_query_tamm", {"data": "incomes.csv", "workload": "Q3", "tau": "240000",
            "theta": "80000", "algorithm": "tamm"}, page="app_pages/single_query.py",
            expanders=TEACH_OPEN),
    AppCase("single_query_sqm_private", {"data": "incomes_small.csv", "workload": "Q3",
            "epsilon": "0.1", "tau": "80000", "theta": "200000", "algorithm": "sqm",
            "private": "1"}, page="app_pages/single_query.py", expanders=TEACH_OPEN),
    AppCase("decide_simulate", {"data": "incomes.csv", "workload": "Q3", "trials": "10",
            "seed": "6", "target": "3", "above": "10", "simulate": "1"},
            page="app_pages/decide.py", expanders=DECIDE_OPEN),
    AppCase("decide_no_simulation", {"data": "incomes.csv", "workload": "Q3", "target": "7",
            "above": "20", "truncation": "none,svt"}, page="app_pages/decide.py",
            expanders=DECIDE_OPEN),
)
# fmt: on

_TEXT_KINDS = ("title", "header", "subheader", "markdown", "caption", "info", "warning",
               "success", "error", "code", "latex", "text")  # fmt: skip


def _clear_caches() -> None:
    import streamlit as st

    st.cache_data.clear()
    st.cache_resource.clear()


def _open(case: AppCase):
    """A new session opened by the case's link (as tests/app/test_sharing.py does: AppTest
    cannot start on a page whose url_path differs from its file name, so the session runs
    once bare, switches page, and reads the link as on its first run)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(APP), default_timeout=120)
    if case.page is None:
        at.query_params.update(case.query)
        return at.run()
    at.run()
    at.switch_page(case.page)
    at.query_params.update(case.query)
    at.session_state["_link_checked"] = False
    for key in case.expanders:
        at.session_state[key] = True
    return at.run()


def _snapshot(at) -> dict:
    """Everything shown that carries results: figures, tables, metrics, texts, the link."""
    assert not at.exception, [e.value for e in at.exception]
    shown: dict = {
        "charts": [normal_figure(json.loads(el.proto.spec)) for el in at.get("plotly_chart")],
        "dataframes": [_frame_csv(el.value) for el in at.dataframe],
        "tables": [_frame_csv(el.value) for el in at.table],
        "metrics": [{"label": m.label, "value": m.value, "delta": m.delta} for m in at.metric],
        "texts": {},
        "link": {k: at.query_params[k] for k in sorted(at.query_params)},
    }
    for kind in _TEXT_KINDS:
        values = [_scrub(str(e.value)) for e in at.get(kind)]
        if values:
            shown["texts"][kind] = values
    return shown


def _difference(snap: dict, opened: dict) -> dict:
    """What a tab shows, with each part equal to the opened page's written as "same as opened"
    (shorter files; the comparison is as exact)."""
    same = "same as opened"
    out = {k: same if v == opened.get(k) else v for k, v in snap.items() if k != "texts"}
    out["texts"] = {k: same if v == opened["texts"].get(k) else v for k, v in snap["texts"].items()}
    return out


def _frame_csv(frame) -> str:
    frame = frame.drop(columns=[c for c in frame.columns if str(c) == "Seconds"])
    return frame.to_csv()


def run_app(case: AppCase) -> dict[str, str]:
    """Open one link (and each tab) and return the normalised snapshots."""
    _clear_caches()
    try:
        at = _open(case)
        snaps = {"opened": _snapshot(at)}
        for key in case.tabs:
            for label in [t.label for t in at.tabs]:
                at.session_state[key] = label
                at.run()
                snaps[f"tab {label}"] = _difference(_snapshot(at), snaps["opened"])
        return {f"app/{case.name}.json": canonical_json(snaps)}
    finally:
        _clear_caches()


# ---------------------------------------------------------------------------------------------
# All cases
# ---------------------------------------------------------------------------------------------
def all_cases() -> list[tuple[str, Callable[[], dict[str, str]]]]:
    """(name, producer) of every case; the producer returns {relative path: text}."""
    cases: list[tuple[str, Callable[[], dict[str, str]]]] = []
    cases += [(f"cli/{c.name}", partial(run_cli, c)) for c in CLI_CASES]
    cases += [(f"app/{c.name}", partial(run_app, c)) for c in APP_CASES]
    return cases
