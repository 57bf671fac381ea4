"""The Release page's command carries the total ε the page releases against: a pasted command
is refused while no total is set (as the page refuses), and spends from that total once set
(``--ledger`` without ``--budget`` released with no total: "ε spent 5")."""

from __future__ import annotations

import json
import shlex

import pytest
from app_helpers import assert_clean, new_app

from dpsum_core.cli import main


def _command(at) -> list[str]:
    (box,) = [c.value for c in at.code if c.language == "bash"]
    return shlex.split(box.replace("\\\n", " "))


def test_the_command_carries_the_pages_total(tmp_path, monkeypatch, capsys):
    at = new_app()
    at.run()
    at.selectbox(key="workload_kind").select("Q3")
    at.run()
    at.switch_page("app_pages/release.py").run()
    assert_clean(at)
    monkeypatch.chdir(tmp_path)
    unset = _command(at)
    assert unset[unset.index("--budget") + 1] == "<total ε of this dataset>"
    with pytest.raises(SystemExit) as refused:  # as the page refuses without a total
        main(unset[1:])
    assert refused.value.code == 2
    assert "--budget" in capsys.readouterr().err and not (tmp_path / "ledger.json").exists()
    at.number_input(key="release_total").set_value(0.05).run()
    words = _command(at)
    assert words[words.index("--budget") + 1] == "0.05"
    assert main(words[1:]) == 0
    book = json.loads((tmp_path / "ledger.json").read_text())
    assert book["total"] == 0.05 and book["spent"] == 0.01
