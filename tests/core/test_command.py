"""The one writer of ``dpsum`` command lines (dpsum_core.publish.command): what it writes parses
back, through the command line's own parser, to the same configuration; every name is one shell
word however it is spelt; placeholders are the only text written unquoted."""

from __future__ import annotations

import argparse
import shlex

import pytest

from dpsum_core.cli import _params, build_parser
from dpsum_core.publish.command import (
    Placeholder,
    record_command,
    release_command,
    render,
    run_command,
)
from dpsum_core.publish.release import plan_release
from dpsum_core.simulate.config import ExperimentConfig
from dpsum_core.truncation.params import TruncationParams
from dpsum_core.truncation.registry import PARAMETERS, get

HOSTILE = "in'come $(rm -rf ~); `x` \\ \"q\""
CONFIGS = (
    ExperimentConfig(),
    ExperimentConfig(workload="values:1000, 50000", truncations=("none", "fixed", "svt"),
                     truncation_params=TruncationParams(theta=123456.5, svt_r=0.99, svt_c=1.5,
                                                        svt_s=20000.0, svt_variant="tight")),
    ExperimentConfig(workload="every:100", epsilon=0.3, rho=0.25, truncations=("recursive",),
                     truncation_params=TruncationParams(rm_beta=0.003, rm_theta0=4e4, rm_mu=0.4),
                     upper=600_000.0, bins=300, weights="midpoint", seed=11, trials=7),
)  # fmt: skip


def _parse(command: str) -> argparse.Namespace:
    words = shlex.split(command.replace("\\\n", ""))  # the shell's reading (\⏎ continues)
    assert words[0] == "dpsum"
    return build_parser().parse_args(words[1:])


@pytest.mark.parametrize("config", CONFIGS)
def test_a_run_command_parses_back_to_the_same_configuration(config) -> None:
    args = _parse(run_command(config, path=HOSTILE, column=HOSTILE, id_column=HOSTILE))
    assert (args.data, args.column, args.id_column) == (HOSTILE, HOSTILE, HOSTILE)
    again = ExperimentConfig(
        workload=args.workload, epsilon=args.epsilon, rho=args.rho,
        truncations=tuple(args.truncation.split(",")), algorithms=tuple(args.algorithms.split(",")),
        trials=args.trials, delta=args.delta, seed=args.seed, upper=args.upper, bins=args.bins,
        weights=args.weights, truncation_params=_params(args),
    )  # fmt: skip
    assert again == config


@pytest.mark.parametrize("config", CONFIGS)
def test_a_release_command_and_a_reports_command_carry_the_parameters(config) -> None:
    method = config.truncations[-1]
    plan = plan_release(config, algorithm="tamm", truncation=method, isotonic=False)
    args = _parse(release_command(plan, path="data.csv", column=None, budget=2.0))
    assert (args.algorithm, args.truncation, args.isotonic, args.budget) == (
        "tamm", method, False, 2.0)
    # the chosen method's parameters alone: a release refuses the others (it would not read them)
    own = {p.name: getattr(config.truncation_params, p.name) for p in get(method).params}
    assert _params(args) == TruncationParams(**own)
    record = {**plan.config.to_dict(), "algorithm": "tamm", "truncation": method,
              "isotonic": False,
              "truncation_params": config.truncation_params.resolved(config.upper)}  # fmt: skip
    args = _parse(record_command(record, dataset=HOSTILE, engine="duckdb", id_column=HOSTILE,
                                 column=HOSTILE))  # fmt: skip
    assert (args.data, args.column, args.id_column, args.engine, args.out, args.ledger) == (
        HOSTILE, HOSTILE, HOSTILE, "duckdb", "NEW_FOLDER", "LEDGER")
    assert not args.one_row_per_person
    # one row = one person is said, not left to a default: a file of several columns needs it
    per_row = _parse(record_command(record, dataset="d", column="income"))
    assert (per_row.id_column, per_row.one_row_per_person) == (None, True)
    # the chosen method's parameters in force (s and θ₀ filled in from U), no other method's
    resolved = TruncationParams(**config.truncation_params.resolved(config.upper))
    written = {p.name for p in PARAMETERS.values() if p.flag in shlex.split(
        record_command(record, dataset="d"))}  # fmt: skip
    assert written == {p.name for p in get(method).params if getattr(resolved, p.name) is not None}
    assert all(getattr(_params(args), name) == getattr(resolved, name) for name in written)


def test_a_placeholder_is_quoted_as_one_word_so_a_pasted_command_cannot_redirect() -> None:
    line = render("run", [("--data", Placeholder("<data directory>/", "a b")),
                          ("--out", Placeholder("<your folder>")), ("--flag", None)])  # fmt: skip
    assert line == "dpsum run --data '<data directory>/a b' --out '<your folder>' --flag"
    assert render("run", [("--column", "a;b")], lines=True) == "dpsum run \\\n  --column 'a;b'"
