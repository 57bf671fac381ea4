"""A ledger that holds (issue 16 §3): one file whatever the path, a total set once, one
dataset, and every refusal before the charge, so that a charged release is always published."""

from __future__ import annotations

import json
import shutil
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest

from dpsum_core.cli import main
from dpsum_core.data.reading import load_column
from dpsum_core.errors import DataError, ParameterError
from dpsum_core.publish import ledger
from dpsum_core.publish.report import RELEASE_FILES
from dpsum_core.truncation.params import TruncationParams
from dpsum_core.truncation.recursive import recursive_theta, theta_floor
from tests.core.release_files import release_endings

ROOT = Path(__file__).resolve().parents[2]
SMALL = str(ROOT / "sample_data" / "incomes_small.csv")


def _release(out, book, *extra, epsilon="0.3", data=SMALL):
    return main(
        ["release", "--data", str(data), "--workload", "Q3", "--algorithm", "identity",
         "--truncation", "none", "--epsilon", epsilon, "--out", str(out), "--ledger", str(book),
         *extra]
    )  # fmt: skip


def _error(err: str) -> str:
    """The one error line of stderr (the cleaning report goes there too)."""
    (line,) = [x for x in err.splitlines() if x.startswith("dpsum: error")]
    return line


def _spent(book: Path) -> Decimal:
    return sum((Decimal(repr(r["epsilon"])) for r in json.loads(book.read_text())["releases"]),
               Decimal(0))  # fmt: skip


def test_a_symlinked_ledger_and_its_real_path_are_one_ledger(tmp_path, capsys):
    real = tmp_path / "real" / "ledger.json"
    real.parent.mkdir()
    link = tmp_path / "link.json"
    assert _release(tmp_path / "a", real, "--budget", "1") == 0
    link.symlink_to(real)
    assert _release(tmp_path / "b", link, "--budget", "1", epsilon="0.3") == 0
    assert link.is_symlink(), "save replaced the link by a file"
    assert _release(tmp_path / "c", real, "--budget", "1", epsilon="0.9") == 2
    assert "over the total" in capsys.readouterr().err
    assert _spent(real) == Decimal("0.6")
    assert not (tmp_path / "c").exists() or not any((tmp_path / "c").iterdir())
    assert not list(tmp_path.glob("link.json.lock")), "the lock was taken on the link's name"


def test_the_total_is_set_once_and_raised_only_explicitly(tmp_path, capsys):
    book = tmp_path / "ledger.json"
    assert _release(tmp_path / "a", book, "--budget", "2", epsilon="1.5") == 0
    before = book.read_text()
    assert _release(tmp_path / "b", book, "--budget", "100", epsilon="1") == 2
    err = capsys.readouterr().err
    assert "--raise-budget" in _error(err)
    assert book.read_text() == before
    assert _release(tmp_path / "c", book, "--budget", "1", epsilon="0.1") == 2  # no lowering either
    assert _release(tmp_path / "d", book, "--raise-budget", epsilon="0.1") == 2  # needs --budget
    capsys.readouterr()
    assert _release(tmp_path / "e", book, "--budget", "3", "--raise-budget", epsilon="1") == 0
    saved = json.loads(book.read_text())
    assert saved["total"] == 3
    (change,) = saved["total_changes"]
    assert change["old_total"] == 2 and change["new_total"] == 3 and change["created"]
    assert _release(tmp_path / "f", book, "--budget", "3", epsilon="0.5") == 0  # same total: fine


def test_a_ledger_is_bound_to_one_dataset(tmp_path, capsys):
    one, other = tmp_path / "x" / "data.csv", tmp_path / "y" / "data.csv"
    for path in (one, other):
        path.parent.mkdir()
    shutil.copy(SMALL, one)
    other.write_text("income\n" + "\n".join(str(v) for v in range(1, 500)) + "\n")
    book = tmp_path / "ledger.json"
    assert _release(tmp_path / "a", book, data=one) == 0
    saved = json.loads(book.read_text())
    assert saved["dataset"]["fingerprint"].startswith("content:sha256:")
    before = book.read_text()
    capsys.readouterr()
    assert _release(tmp_path / "b", book, data=other) == 2
    err = capsys.readouterr().err
    assert _error(err).count("data.csv") == 2 and "rows differ" in _error(err)
    assert book.read_text() == before and not list((tmp_path / "b").glob("*_answers.csv"))


def test_an_old_ledger_loads_unbound_and_is_bound_on_first_use(tmp_path):
    book = tmp_path / "ledger.json"
    book.write_text(json.dumps({"format": "dpsum-ledger", "version": 1, "total": 1.0,
                                "releases": [{"epsilon": 0.25, "data": "incomes_small.csv"}]}))
    old = ledger.load(book)
    assert old.fingerprint is None and old.spent == 0.25 and old.total == 1.0
    assert _release(tmp_path / "a", book, epsilon="0.25") == 0
    saved = json.loads(book.read_text())
    assert saved["version"] == ledger.VERSION and saved["total"] == 1.0
    bound = saved["dataset"]
    assert bound["name"] == "incomes_small.csv" and bound["id_column"] is None
    assert bound["fingerprint"].startswith("content:sha256:") and len(bound["salt"]) == 32


def test_a_ledger_is_bound_to_one_unit_of_privacy(tmp_path, capsys):
    """ε spent per row does not bound a person with many rows (and a version-2 ledger, made
    before the identifier existed, counted rows): a release for another unit is refused."""
    data = tmp_path / "jobs.csv"
    data.write_text("pid,income\n" + "".join(f"{i % 50},{1000 + 7 * i}\n" for i in range(400)))
    book = tmp_path / "ledger.json"
    per_row = "--one-row-per-person"  # chosen explicitly: 'pid' looks like codes of people
    assert _release(tmp_path / "a", book, per_row, "--column", "income", data=data) == 0
    assert json.loads(book.read_text())["dataset"]["id_column"] is None
    before = book.read_text()
    capsys.readouterr()
    assert _release(tmp_path / "b", book, "--id-column", "pid", data=data) == 2
    line = _error(capsys.readouterr().err)
    assert "one row = one person" in line and "'pid'" in line and "nothing was drawn" in line
    assert book.read_text() == before and not list((tmp_path / "b").glob("*_answers.csv"))

    by_person = tmp_path / "people.json"
    assert _release(tmp_path / "c", by_person, "--id-column", "pid", data=data) == 0
    assert json.loads(by_person.read_text())["dataset"]["id_column"] == "pid"
    assert _release(tmp_path / "d", by_person, "--id-column", "pid", data=data) == 0
    assert _release(tmp_path / "e", by_person, per_row, data=data) == 2
    assert len(json.loads(by_person.read_text())["releases"]) == 2

    old = json.loads(before) | {"version": 2}
    del old["dataset"]["id_column"]
    assert ledger.Ledger.from_json(json.dumps(old)).id_column is None  # version 2: per row
    damaged = json.loads(before)
    damaged["dataset"]["id_column"] = 7
    with pytest.raises(DataError, match="damaged"):
        ledger.Ledger.from_json(json.dumps(damaged))


@pytest.mark.parametrize("value", ["1" * 400, "1e400", "-0.5", '"0.1"', "true", "0"])
def test_damaged_values_are_refused_as_damaged(tmp_path, capsys, value):
    text = f'{{"format": "dpsum-ledger", "version": 1, "total": 1, "releases": [{{"epsilon": {value}}}]}}'
    with pytest.raises(DataError, match="damaged"):
        ledger.Ledger.from_json(text)
    book = tmp_path / "ledger.json"
    book.write_text(text)
    assert _release(tmp_path / "out", book) == 2
    assert "damaged" in capsys.readouterr().err and book.read_text() == text


def test_a_raise_must_raise():
    book = ledger.Ledger(total=1.0)
    with pytest.raises(ParameterError, match="only ever raised"):
        book.with_total(0.5, raise_total=True)
    assert book.with_total(1.0) is book


def test_recursive_theta_stays_above_its_public_floor():
    data = load_column(SMALL, upper=800_000.0)
    params = TruncationParams(rm_beta=100.0)
    choice = recursive_theta(data, epsilon=1e-4, upper=800_000.0, params=params, trials=2000,
                             rng=np.random.default_rng(1), tau=np.array([1e5, 4e5]))  # fmt: skip
    assert np.all(choice.theta >= theta_floor(800_000.0)) and theta_floor(800_000.0) > 0
    assert np.any(choice.theta == theta_floor(800_000.0))  # the floor is reached, not 0


def test_fuzz_every_release_is_refused_before_the_charge_or_published(tmp_path, capsys):
    """A few hundred random parameter combinations (valid and not): each either exits 2 with
    the ledger and the output folder untouched, or exits 0 with the ledger charged its ε and
    both files written. Never an internal error, never a charge without a publication."""
    rng = np.random.default_rng(16)
    book = tmp_path / "ledger.json"
    algorithms = ["identity", "tamm", "timm", "sqm", "workload", "rawsum", "nonesuch"]
    truncations = [None, "none", "fixed", "svt", "recursive", "posthoc"]
    outcomes = {0: 0, 2: 0}
    for i in range(300):
        epsilon = float(10 ** rng.uniform(-4.5, 0.5))
        args = ["--algorithm", str(rng.choice(algorithms)), "--bins", str(rng.integers(1, 60)),
                "--workload", str(rng.choice(["Q3", "every:7", "values:100,5000,799999", "Q1"]))]
        if (t := truncations[rng.integers(len(truncations))]) is not None:
            args += ["--truncation", t]
        # a method's parameters mostly with that method (a release refuses the others), and
        # now and then with another
        if rng.random() < (0.6 if t == "recursive" else 0.05):
            args += ["--rm-beta", f"{10 ** rng.uniform(-3, 2.1):.6g}"]
        if rng.random() < (0.8 if t == "fixed" else 0.05):
            args += ["--theta", f"{10 ** rng.uniform(-3, 7):.6g}"]
        if rng.random() < 0.3:
            args += ["--rho", f"{rng.uniform(0, 1):.3g}"]
        if rng.random() < (0.3 if t == "svt" else 0.03):
            args += ["--svt-c", f"{rng.uniform(0.9, 3):.3g}"]
        if rng.random() < 0.2:
            args += ["--upper", f"{10 ** rng.uniform(-7, 7):.6g}"]
        if rng.random() < 0.1:
            args += ["--no-isotonic"]
        out = tmp_path / f"out{i}"
        before = book.read_text() if book.exists() else None
        code = _release(out, book, *args, "--budget", "1000", epsilon=f"{epsilon:.6g}")
        err = capsys.readouterr().err
        assert code in (0, 2), (args, err)
        outcomes[code] += 1
        after = book.read_text() if book.exists() else None
        written = release_endings(out) if out.exists() else []
        if code == 2:
            assert after == before and written == [], (args, err)
        else:
            assert written == sorted(RELEASE_FILES)
            assert json.loads(after)["releases"][-1]["epsilon"] == float(f"{epsilon:.6g}")
    print(outcomes)
    assert min(outcomes.values()) >= 50, outcomes  # both paths well exercised
