"""The release path: what is written (and never written), refusals, the kept budget."""

from __future__ import annotations

import json
import math
import os
import re
import signal
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpsum_core.cli import main
from dpsum_core.data.domain import histogram
from dpsum_core.data.reading import load_column
from dpsum_core.errors import DataError, ParameterError
from dpsum_core.noise import OpenDPNoise, SimulatedNoise
from dpsum_core.publish import ledger
from dpsum_core.publish.release import (
    _release_with,
    expected_error,
    plan_release,
    release,
    release_plan,
)
from dpsum_core.publish.report import (
    RELEASE_FILES,
    headline,
    report_html,
    report_markdown,
    write_release,
)
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import inputs_for, run_experiment
from tests.core.release_files import release_endings, release_file

ROOT = Path(__file__).resolve().parents[2]
SMALL = str(ROOT / "sample_data" / "incomes_small.csv")
UPPER = 800_000.0


@pytest.fixture(scope="module")
def data():
    return load_column(SMALL, upper=UPPER)


def _release_cli(out, *extra, workload="Q2", epsilon="0.5"):
    return main(
        ["release", "--data", SMALL, "--workload", workload, "--epsilon", epsilon,
         "--out", str(out), *extra]
    )  # fmt: skip


# --------------------------------------------------------------------------------------------
# What is written
# --------------------------------------------------------------------------------------------
def test_release_writes_only_the_files_of_the_contract(tmp_path, capsys):
    out = tmp_path / "out"
    code = _release_cli(out, "--algorithm", "tamm", "--truncation", "svt")
    assert code == 0
    assert release_endings(out) == ["answers.csv", "release.json", "report.html", "report.md"]
    captured = capsys.readouterr()
    for path in out.iterdir():  # the success line lists every file written
        assert str(path) in captured.out, captured.out
    answers = pd.read_csv(release_file(out, "answers.csv"))
    record = json.loads(release_file(out, "release.json").read_text())
    assert list(answers.columns) == [
        "threshold", "private_answer", "lower_95", "upper_95", "bias_bounded", "lower_97_5",
        "upper_97_5", "gated", "above_theta",
    ]  # fmt: skip  # no ± of the noise alone (it ignores the bias)
    assert len(answers) == 100  # Q2: one row per query
    assert np.all(np.diff(answers.private_answer) >= 0)  # isotonic by default
    assert set(record) == {
        "column", "unit_of_privacy", "id_column", "config", "budget", "theta", "intervals", "versions",
        "created", "engine", "gated_thresholds", "above_theta_thresholds",
    }  # fmt: skip
    assert record["engine"] == "memory"  # the engine that computed the summary (public)
    assert record["column"] == "income"  # what was summed (the report's command sums it again)
    assert record["unit_of_privacy"] == "one row = one person" and record["id_column"] is None
    assert set(record["budget"]) == {"epsilon_theta", "epsilon_measure", "total"}
    assert math.isclose(record["budget"]["epsilon_theta"], 0.05)
    assert math.isclose(record["budget"]["total"], 0.5)
    assert record["config"]["algorithm"] == "tamm" and record["config"]["truncation"] == "svt"
    assert "seed" not in record["config"] and "trials" not in record["config"]
    assert record["versions"]["opendp"] == "0.16.0" or record["versions"]["opendp"]
    assert isinstance(record["theta"], float)
    assert "NOT FOR PUBLICATION" in captured.err and "rows read" in captured.err
    assert "rows read" not in captured.out  # the cleaning report stays on stderr


# The report's chart is an SVG data URI drawn from the answers and their intervals only
# (dpsum_core.publish.chart): its base64 text and pixel coordinates are not numbers of the data.
CHART = re.compile(r"data:image/svg\+xml;base64,[A-Za-z0-9+/=]+")


def _numbers_in(path: Path) -> list[float]:
    """Every number written in a file, as text (so nothing hides in a string field)."""
    return _numbers_in_text(CHART.sub("", path.read_text()))


def _private_statistics(data, config) -> np.ndarray:
    """What must never be written: true answers (raw and binned), N, histogram counts,
    counts at the thresholds, and the cleaning counts."""
    inputs = inputs_for(data, config)
    w = inputs.workload
    binned = w.prefix(config.domain.bin_weights * inputs.x)
    report = data.report.as_dict()
    values = [
        inputs.true_answers, binned, [data.size], histogram(data, config.domain),
        data.count_at_most(w.thresholds), [v for v in report.values() if isinstance(v, int)],
    ]  # fmt: skip
    return np.unique(np.concatenate([np.ravel(np.asarray(v, float)) for v in values]))


def _leaks(paths: list[Path], private: np.ndarray, public: set[float]) -> list[float]:
    """Numbers in the files that equal a private statistic and are not a public parameter."""
    found = []
    for path in paths:
        for number in _numbers_in(path):
            if number in public:
                continue
            if np.any(np.isclose(private, number, rtol=1e-9, atol=0)):
                found.append(number)
    return found


def _public_numbers(record: dict, answers: pd.DataFrame, rel=None) -> set[float]:
    """Numbers the custodian chose (configuration, versions, time), the public thresholds and,
    given the release, the report's template: the report of the same release with every
    answer and ± set to 0 (its fixed text, style sheet, θ, and the ε split)."""
    public = set(answers.threshold.astype(float))
    for key in ("config", "versions", "created"):
        public |= set(_numbers_in_text(json.dumps(record[key])))
    if rel is not None:
        zeros = np.zeros_like(rel.private_answers)
        zero = replace(rel, private_answers=zeros, noise_halfwidth=zeros,
                       intervals=replace(rel.intervals, lower=zeros, upper=zeros))  # fmt: skip
        template = report_markdown(zero, dataset="incomes_small.csv")
        public |= set(_numbers_in_text(template + report_html(template)))
        # how many intervals are open above: a function of the released θ
        public |= {float(rel.intervals.bias_bounded.sum()), float((~rel.intervals.bias_bounded).sum())}
        # the headline's typical ± and its share of the answer: ratios of published numbers
        public |= set(_numbers_in_text(headline(rel, dataset="incomes_small.csv")))
        # the report's table: the published answers and interval ends, rounded (a round end
        # such as 156,000 can equal a binned sum, a multiple of the bin width, by chance);
        # the same values unrounded are scanned in answers.csv
        table = [line for line in report_markdown(rel, dataset="incomes_small.csv").splitlines()
                 if re.match(r"^\| -?[\d,.]+ \| ", line)]  # fmt: skip
        public |= set(_numbers_in_text("\n".join(table)))
    return public


def _numbers_in_text(text: str) -> list[float]:
    """Numbers as written, "1,234,567.5" read whole (the report groups thousands)."""
    found = re.findall(r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", text)
    return [float(t.replace(",", "")) for t in found]


@pytest.mark.parametrize(
    ("algorithm", "truncation", "cap"),
    [("identity", "none", None), ("sqm", "svt", None), ("workload", "recursive", None),
     ("tamm", "fixed", None), ("rawsum", None, None), ("timm", "svt", None),
     ("sqm", "recursive", None), ("tamm", "recursive", None), ("clampshells", None, None),
     ("clampshells", None, 150_000.0)],
)  # fmt: skip
def test_no_number_in_the_files_is_a_true_answer_n_or_a_count(tmp_path, data, algorithm, truncation, cap):
    capped = {} if cap is None else {"public_cap": cap, "algorithms": ("clampshells",)}
    config = ExperimentConfig(workload="Q2", epsilon=0.5, truncation_params={"theta": 100_000.0},
                              **capped)  # fmt: skip
    # One seeded draw (numpy's sampler; the files are written as for OpenDP's): comparing about
    # 500 noisy numbers with the private ones at a relative 10⁻⁹ collides by chance about once
    # in 10⁴ unseeded releases (a CI run saw ClampShells publish 255,983,759, the true sum at
    # τ = 320,000 and 328,000, by a draw within 0.26 of it); seeded, the test is the same on
    # every run and a real leak, which copies a private number whatever the draw, still fails it.
    plan = plan_release(config, algorithm=algorithm, truncation=truncation)
    rel = _release_with(data, plan, SimulatedNoise(np.random.default_rng(11)), None)
    paths = write_release(rel, tmp_path, dataset="incomes_small.csv")
    assert [p.name.rsplit("_", 1)[-1] for p in paths] == list(RELEASE_FILES)
    private = _private_statistics(data, config)
    record = json.loads(paths[1].read_text())
    public = _public_numbers(record, pd.read_csv(paths[0]), rel)
    assert _leaks(paths, private, public) == []
    # The private answers are noisy: none equals its true answer.
    y = inputs_for(data, config).true_answers
    assert not np.any(np.isclose(rel.private_answers, y, rtol=1e-12))
    text = paths[1].read_text()
    for word in ("rows_", "cleaning", "true_answer", "histogram", "count"):
        assert word not in text


@pytest.mark.parametrize(("algorithm", "truncation"), [("identity", "none"), ("tamm", "svt")])
def test_a_release_by_person_states_its_unit_and_leaks_no_count(tmp_path, algorithm, truncation):
    """With a privacy identifier: release.json and the report name the unit, and no number in
    the files is a count of rows or people, a true answer or a histogram count."""
    incomes = pd.read_csv(SMALL).iloc[:, 0]
    table = tmp_path / "people.csv"
    pd.DataFrame({"pid": np.arange(incomes.size) // 3, "income": incomes}).to_csv(table)
    data = load_column(table, upper=UPPER, column="income", id_column="pid")
    assert data.report.people == (incomes.size + 2) // 3
    config = ExperimentConfig(workload="Q2", epsilon=0.5)
    rel = release(data, config, algorithm=algorithm, truncation=truncation)
    (tmp_path / "out").mkdir()
    paths = write_release(rel, tmp_path / "out", dataset="people.csv")
    record = json.loads(paths[1].read_text())
    unit = "one person = all rows with the same 'pid'"
    assert record["unit_of_privacy"] == unit and record["id_column"] == "pid"
    assert unit in paths[3].read_text() and "pid" in paths[2].read_text()
    public = _public_numbers(record, pd.read_csv(paths[0]), rel)
    assert _leaks(paths, _private_statistics(data, config), public) == []
    for word in ("rows_", "cleaning", "people", "count"):
        assert word not in paths[1].read_text()


def test_the_leak_scan_finds_a_leaked_n_true_answer_or_count(tmp_path, data):
    """Negative control: the scan above flags each kind of leak when one is planted."""
    config = ExperimentConfig(workload="Q2", epsilon=0.5)
    rel = release(data, config, algorithm="identity", truncation="none")
    paths = write_release(rel, tmp_path, dataset="incomes_small.csv")
    private = _private_statistics(data, config)
    record = json.loads(paths[1].read_text())
    public = _public_numbers(record, pd.read_csv(paths[0]), rel)
    y = inputs_for(data, config).true_answers
    x = histogram(data, config.domain)
    # (A count that equals a public number, e.g. a bin holding 1 record, cannot be told apart
    # from the configuration's 1s: the scan skips public numbers, so plant distinctive ones.)
    # The cleaning count planted is rows_read: a small one (e.g. 5 clipped values) can equal a
    # digit of the public timestamp or a version number, which the scan rightly skips.
    for planted in (data.size, float(y[7]), float(x.max()), data.report.rows_read):
        leaky = {**record, "budget": {**record["budget"], "note": planted}}
        paths[1].write_text(json.dumps(leaky))
        assert _leaks(paths, private, public) == [planted]
    paths[1].write_text(json.dumps(record))
    report = paths[3].read_text()
    for planted in (data.size, float(y[7])):  # the report is scanned too
        paths[3].write_text(report + f"\nN = {planted}\n")
        assert _leaks(paths, private, public) == [planted]


def test_two_releases_differ_and_carry_no_seed(data):
    config = ExperimentConfig(workload="Q2", epsilon=0.5)
    a = release(data, config, algorithm="identity", truncation="svt")
    b = release(data, config, algorithm="identity", truncation="svt")
    assert not np.array_equal(a.private_answers, b.private_answers)
    assert np.array_equal(a.thresholds, b.thresholds)


def test_rawsum_releases_its_posthoc_theta_and_spends_nothing_on_theta(data):
    rel = release(data, ExperimentConfig(workload="Q2", epsilon=0.5), algorithm="rawsum",
                  truncation=None)  # fmt: skip
    assert rel.config["truncation"] == "posthoc"
    assert rel.budget["epsilon_theta"] == 0.0
    assert math.isclose(rel.budget["total"], 0.5)
    assert rel.theta is None or rel.theta > 0


def test_sqm_releases_one_theta_per_query(data):
    rel = release(data, ExperimentConfig(workload="Q3", epsilon=0.5), algorithm="sqm",
                  truncation="recursive")  # fmt: skip
    assert isinstance(rel.theta, list) and len(rel.theta) == rel.thresholds.size
    assert math.isclose(rel.budget["epsilon_theta"], 0.05)


def test_no_isotonic_publishes_the_raw_noisy_answers(tmp_path):
    assert _release_cli(tmp_path, "--algorithm", "identity", "--truncation", "none",
                        "--no-isotonic", workload="Q1", epsilon="0.001") == 0  # fmt: skip
    answers = pd.read_csv(release_file(tmp_path, "answers.csv")).private_answer
    assert json.loads(release_file(tmp_path, "release.json").read_text())["config"]["isotonic"] is False
    assert np.any(np.diff(answers) < 0)  # at ε = 0.001 raw Identity answers are not monotone


# --------------------------------------------------------------------------------------------
# Refusals
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--algorithm", "tamm", "--truncation", "svt", "--seed", "1"], "takes no --seed"),
        (["--algorithm", "tamm", "--truncation", "svt", "--trials", "5"], "one trial"),
        (["--algorithm", "magic", "--truncation", "svt"], "unknown algorithm 'magic'"),
        (["--algorithm", "tamm", "--truncation", "maybe"], "unknown truncation 'maybe'"),
        (["--algorithm", "tamm"], "choose one truncation"),
        (["--algorithm", "tamm", "--truncation", "posthoc"], "posthoc is RawSum's own"),
        (["--algorithm", "rawsum", "--truncation", "svt"], "chooses θ after measuring"),
        (["--algorithm", "auto", "--truncation", "svt"], "leave the truncation out"),
        (["--algorithm", "tamm", "--truncation", "fixed"], "needs a threshold"),
        (["--algorithm", "tamm", "--truncation", "fixed", "--upper", "200", "--bins", "200",
          "--theta", "500"], "the fixed θ (500) is above U (200)"),
        (["--algorithm", "tamm", "--truncation", "svt", "--budget", "1"], "--budget needs --ledger"),
    ],
)  # fmt: skip
def test_refusals_are_one_line_with_exit_2_and_write_nothing(tmp_path, capsys, extra, message):
    out = tmp_path / "out"
    assert _release_cli(out, *extra) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert message in err[-1]
    assert all(line.startswith("dpsum:") for line in err)
    assert not list((out).glob("*_answers.csv"))


def test_seed_refused_by_the_installed_command_line(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "dpsum_core", "release", "--data", SMALL, "--algorithm", "tamm",
         "--truncation", "svt", "--seed", "0", "--out", str(tmp_path)],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "takes no --seed" in proc.stderr
    assert list(tmp_path.iterdir()) == []


class _SeededWrapper:
    """Any object with an ``add_laplace``: here seeded, so two releases with it would be
    identical (second privacy audit, P3-2: the library accepted it)."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def add_laplace(self, values, scale):
        return np.asarray(values, float) + self.rng.laplace(0.0, 1.0, np.shape(values)) * scale


class _OpenDPSubclass(OpenDPNoise):
    """dpsum's source in name only: a subclass may draw from anything."""


def test_library_refuses_seeded_numpy_noise(data):
    config = ExperimentConfig(workload="Q3")
    plan = plan_release(config, algorithm="identity", truncation="none")
    for seeded in (np.random.default_rng(0), SimulatedNoise(np.random.default_rng(0)),
                   _SeededWrapper(0), _OpenDPSubclass(), OpenDPNoise):  # fmt: skip
        with pytest.raises(ParameterError, match="takes no seed and no noise source but") as e:
            release(data, config, algorithm="identity", truncation="none", noise=seeded)
        assert "leave noise out" in str(e.value) and isinstance(e.value, ValueError)
        with pytest.raises(ParameterError, match="takes no seed"):
            release_plan(data, plan, noise=seeded)
    # dpsum's own source, left out or given, draws fresh noise each time (raw answers at
    # ε = 0.5: at Q3's ε = 0.01 isotonic regression can take every answer to 0)
    config = ExperimentConfig(workload="Q2", epsilon=0.5)
    first, second = (release(data, config, algorithm="identity", truncation="none",
                             isotonic=False, noise=n) for n in (None, OpenDPNoise()))  # fmt: skip
    assert not np.array_equal(first.private_answers, second.private_answers)


def test_releases_into_one_folder_get_names_of_their_own(tmp_path, capsys):
    assert _release_cli(tmp_path, "--algorithm", "identity", "--truncation", "none") == 0
    first = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert _release_cli(tmp_path, "--algorithm", "identity", "--truncation", "none") == 0
    after = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert len(after) == 8 and all(after[name] == body for name, body in first.items())
    stems = {name.split("_answers.csv")[0] for name in after if name.endswith("_answers.csv")}
    assert len(stems) == 2  # data, date-time and a short id: incomes_small_20261126-220141_3fa9c2
    assert all(re.fullmatch(r"incomes_small_\d{8}-\d{6}_[0-9a-f]{6}", stem) for stem in stems)


def test_a_release_never_overwrites_a_file(tmp_path, data):
    rel = release(data, ExperimentConfig(workload="Q3"), algorithm="identity", truncation="none")
    write_release(rel, tmp_path, dataset="incomes_small.csv")
    with pytest.raises(ParameterError, match="never overwrites"):
        write_release(rel, tmp_path, dataset="incomes_small.csv")


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--table", "t"], "--table and --spark-master need --engine spark"),
        (["--engine", "duckdb", "--spark-master", "x"], "need --engine spark"),
        (["--engine", "duckdb", "--data", "/no/such/folder"], "file not found"),
    ],
)
def test_engine_misuse_is_refused_in_one_line_and_spends_nothing(tmp_path, capsys, extra, message):
    """release takes --engine memory|duckdb|spark (tests/core/test_release_engines.py); a
    flag that does not fit the engine is refused (exit 2, one line) before the ledger is
    touched, and release --help offers the engines."""
    from dpsum_core.cli import build_parser

    ledger_file = tmp_path / "ledger.json"
    code = _release_cli(
        tmp_path / "out", "--algorithm", "tamm", "--truncation", "svt", "--ledger",
        str(ledger_file), *extra,
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and message in err
    assert not ledger_file.exists() and not (tmp_path / "out").exists()
    help_text = build_parser()._subparsers._group_actions[0].choices["release"].format_help()
    assert "--engine" in help_text and "--table" in help_text


# --------------------------------------------------------------------------------------------
# Expected error (the confirmation step)
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("algorithm", "truncation"), [("identity", "fixed"), ("tamm", "svt")])
def test_expected_error_matches_the_simulated_error(data, algorithm, truncation):
    config = ExperimentConfig(workload="Q3", epsilon=0.1, truncation_params={"theta": 150_000.0})
    plan = plan_release(config, algorithm=algorithm, truncation=truncation, isotonic=False)
    estimate = expected_error(data, plan)
    sim = run_experiment(data, plan.config.with_(trials=2000, seed=3)).runs[0]
    y = inputs_for(data, config).true_answers
    simulated = np.sqrt(np.mean((sim.answers - y) ** 2, axis=0))
    np.testing.assert_allclose(estimate.rmse, simulated, rtol=0.12)
    assert np.all(estimate.noise_sd <= estimate.rmse + 1e-9)
    # The share of the answer the Release page states in words: rmse ÷ |truth|.
    np.testing.assert_allclose(estimate.relative[y > 0], estimate.rmse[y > 0] / y[y > 0])


@pytest.mark.parametrize(("algorithm", "epsilon", "cap"), [
    ("clampshells", 0.01, None), ("clampshells", 0.01, 200_000.0), ("rawsum", 0.1, None),
])  # fmt: skip
def test_expected_error_of_an_algorithm_that_chooses_theta_matches_its_runs(
    data, algorithm, epsilon, cap
):
    """RawSum and ClampShells are estimated by simulating their runs: the estimate matches an
    independent simulation (another seed), a public cap's clamp bias included. The analytic
    model it replaced was 1.4× too low for ClampShells at ε = 0.01 (the tail scan) and left a
    cap's bias out."""
    config = ExperimentConfig(workload="Q2", epsilon=epsilon, public_cap=cap,
                              algorithms=(algorithm,))  # fmt: skip
    plan = plan_release(config, algorithm=algorithm, truncation=None, isotonic=False)
    estimate = expected_error(data, plan)
    sim = run_experiment(data, plan.config.with_(trials=1000, seed=3)).runs[0]
    y = inputs_for(data, plan.config).true_answers
    simulated = np.sqrt(np.mean((sim.answers - y) ** 2, axis=0))
    top = y > np.quantile(y, 0.2)  # queries with room for a relative comparison
    # the page's "typically" is the median over queries; each query within the Monte Carlo
    # spread of a heavy-tailed error over 400 runs
    assert np.median(estimate.rmse[top]) == pytest.approx(np.median(simulated[top]), rel=0.1)
    np.testing.assert_allclose(estimate.rmse[top], simulated[top], rtol=0.3)
    assert np.all(estimate.noise_sd <= estimate.rmse + 1e-9)
    if cap is not None:  # the clamp's bias at the top query shows in the estimate
        assert estimate.rmse[-1] > 1.05 * estimate.noise_sd[-1]


# --------------------------------------------------------------------------------------------
# The ledger
# --------------------------------------------------------------------------------------------
def test_ledger_sums_exactly_and_refuses_the_release_that_goes_over():
    book = ledger.Ledger(total=1.0)
    for _ in range(10):
        book.check(0.1)
        book = book.with_release({"epsilon": 0.1})
    assert book.spent == 1.0 and book.remaining() == 0.0
    with pytest.raises(ParameterError, match="over the total 1"):
        book.check(1e-4)
    again = ledger.Ledger.from_json(book.to_json())
    assert again == book


@pytest.mark.parametrize(
    "text",
    ["", "{", "[]", '{"format": "x"}', '{"format": "dpsum-ledger", "version": 9, "releases": []}',
     '{"format": "dpsum-ledger", "version": 1, "releases": [{"epsilon": -1}]}',
     '{"format": "dpsum-ledger", "version": 1, "releases": [], "total": "lots"}'],
)  # fmt: skip
def test_a_damaged_ledger_is_a_clear_error(text):
    with pytest.raises(DataError, match="ledger"):
        ledger.Ledger.from_json(text)


def test_over_budget_is_refused_with_the_ledger_unchanged(tmp_path, capsys):
    book = tmp_path / "incomes.ledger.json"
    args = ["--algorithm", "identity", "--truncation", "none", "--ledger", str(book)]
    assert _release_cli(tmp_path / "a", *args, "--budget", "1.0", epsilon="0.6") == 0
    first = json.loads(book.read_text())
    assert first["total"] == 1.0 and len(first["releases"]) == 1
    assert first["releases"][0]["epsilon"] == 0.6
    before = book.read_bytes()
    # The total recorded in the ledger is kept even when --budget is not repeated.
    assert _release_cli(tmp_path / "b", *args, epsilon="0.5") == 2
    assert "release refused" in capsys.readouterr().err
    assert book.read_bytes() == before
    assert not list((tmp_path / "b").glob("*_answers.csv"))
    assert _release_cli(tmp_path / "c", *args, epsilon="0.4") == 0  # exactly fills 1.0
    assert ledger.load(book).spent == 1.0


_SLOW_REPLACE = """
import os, sys, time
real = os.replace
def slow(src, dst):
    print("ready", flush=True)
    time.sleep(float(os.environ["PAUSE"]))
    real(src, dst)
os.replace = slow
from dpsum_core.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _slow_release(tmp_path, out, book, epsilon, pause):
    cmd = [sys.executable, "-c", _SLOW_REPLACE, "release", "--data", SMALL, "--workload", "Q3",
           "--epsilon", epsilon, "--algorithm", "identity", "--truncation", "none",
           "--out", str(tmp_path / out), "--ledger", str(book), "--budget", "1"]  # fmt: skip
    env = {**os.environ, "PAUSE": str(pause), "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, cwd=ROOT)  # fmt: skip


def test_the_ledger_survives_a_kill_mid_write(tmp_path):
    book = tmp_path / "ledger.json"
    assert _release_cli(tmp_path / "first", "--algorithm", "identity", "--truncation", "none",
                        "--ledger", str(book), epsilon="0.1") == 0  # fmt: skip
    before = book.read_bytes()
    proc = _slow_release(tmp_path, "killed", book, "0.2", pause=60)
    try:
        assert proc.stdout.readline().strip() == "ready"  # the new ledger is in its temp file
        temps = list(tmp_path.glob(".ledger-*.tmp"))
        assert len(temps) == 1 and json.loads(temps[0].read_text())["spent"] == pytest.approx(0.3)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        proc.kill()
        proc.communicate()
    assert proc.returncode == -signal.SIGKILL
    assert book.read_bytes() == before  # the old ledger, whole
    assert ledger.load(book).spent == 0.1
    assert not list((tmp_path / "killed").glob("*_answers.csv"))
    # The lock died with the process: the next release goes through.
    assert _release_cli(tmp_path / "next", "--algorithm", "identity", "--truncation", "none",
                        "--ledger", str(book), epsilon="0.1") == 0  # fmt: skip
    assert ledger.load(book).spent == pytest.approx(0.2)


def test_concurrent_releases_cannot_both_pass_the_budget_check(tmp_path):
    """A holds the lock while it writes; B, started meanwhile, must see A's spend and be
    refused (without the lock B would read the old ledger and also pass)."""
    book = tmp_path / "ledger.json"
    a = _slow_release(tmp_path, "a", book, "0.7", pause=2)
    try:
        assert a.stdout.readline().strip() == "ready"
        b = _slow_release(tmp_path, "b", book, "0.7", pause=0)
        _, b_err = b.communicate(timeout=120)
        a.communicate(timeout=120)
    finally:
        a.kill()
    assert a.returncode == 0
    assert b.returncode == 2 and "release refused" in b_err
    assert ledger.load(book).spent == 0.7
