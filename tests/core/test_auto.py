"""``auto``: the recommended algorithm (public inputs only), resolved before anything runs and
named in every output of ``dpsum run`` and ``dpsum release``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dpsum_core.cli import main
from dpsum_core.mechanisms.recommend import AUTO, asks_every_edge, recommend, resolve_auto
from dpsum_core.mechanisms.registry import label, truncation_label
from dpsum_core.publish.release import plan_release
from dpsum_core.simulate.config import ExperimentConfig
from tests.core.release_files import release_file

ROOT = Path(__file__).resolve().parents[2]
SMALL = str(ROOT / "sample_data" / "incomes_small.csv")


@pytest.mark.parametrize("epsilon", [0.01, 0.3, 5.0])
def test_config_replaces_auto_by_the_recommendation(epsilon):
    config = ExperimentConfig(epsilon=epsilon, algorithms=("auto", "identity"))
    rec = recommend(epsilon=epsilon, upper=config.upper, bins=config.bins, workload="Q1")
    assert AUTO not in config.algorithms
    assert set(config.algorithms) == {rec.algorithm, "identity"}
    # The resolved config round-trips: its JSON names what runs, not "auto".
    assert ExperimentConfig.from_json(config.to_json()) == config


def test_resolve_auto_keeps_a_name_listed_twice_once():
    rec = recommend(epsilon=0.1, upper=1000.0, bins=100, workload="Q2")
    names, got = resolve_auto((rec.algorithm, AUTO), epsilon=0.1, upper=1000.0, bins=100,
                              workload="Q2")  # fmt: skip
    assert names == (rec.algorithm,) and got == rec
    assert resolve_auto(("tamm",), epsilon=0.1, upper=1.0, bins=10, workload="Q2") == (("tamm",), None)


def test_run_names_what_auto_chose(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", "--data", SMALL, "--workload", "Q3", "--trials", "3", "--epsilon", "0.1",
                 "--algorithms", "auto", "--out", str(out)]) == 0  # fmt: skip
    rec = recommend(epsilon=0.1, upper=800_000.0, bins=1000, workload="Q3")
    info = json.loads((out / "run.json").read_text())
    assert info["auto"]["algorithm"] == rec.algorithm
    assert info["config"]["algorithms"] == [rec.algorithm]
    assert "auto chose" in info["auto"]["why"]
    printed = capsys.readouterr().out
    # the algorithm and its θ rule by their labels, never the internal ids; "1 configuration"
    assert f"auto chose {label(rec.algorithm)} ({truncation_label(rec.truncation)})" in printed
    assert f"auto chose {rec.algorithm} " not in printed
    assert any(line.startswith("1 configuration × 3 trials on ") for line in printed.splitlines())
    summary = (out / "summary.csv").read_text()
    assert rec.algorithm in summary and "auto" not in summary


@pytest.mark.parametrize("epsilon", ["0.1", "5"])
def test_release_names_what_auto_chose_in_release_json_and_report(tmp_path, epsilon):
    out = tmp_path / "out"
    assert main(["release", "--data", SMALL, "--workload", "Q3", "--epsilon", epsilon,
                 "--algorithm", "auto", "--out", str(out)]) == 0  # fmt: skip
    rec = recommend(epsilon=float(epsilon), upper=800_000.0, bins=1000, workload="Q3")
    record = json.loads(release_file(out, "release.json").read_text())
    assert record["config"]["algorithm"] == rec.algorithm
    assert record["config"]["chosen_by_auto"].startswith("auto chose")
    assert "auto chose" in release_file(out, "report.md").read_text()


def test_auto_release_plan_takes_the_recommended_truncation():
    base = ExperimentConfig(epsilon=5.0, truncations=("none",))
    plan = plan_release(base, algorithm="auto", truncation=None)
    rec = recommend(epsilon=5.0, upper=base.upper, bins=base.bins, workload=base.workload)
    assert (plan.algorithm, plan.auto is not None) == (rec.algorithm, True)
    assert plan.truncation == rec.truncation
    named = plan_release(base, algorithm=rec.algorithm, truncation=rec.truncation)
    assert named.auto is None and "chosen_by_auto" not in named.record()


@pytest.mark.parametrize(
    ("bins", "epsilon", "expected"),
    [(4, 0.01, "rawsum"), (10, 0.1, "rawsum"), (15, 1.0, "rawsum"), (16, 0.03, "clampshells"),
     (20, 0.1, "rawsum"), (23, 3.0, "rawsum"), (24, 0.1, "clampshells"), (1000, 0.3, "clampshells")],
)  # fmt: skip
def test_few_bins_recommend_rawsum(bins, epsilon, expected):
    # The statistician's review: below 16 bins the rule fell back to TaMM+SVT, the worst
    # option measured there (1.1–5,800× RawSum's error on the tuning columns). Q2: every 10th
    # edge, so the every-edge staircase below does not apply.
    assert recommend(epsilon=epsilon, upper=1000.0, bins=bins, workload="Q2").algorithm == expected


@pytest.mark.parametrize(
    ("bins", "epsilon", "workload", "expected"),
    [(24, 1.0, "Q1", "rawsum"), (48, 1.0, "Q1", "rawsum"), (49, 1.0, "Q1", "clampshells"),
     (48, 0.99, "Q1", "clampshells"), (32, 3.0, "every:1", "rawsum"), (40, 2.0, "q1", "rawsum"),
     (40, 3.0, "Q2", "clampshells"), (40, 3.0, "every:2", "clampshells"),
     (40, 3.0, "values:1000,2000", "clampshells"), (100, 3.0, "Q1", "clampshells"),
     (40, 5.0, "Q2", "rawsum"),
     # the lower step (re-measured with ClampShells' partition); not below ε = 0.3
     (24, 0.3, "every:1", "rawsum"), (28, 0.5, "Q1", "rawsum"),
     (32, 0.3, "Q1", "rawsum"), (32, 0.7, "Q1", "rawsum"), (33, 0.3, "Q1", "clampshells"),
     (24, 0.1, "Q1", "clampshells"), (28, 0.2, "Q1", "clampshells"),
     (32, 0.29, "Q1", "clampshells"), (40, 0.5, "Q1", "clampshells"),
     (28, 0.3, "Q2", "clampshells"), (32, 0.5, "every:2", "clampshells")],
)  # fmt: skip
def test_every_edge_few_bins_recommend_rawsum_on_a_staircase(bins, epsilon, workload, expected):
    # bench/ACCURACY.md "Bins 32–500 at ε ≥ 0.3" and its re-measurement with the partition: with
    # Q1 RawSum up to 32 bins from ε = 0.3 and 48 from 1 had a median within 10 % of the best in
    # 499 of 504 tuning cells (ClampShells 101) and a mean within 1.93× of the best; outside, its
    # mean was up to 53× the best on columns with only zeros in the low bins (40 bins at
    # ε = 0.1–0.4, 48 at 0.3–0.5, 56–300 from 0.5). At 24–28 bins below ε = 0.3 the reporting
    # split did not confirm a lead: ClampShells stays.
    rec = recommend(epsilon=epsilon, upper=30_000.0, bins=bins, workload=workload)
    assert rec.algorithm == expected
    if expected == "rawsum" and epsilon <= 3:
        assert rec.truncation == "posthoc" and "every edge queried" in rec.why


@pytest.mark.parametrize(
    ("workload", "expected"),
    [("Q1", True), (" q1 ", True), ("every:1", True), ("EVERY : 1", True), ("every:01", True),
     ("Q2", False), ("Q3", False), ("every:2", False), ("every:10", False),
     ("values:1,2,3", False), ("every:1,2", False)],
)  # fmt: skip
def test_asks_every_edge_reads_the_workload_text(workload, expected):
    assert asks_every_edge(workload) is expected


def test_auto_releases_at_ten_bins(tmp_path):
    out = tmp_path / "r"
    assert main(["release", "--data", "sample:incomes_small.csv", "--upper", "800000", "--bins",
                 "10", "--epsilon", "0.5", "--algorithm", "auto", "--out", str(out)]) == 0  # fmt: skip
    record = json.loads(release_file(out, "release.json").read_text())
    assert record["config"]["algorithm"] == "rawsum"


def test_the_reason_is_one_short_sentence_naming_its_inputs():
    """A teacher reads it aloud (review 9, P3): at most 30 words, naming the ε, bins and
    workload it was chosen from; 'best or within 10 %' only where that held, 'safer of the two
    best' where RawSum's median led (every edge queried below 500 bins from ε = 0.5)."""
    for epsilon, bins, workload in [(0.035, 200, "Q1"), (0.3, 1_000, "Q1"), (1.0, 200, "Q2"),
                                    (0.0001, 8, "values:1,2,3,4,5,6,7,8,9,10,11,12"),
                                    (0.5, 32, "every:1"), (5.0, 100, "Q3")]:  # fmt: skip
        why = recommend(epsilon=epsilon, upper=200.0, bins=bins, workload=workload).why
        assert len(why.split()) <= 30, why
        assert f"ε = {epsilon:g}" in why and f"{bins:,} bins" in why, why
    q1 = recommend(epsilon=0.035, upper=200.0, bins=200, workload="Q1").why
    assert q1 == ("ClampShells is recommended for ε = 0.035, 200 bins and workload Q1: it was the "
                  "best, or within 10 % of the best, in most benchmark cells like these.")
    safer = recommend(epsilon=1.0, upper=200.0, bins=200, workload="Q1").why
    assert "safer of the two best" in safer and "workload Q1" in safer
    listed = recommend(epsilon=0.3, upper=200.0, bins=200, workload="values:10,20,30").why
    assert "3 chosen thresholds" in listed


@pytest.mark.parametrize(("epsilon", "bins"), [(0.035, 200), (0.3, 200), (1.0, 200), (0.01, 20),
                                               (0.5, 1_000), (2.0, 300)])  # fmt: skip
def test_the_detail_quotes_the_numbers_of_the_workload_chosen(epsilon, bins):
    """Review 9: the Release page quoted Q2's benchmark cells (1,022 of 1,026) for a Q1
    release. The detail now quotes Q1's cells for an every-edge workload and Q2's otherwise."""
    q1 = recommend(epsilon=epsilon, upper=200.0, bins=bins, workload="Q1").detail
    q2 = recommend(epsilon=epsilon, upper=200.0, bins=bins, workload="Q2").detail
    assert "with Q1" in q1 and "Q2" not in q1, q1
    assert "with Q2" in q2 and "Q1" not in q2, q2
    assert q1 != q2
