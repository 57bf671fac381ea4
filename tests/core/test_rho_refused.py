"""A typed --rho that a release would not use is refused (one line, exit 2), as --truncation is
where the algorithm chooses θ itself; the commands dpsum writes carry --rho only where it is
used, so they never hit that refusal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dpsum_core.cli import main
from dpsum_core.cli_parser import build_parser
from dpsum_core.publish.command import release_command
from dpsum_core.publish.release import plan_release
from dpsum_core.simulate.config import ExperimentConfig
from tests.core.release_files import release_file

ROOT = Path(__file__).resolve().parents[2]
SMALL = str(ROOT / "sample_data" / "incomes_small.csv")


@pytest.mark.parametrize(("how", "says"), [
    (["--algorithm", "clampshells"], "ClampShells chooses θ itself"),
    (["--algorithm", "rawsum"], "RawSum chooses θ itself"),
    (["--algorithm", "auto"], "auto chose ClampShells, which chooses θ itself"),  # at ε = 0.01
    (["--algorithm", "tamm", "--truncation", "fixed", "--theta", "100000"],
     "truncation fixed spends no ε choosing θ"),
])  # fmt: skip
def test_a_typed_rho_that_would_not_be_used_is_refused(tmp_path, capsys, how, says):
    code = main(["release", "--data", SMALL, "--rho", "0.5", *how, "--out", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("dpsum: error: --rho ")
    assert says in err[0] and "leave --rho out" in err[0]
    assert not list(tmp_path.iterdir())  # nothing released


def test_rho_left_out_or_used_is_accepted(tmp_path):
    assert main(["release", "--data", SMALL, "--algorithm", "clampshells",
                 "--out", str(tmp_path / "a")]) == 0  # fmt: skip
    assert main(["release", "--data", SMALL, "--algorithm", "tamm", "--truncation", "svt",
                 "--rho", "0.5", "--out", str(tmp_path / "b")]) == 0  # fmt: skip
    record = json.loads(release_file(tmp_path / "b", "release.json").read_text())
    assert record["config"]["rho"] == 0.5 and record["budget"]["epsilon_theta"] == 0.005


def test_the_help_says_when_rho_is_refused():
    release = build_parser()._subparsers._group_actions[0].choices["release"]  # type: ignore[union-attr]
    (rho,) = [a for a in release._actions if "--rho" in a.option_strings]
    assert "refuses it where θ is not chosen by svt or recursive" in " ".join(rho.help.split())


def test_the_dashboards_release_command_carries_rho_only_where_it_is_used():
    base = ExperimentConfig(workload="Q3", epsilon=0.5, rho=0.5)
    capped = release_command(plan_release(base, algorithm="clampshells", truncation=None),
                             path="d.csv", column=None, budget=1.0)  # fmt: skip
    svt = release_command(plan_release(base, algorithm="tamm", truncation="svt"),
                          path="d.csv", column=None, budget=1.0)  # fmt: skip
    assert "--rho" not in capped and "--rho 0.5" in svt


@pytest.mark.parametrize(("algorithm", "truncation", "rho", "params"), [
    ("clampshells", None, None, set()),  # its own share (ε_θ = ε/4), not ρ
    ("rawsum", None, None, set()),  # θ after measuring: nothing on θ
    ("tamm", "fixed", None, {"theta"}),
    ("tamm", "none", None, set()),
    ("tamm", "svt", 0.1, {"svt_variant", "svt_r", "svt_c", "svt_s"}),
    ("identity", "recursive", 0.1, {"rm_beta", "rm_theta0", "rm_mu"}),
])  # fmt: skip
def test_the_release_records_only_the_parameters_it_used(algorithm, truncation, rho, params):
    # release.json once recorded ρ = 0.1 and SVT's r, c, s beside a ClampShells release, whose
    # budget said ε_θ = ε/4: read as spent, they contradicted it.
    config = ExperimentConfig(epsilon=0.1, truncation_params={"theta": 100_000.0})
    record = plan_release(config, algorithm=algorithm, truncation=truncation).record()
    assert record["rho"] == rho
    assert set(record["truncation_params"]) == params


def test_a_release_records_delta_and_its_commands_carry_it(tmp_path):
    """δ moves ClampShells' published answers (its onset gate), but release.json left it out
    and `dpsum release` had no --delta: an app release at another δ could not be made again
    from its report's command (privacy audit P3)."""
    from dpsum_core.publish.command import record_command

    assert main(["release", "--data", SMALL, "--algorithm", "clampshells", "--delta", "1000",
                 "--out", str(tmp_path)]) == 0  # fmt: skip
    record = json.loads(release_file(tmp_path, "release.json").read_text())
    assert record["config"]["delta"] == 1000.0
    assert "--delta 1000" in record_command(record["config"], dataset="x.csv")
    config = ExperimentConfig(delta=1000.0)
    plan = plan_release(config, algorithm="clampshells", truncation=None)
    assert "--delta 1000" in release_command(plan, path="x.csv", column=None, budget=1.0)
    default = plan_release(ExperimentConfig(), algorithm="clampshells", truncation=None)
    assert "--delta" not in release_command(default, path="x.csv", column=None, budget=1.0)


@pytest.mark.parametrize(("algorithm", "truncation", "weights", "delta"), [
    ("clampshells", None, None, 100.0), ("rawsum", None, None, None),
    ("tamm", "svt", "midpoint", None), ("sqm", "svt", None, None),
])  # fmt: skip
def test_weights_and_delta_are_recorded_only_where_they_count(algorithm, truncation, weights, delta):
    """--weights midpoint with RawSum or ClampShells went into release.json, the report
    ("midpoint weights") and its command, though their answers are the same under either rule
    (author review); δ counts for ClampShells' onset gate only."""
    from dpsum_core.publish.command import record_command

    config = ExperimentConfig(epsilon=0.1, weights="midpoint")
    record = plan_release(config, algorithm=algorithm, truncation=truncation).record()
    assert (record["weights"], record["delta"]) == (weights, delta)
    assert ("--weights midpoint" in record_command(record, dataset="x.csv")) is (weights is not None)


@pytest.mark.parametrize(("how", "flag"), [
    (["--algorithm", "tamm", "--truncation", "svt", "--theta", "50000"], "--theta"),
    (["--algorithm", "tamm", "--truncation", "recursive", "--svt-r", "0.99"], "--svt-r"),
    (["--algorithm", "clampshells", "--rm-mu", "0.3"], "--rm-mu"),
])  # fmt: skip
def test_a_truncation_parameter_the_release_would_not_read_is_refused(tmp_path, capsys, how, flag):
    """--theta with SVT or --svt-r with the recursive mechanism were ignored without a word,
    while --rho and --public-cap were refused (author review)."""
    code = main(["release", "--data", SMALL, *how, "--out", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and f"{flag} is not read by this release's θ rule" in err[0]
    assert not list(tmp_path.iterdir())  # nothing released


def test_the_apps_release_command_carries_only_the_parameters_its_rule_reads():
    """The explorer's SVT settings must not reach a recursive release's command (it would be
    refused when pasted)."""
    config = ExperimentConfig(epsilon=0.1, truncation_params={"svt_s": 20_000.0, "rm_mu": 0.3})
    plan = plan_release(config, algorithm="tamm", truncation="recursive")
    command = release_command(plan, path="x.csv", column=None, budget=1.0)
    assert "--rm-mu 0.3" in command and "--svt-s" not in command
