"""Every file of the bad-input corpus through the loader and the CLI: a specific message or a
successful load with a cleaning report — never a traceback."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import numpy as np
import pytest

from dpsum_core import limits
from dpsum_core.cli import main
from dpsum_core.data.reading import load_column
from dpsum_core.errors import DataError
from dpsum_core.text import counted

CORPUS = Path(__file__).resolve().parents[1] / "data" / "bad"
MANIFEST = {k: v for k, v in json.loads((CORPUS / "manifest.json").read_text()).items() if not k.startswith("_")}


def test_manifest_covers_the_corpus():
    files = {p.name for p in CORPUS.iterdir() if p.name not in ("manifest.json", "README.md")}
    assert files == set(MANIFEST)
    assert len(files) >= 17


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_loader(name):
    expected = MANIFEST[name]
    if "error" in expected:
        with pytest.raises(DataError, match=re.escape(expected["error"])):
            load_column(CORPUS / name, upper=800_000)
        return
    data = load_column(CORPUS / name, upper=800_000)
    report = data.report.as_dict()
    assert {k: report[k] for k in expected["ok"]} == expected["ok"]
    if "column" in expected:
        assert data.column == expected["column"]
    if "values" in expected:  # a number is never read as another one
        np.testing.assert_allclose(data.values, expected["values"], rtol=1e-15)


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_cli(name, tmp_path, capsys):
    code = main(["run", "--data", str(CORPUS / name), "--workload", "Q3", "--trials", "3", "--out", str(tmp_path)])
    out, err = capsys.readouterr()
    expected = MANIFEST[name]
    if "error" in expected:
        assert code == 2
        assert len(err.strip().splitlines()) == 1 and expected["error"] in err
    else:
        assert code == 0, err
        assert f"{counted(expected['ok']['rows_read'], 'row')} read" in out
        assert (tmp_path / "summary.csv").exists()


def test_upload_above_the_size_limit_is_refused():
    big = io.BytesIO(b"income\n" + b"1\n" * ((limits.MAX_UPLOAD_MB * 2**20) // 2 + 10))
    with pytest.raises(DataError, match=f"above the {limits.MAX_UPLOAD_MB} MB upload limit"):
        load_column(big, upper=800_000, name="big.csv")
