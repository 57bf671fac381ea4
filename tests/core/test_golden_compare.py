"""The golden comparison (tests/golden/compare.py) accepts another CPU's last bits and nothing
else: every kind of real change below must still be reported."""

from __future__ import annotations

import json

import pytest

from tests.golden.compare import csv_columns, differences, fingerprint, json_paths

CSV = '"algorithm","query","answer","rel"\n"tamm",0,207360,0.0123456789\n"tamm",1,-3.5e-07,1.5\n'


def test_last_bits_of_another_kernel_are_accepted() -> None:
    # the examples: 207359.99999999994 vs 207360 and …69.98235889 vs …69.98235887
    other = CSV.replace("207360", "207359.99999999994").replace("-3.5e-07", "-3.5000000000002e-07")
    assert differences("a.csv", other, CSV) == []
    text = "median relative error 1069.98235889 at ε = 0.1\n"
    assert differences("stdout.txt", text.replace("89", "87"), text) == []
    js = json.dumps({"x": [1069.98235889, 2.0], "name": "TaMM"})
    assert differences("r.json", js.replace("1069.98235889", "1069.98235887"), js) == []


@pytest.mark.parametrize(
    ("rel", "produced", "recorded"),
    [
        ("a.csv", CSV.replace("207360", "207361"), CSV),  # one unit in the sixth digit
        ("a.csv", CSV.replace("0.0123456789", "0.0123457"), CSV),
        ("a.csv", CSV.replace('"tamm",1', '"timm",1'), CSV),  # a name
        ("a.csv", CSV.replace('"rel"', '"rel_iso"'), CSV),  # a column
        ("a.csv", CSV + '"tamm",2,1,1\n', CSV),  # a row
        ("a.csv", CSV.replace("1.5", "nan"), CSV),  # NaN is not a number close to 1.5
        ("s.txt", "θ = 100000 (SVT)\n", "θ = 100000 (recursive)\n"),
        ("s.txt", "θ = 100001\n", "θ = 100000\n"),
        ("r.json", json.dumps({"x": [1.0, 2.0]}), json.dumps({"x": [1.0, 2.0, 3.0]})),
        ("r.json", json.dumps({"x": 1.0, "y": "a"}), json.dumps({"x": 1.0, "y": "b"})),
        ("r.json", json.dumps({"x": 1.0}), json.dumps({"x": 1.000001})),
        ("r.json", json.dumps({"x": True}), json.dumps({"x": 1})),
    ],
)
def test_real_changes_are_reported(rel: str, produced: str, recorded: str) -> None:
    assert differences(rel, produced, recorded)


def test_a_near_zero_value_is_compared_at_its_columns_scale() -> None:
    recorded = '"answer"\n1000000000\n0\n'
    assert differences("a.csv", '"answer"\n1000000000\n2e-7\n', recorded) == []
    assert differences("a.csv", '"answer"\n1000000000\n5\n', recorded)


def test_fingerprints_catch_one_changed_value_and_a_far_reordering() -> None:
    rows = "q,v\n" + "".join(f"{i},{1000 + i * 0.5}\n" for i in range(3000))
    base = json.dumps(fingerprint(csv_columns(rows)))
    last_bits = rows.replace("1100.0", "1100.0000000000002")
    assert differences("f.json", json.dumps(fingerprint(csv_columns(last_bits))), base) == []
    changed = rows.replace("1100.0", "1101.0")  # 10⁻³ of one value of 3,000
    assert differences("f.json", json.dumps(fingerprint(csv_columns(changed))), base)
    swapped = rows.replace("1050.0\n", "X\n").replace("2450.0\n", "1050.0\n").replace("X\n", "2450.0\n")
    assert differences("f.json", json.dumps(fingerprint(csv_columns(swapped))), base)
    figure = {"data": [{"y": [1.5, 2.5], "name": "TaMM, ε = 0.1"}]}
    other = {"data": [{"y": [1.5, 2.5], "name": "TiMM, ε = 0.1"}]}
    assert differences(
        "f.json", json.dumps(fingerprint(json_paths(other))), json.dumps(fingerprint(json_paths(figure)))
    )
