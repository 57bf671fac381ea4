"""What is published (issue 16 §4): a stated public precision, ε as the user wrote it, the ±
of each answer's noise from public inputs only, and report.html / report.md."""

from __future__ import annotations

import html
import json
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpsum_core.cli import main
from dpsum_core.data.dataset import make_dataset
from dpsum_core.data.reading import load_column
from dpsum_core.mechanisms.registry import get
from dpsum_core.publish.release import (
    HALF_WIDTH_95,
    PUBLISHED_DIGITS,
    noise_halfwidth,
    plan_release,
    release,
)
from dpsum_core.publish.report import report_markdown
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.simulate.experiment import inputs_for
from tests.core.release_files import release_file

ROOT = Path(__file__).resolve().parents[2]
SMALL = str(ROOT / "sample_data" / "incomes_small.csv")
UPPER = 800_000.0


@pytest.fixture(scope="module")
def data():
    return load_column(SMALL, upper=UPPER)


def test_published_numbers_carry_the_stated_precision(data):
    rel = release(data, ExperimentConfig(workload="Q3", epsilon=0.5), algorithm="sqm",
                  truncation="svt")  # fmt: skip
    for x in [*rel.private_answers, *rel.noise_halfwidth, *rel.theta]:
        assert float(f"{x:.{PUBLISHED_DIGITS}g}") == x


@pytest.mark.parametrize(("epsilon", "rho", "split"), [
    ("0.7", "0.1", (0.07, 0.63)), ("0.9", "0.1", (0.09, 0.81)), ("1", "0.1", (0.1, 0.9)),
])  # fmt: skip
def test_epsilon_is_written_as_the_decimals_given(tmp_path, epsilon, rho, split):
    out = tmp_path / "out"
    assert main(["release", "--data", SMALL, "--workload", "Q3", "--algorithm", "tamm",
                 "--truncation", "svt", "--epsilon", epsilon, "--rho", rho,
                 "--out", str(out)]) == 0  # fmt: skip
    text = release_file(out, "release.json").read_text()
    budget = json.loads(text)["budget"]
    assert (budget["epsilon_theta"], budget["epsilon_measure"]) == split
    assert not re.search(r"\d\.\d*(0000000|9999999)\d", text)
    report = release_file(out, "report.md").read_text()
    assert f"ε = {epsilon}," in report and f"ε_θ = {split[0]}" in report


@pytest.mark.parametrize("algorithm", ["sqm", "identity", "workload", "timm", "tamm", "rawsum"])
def test_the_noise_halfwidth_comes_from_public_inputs_and_the_released_theta(data, algorithm):
    """The ± equals HALF_WIDTH_95·σ of the analytic noise at the released θ — and σ is the
    same on the real data and on any other dataset over the same public domain."""
    trunc = None if get(algorithm).posthoc else "svt"
    plan = plan_release(ExperimentConfig(workload="Q3", epsilon=0.5), algorithm=algorithm,
                        truncation=trunc)  # fmt: skip
    rel = release(data, plan.config, algorithm=algorithm, truncation=trunc)
    theta = np.atleast_1d(np.asarray(np.inf if rel.theta is None else rel.theta, float))
    theta = theta[None, :] if algorithm == "sqm" else theta
    other = make_dataset(pd.Series(np.linspace(0, UPPER, 77)), upper=UPPER)
    for d in (data, other):
        _, var = get(algorithm).error(inputs_for(d, plan.config), theta, plan.epsilon_measure)
        assert np.allclose(rel.noise_halfwidth, HALF_WIDTH_95 * np.sqrt(var[0]), rtol=1e-8)
    assert np.array_equal(noise_halfwidth(plan, rel.theta), rel.noise_halfwidth)


def test_the_halfwidth_covers_95_percent_of_one_laplace_draw():
    rng = np.random.default_rng(0)
    b = 3.0
    draws = rng.laplace(0, b, 200_000)
    cover = np.mean(np.abs(draws) <= HALF_WIDTH_95 * np.sqrt(2) * b)
    assert abs(cover - 0.95) < 0.003


def test_the_report_says_what_was_released_and_how_to_make_it_again(tmp_path, monkeypatch):
    out = tmp_path / "out"
    assert main(["release", "--data", SMALL, "--workload", "Q3", "--algorithm", "tamm",
                 "--truncation", "recursive", "--epsilon", "0.4", "--out", str(out),
                 "--ledger", str(tmp_path / "book.json"), "--budget", "1"]) == 0  # fmt: skip
    md = release_file(out, "report.md").read_text()
    for needle in ("incomes_small.csv", "one row = one person", "U = 800,000", "1,000 bins",
                   "must be chosen without looking at the data", "ε = 0.4", "ε_θ = 0.04",
                   "ε_m = 0.36", "TaMM", "recursive mechanism", "Released θ",
                   "95 % interval for the true answer", "bias bounded", "Answering Summation "
                   "Queries for Numerical Attributes", "ledger book.json: ε spent 0.4 of 1",
                   "dpsum 0.1.0", "OpenDP", "dpsum release --data sample:incomes_small.csv"):  # fmt: skip
        assert needle in md, needle
    assert str(tmp_path) not in md  # the custodian's folders stay private
    # a headline sentence first: what, for whom, at what ε, how accurate; then the chart
    lines = md.splitlines()
    assert lines[2].startswith("**Released 10 private sums of sample:incomes_small.csv (workload Q3, one "
                               "row per person), at ε = 0.4, with TaMM, θ chosen by the recursive")
    assert "below the answer and" in lines[2] and "of the answer" in lines[2]
    # each interval covers on its own: the headline must not promise all of them at once
    assert "each interval holds its true answer with probability at least 95 % (about 1 in 20 " \
           "may miss)" in lines[2]
    assert "the true answers lie in" not in md
    assert md.index("![Private answers and their 95 % intervals](data:image/svg+xml;base64,") < md.index(
        "| threshold τ |")
    page = release_file(out, "report.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "<script" not in page and "http" not in page
    assert page.count("<tr>") == 11  # header + Q3's ten answers
    shown = html.unescape(page).replace("\xa0", " ")  # numbers kept with their units (nbsp)
    assert "about 1 in 20 may miss" in shown and "the true answers lie in" not in shown
    # The command in the report makes the same configuration again, from any folder (a sample
    # is named sample:NAME, its files by NAME).
    assert release_file(out, "report.md").name.startswith("incomes_small_")
    command = re.search(r"^ {6}(dpsum release .*)$", md, re.M).group(1)
    again = command.split()[2:-4]  # without "dpsum release" and "--out … --ledger …"
    monkeypatch.chdir(tmp_path)
    assert main(["release", *again, "--out", str(tmp_path / "again")]) == 0
    first = json.loads(release_file(out, "release.json").read_text())["config"]
    second = json.loads(release_file(tmp_path / "again", "release.json").read_text())["config"]
    assert first == second


def test_numbers_in_the_report_carry_the_digits_their_interval_supports(data):
    rel = release(data, ExperimentConfig(workload="Q2", epsilon=0.5), algorithm="identity",
                  truncation="svt")  # fmt: skip
    md = report_markdown(rel, dataset="incomes_small.csv")
    rows = [r for r in md.splitlines() if re.match(r"^\| [\d,.]+ \| ", r)]
    assert len(rows) == rel.thresholds.size
    columns = (rel.private_answers, rel.intervals.lower, rel.intervals.upper)
    units = np.array([10.0 ** (math.floor(math.log10((hi - lo) / 2)) - 1)
                      for _, lo, hi in zip(*columns, strict=True)])  # fmt: skip
    answers = rel.private_answers
    shown: dict[float, set[str]] = {}
    for row, a, lo, hi, unit in zip(rows, *columns, units, strict=True):
        _, answer, interval, bounded = (c.strip().removesuffix(" †") for c in row.split("|")[1:-1])
        shown_lo, shown_hi = (float(v.replace(",", "")) for v in interval.strip("[]").split(", "))
        # rounded to two significant digits of the half-width (never 9 digits next to a wide
        # ±), an answer equal to others to the finest unit among them; the bounds outwards
        # (the interval shown still holds the one published)
        finest = units[answers == a].min()
        assert math.isclose(float(answer.replace(",", "")), round(a / finest) * finest,
                            abs_tol=finest / 1e6)  # fmt: skip
        shown.setdefault(float(a), set()).add(answer)
        assert shown_lo <= lo and shown_hi >= hi and shown_hi - hi < unit * 1.001
        assert bounded == "yes"
    assert all(len(texts) == 1 for texts in shown.values())  # equal answers read equal


def test_theta_equal_to_u_is_said_in_words(data):
    config = ExperimentConfig(workload="Q3", epsilon=0.5, truncation_params={"theta": UPPER})
    rel = release(data, config, algorithm="tamm", truncation="fixed")
    md = report_markdown(rel, dataset="incomes_small.csv")
    assert (
        "θ = U = 800,000, the top of the domain (nothing clamped below U; cleaning clips "
        "values above U to U (a public rule))"
    ) in md
    assert "U = 800,000, in 1,000 bins" in md  # separators, as everywhere else
    assert "no value was truncated" not in md  # values above U were clipped to U by cleaning


@pytest.mark.parametrize("algorithm, truncation, theta", [
    ("identity", "none", None), ("tamm", "fixed", 100_000.0)])  # fmt: skip
def test_no_theta_says_cleaning_clips_at_u_without_counting_the_clipped(
    algorithm, truncation, theta
):
    """No clamp point below U (θ = ∞, or θ = U) is not "no value was truncated": cleaning
    clipped the values above U to U. The words say so, and never how many values were clipped
    (a count of the data, not protected by the noise)."""
    upper = 100_000.0  # below many incomes of the sample: cleaning clips some of them
    small = load_column(SMALL, upper=upper)
    clipped = small.report.clipped_above_upper
    assert clipped > 1
    params = {} if theta is None else {"theta": theta}
    config = ExperimentConfig(workload="Q3", epsilon=0.5, upper=upper, truncation_params=params)
    rel = release(small, config, algorithm=algorithm, truncation=truncation)
    md = report_markdown(rel, dataset="s.csv")
    (line,) = [x for x in md.splitlines() if "Released θ" in x]
    assert "cleaning clips values above U to U (a public rule)" in line, line
    assert "θ = ∞" not in md and "no value was truncated" not in md
    # times (2026-11-27T06:51:09) are not counts: one could hold the clipped count by chance
    words = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\S*", "", md)
    assert not re.search(rf"\b({clipped:,}|{clipped})\b", words), md


def test_a_raised_total_is_said_in_the_report_and_on_the_success_line(tmp_path, capsys):
    book = str(tmp_path / "book.json")
    common = ["release", "--data", SMALL, "--workload", "Q3", "--algorithm", "identity",
              "--truncation", "none", "--epsilon", "0.5", "--ledger", book]  # fmt: skip
    assert main([*common, "--budget", "1", "--out", str(tmp_path / "a")]) == 0
    md = release_file(tmp_path / "a", "report.md").read_text()
    assert "raised" not in md
    capsys.readouterr()
    assert main([*common, "--budget", "2", "--raise-budget", "--out", str(tmp_path / "b")]) == 0
    printed = capsys.readouterr().out
    md = release_file(tmp_path / "b", "report.md").read_text()
    for text in (md, printed):
        assert "ε spent 1 of 2 (total raised from 1 to 2 with this release)" in text


def test_equal_answers_share_the_finest_unit_of_their_run():
    """An isotonic run of equal answers is rounded alike (a unit per row showed one answer,
    45,939, as 45,900 and 46,000); other rows keep their own unit."""
    from dpsum_core.publish.report import _answer_units

    answers = np.array([1.0, 45_939.25, 45_939.25, 45_939.25, 90_000.0])
    assert _answer_units(answers, [1.0, 100.0, 1_000.0, 10.0, 1_000.0]) == [
        1.0, 10.0, 10.0, 10.0, 1_000.0]  # fmt: skip


@pytest.mark.parametrize("upper", [200.0, 2_885.0, 250_000.0, 800_000.0, 10_000_000.0])
def test_the_chart_labels_stay_inside_the_picture(upper):
    # A tick label centred on x is about 0.6 em per character wide (digits and commas in a
    # sans-serif face are narrower): the whole label must lie inside the SVG's width. The last
    # x label ("800,000" at τ = U) was cut by the right edge.
    from dpsum_core.publish.chart import WIDTH, interval_svg

    t = np.linspace(upper / 1000, upper, 1000)
    svg = interval_svg(t, t * 40, t * 30, t * 50, title="chart")
    labels = re.findall(r'<text x="([\d.]+)" y="[\d.]+" text-anchor="middle">([^<]+)</text>', svg)
    assert len(labels) >= 4
    for x, text in labels:
        half = 0.6 * 11 * len(text) / 2
        assert float(x) - half >= 0 and float(x) + half <= WIDTH, (text, x)


@pytest.mark.parametrize(
    ("algorithm", "off_centre"),
    [(["--algorithm", "tamm", "--truncation", "fixed", "--theta", "20000"], True),
     (["--algorithm", "tamm", "--truncation", "fixed", "--theta", "800000"], False)],
)  # fmt: skip
def test_the_headline_states_each_side_of_the_intervals(tmp_path, capsys, algorithm, off_centre):
    # A fixed θ far below the large values: the truncation bias dominates and every answer sits
    # at the lower end of its interval. One "±" (half the width) said the answers were "usually
    # closer" than it while 77 % of them were further (statistician's review): the headline now
    # states the two sides, read from the published files. θ = U (no truncation bias): the two
    # sides' medians were 1.1–1.5 apart over 40 releases, far from "off centre" (2×); with θ
    # from SVT they were up to 1.9 apart in 20 (a low θ can make the bias dominate), so that
    # release may rightly say "off centre" and cannot be the centred case.
    out = tmp_path / "rel"
    assert main(["release", "--data", "sample:incomes.csv", "--upper", "800000", "--epsilon",
                 "0.1", *algorithm, "--out", str(out)]) == 0  # fmt: skip
    line = release_file(out, "report.md").read_text().splitlines()[2]
    answers = pd.read_csv(release_file(out, "answers.csv"))
    below = float(np.median(answers.private_answer - answers.lower_95))
    above = float(np.median(answers.upper_95 - answers.private_answer))
    match = re.search(r"typically reach ([\d,]+) below the answer and ([\d,]+) above it", line)
    assert match, line
    said = [float(g.replace(",", "")) for g in match.groups()]
    assert said[0] == pytest.approx(below, rel=0.05, abs=1e-9 + 0.05 * above)
    assert said[1] == pytest.approx(above, rel=0.05, abs=0.05 * below)
    assert ("off centre" in line) == off_centre
    assert "usually closer" not in line and "typically ±" not in line
