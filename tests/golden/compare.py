"""How a produced golden file is compared with the recorded one: numbers within a tolerance,
everything else exactly.

Why a tolerance: OpenBLAS picks its kernels by processor (DYNAMIC_ARCH) and numpy its SIMD
paths, so the same seeded run gives answers that differ in the last bits on another CPU
(``207359.99999999994`` vs ``207360``). Measured on this project's goldens with
``OPENBLAS_CORETYPE`` = Haswell, Prescott and Sandybridge and numpy's AVX2/AVX-512 paths
disabled: CLI answers move by at most 10⁻¹⁴ relative, but RawSum's dense weighted least squares
at 1,000 bins amplifies that to 2.2·10⁻⁹ (a simulated RMSE of the Explorer). So numbers are
compared with

    |produced − recorded| ≤ REL · max(|produced|, |recorded|) + ABS_OF_SCALE · scale

where ``scale`` is the largest finite magnitude of the same column (CSV) or of the same key
path (JSON, list positions ignored) in the recorded file. REL = 10⁻⁷ is 45 times the largest
spread measured, and more than one unit in the ninth significant digit, the precision CSV
files are written with (a value within 10⁻¹⁴ of a rounding boundary may print one unit apart
on another CPU), yet a change of a number in its seventh digit fails. Names, columns, text,
order, counts, NaN and ±∞ are compared exactly. Bit-for-bit equality, where the code promises it (the same machine, seed and
streams), is a separate check: ``test_same_machine_same_seed_is_bit_identical``.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import re
from collections import defaultdict
from collections.abc import Iterator
from typing import TypeGuard

REL = 1e-7
ABS_OF_SCALE = 1e-9
_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
_INDEX = re.compile(r"\[\d+\]")


def _close(a: float, b: float, scale: float) -> bool:
    if math.isnan(a) or math.isnan(b) or math.isinf(a) or math.isinf(b):
        return (math.isnan(a) and math.isnan(b)) or a == b
    return abs(a - b) <= REL * max(abs(a), abs(b)) + ABS_OF_SCALE * scale


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


# ---------------------------------------------------------------------------------------------
# Free text: the text between numbers exactly, the numbers within the tolerance
# ---------------------------------------------------------------------------------------------
def _text_differences(produced: str, recorded: str, where: str) -> list[str]:
    split_p, split_r = _NUMBER.split(produced), _NUMBER.split(recorded)
    nums_p, nums_r = _NUMBER.findall(produced), _NUMBER.findall(recorded)
    if split_p != split_r or len(nums_p) != len(nums_r):
        return [f"{where}: text differs: {_first_difference(produced, recorded)}"]
    values = [(float(p), float(r)) for p, r in zip(nums_p, nums_r, strict=True)]
    scale = max((abs(r) for _, r in values if math.isfinite(r)), default=0.0)
    return [
        f"{where}: {p} vs recorded {r}"
        for (p, r), (vp, vr) in zip(zip(nums_p, nums_r, strict=True), values, strict=True)
        if not _close(vp, vr, scale)
    ][:5]


def _first_difference(a: str, b: str) -> str:
    i = next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return f"at character {i}: {a[max(0, i - 30):i + 30]!r} vs recorded {b[max(0, i - 30):i + 30]!r}"


# ---------------------------------------------------------------------------------------------
# CSV: header and text cells exactly, numbers by column
# ---------------------------------------------------------------------------------------------
def _csv_differences(produced: str, recorded: str, where: str) -> list[str]:
    rows_p = list(csv.reader(io.StringIO(produced)))
    rows_r = list(csv.reader(io.StringIO(recorded)))
    if len(rows_p) != len(rows_r) or not rows_r or rows_p[0] != rows_r[0]:
        return [f"{where}: header or row count differs ({len(rows_p)} vs recorded {len(rows_r)} rows)"]
    scales: dict[int, float] = defaultdict(float)
    for row in rows_r[1:]:
        for j, cell in enumerate(row):
            if (v := _number(cell)) is not None and math.isfinite(v):
                scales[j] = max(scales[j], abs(v))
    out = []
    for i, (row_p, row_r) in enumerate(zip(rows_p, rows_r, strict=True)):
        if len(row_p) != len(row_r):
            out.append(f"{where}: row {i} has {len(row_p)} cells, recorded {len(row_r)}")
            continue
        for j, (p, r) in enumerate(zip(row_p, row_r, strict=True)):
            if p == r:
                continue
            vp, vr = _number(p), _number(r)
            if vp is None or vr is None or not _close(vp, vr, scales[j]):
                out.append(f"{where}: row {i}, column {rows_r[0][j]!r}: {p!r} vs recorded {r!r}")
    return out[:5]


# ---------------------------------------------------------------------------------------------
# JSON: keys, lengths and strings exactly, numbers by key path
# ---------------------------------------------------------------------------------------------
def _leaves(value, path: str = "") -> Iterator[tuple[str, object]]:
    if isinstance(value, dict):
        for key in sorted(value):
            yield from _leaves(value[key], f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _leaves(item, f"{path}[{i}]")
    else:
        yield path, value


def _is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _json_differences(produced: str, recorded: str, where: str) -> list[str]:
    leaves_p, leaves_r = list(_leaves(json.loads(produced))), list(_leaves(json.loads(recorded)))
    if [p for p, _ in leaves_p] != [p for p, _ in leaves_r]:
        return [f"{where}: the structure (keys, list lengths) differs"]
    scales: dict[str, float] = defaultdict(float)
    for path, value in leaves_r:
        if _is_number(value) and math.isfinite(value):
            scales[_INDEX.sub("[]", path)] = max(scales[_INDEX.sub("[]", path)], abs(value))
    out: list[str] = []
    for (path, p), (_, r) in zip(leaves_p, leaves_r, strict=True):
        same_kind = isinstance(p, bool) == isinstance(r, bool)
        if same_kind and (p == r or (isinstance(p, float) and isinstance(r, float)
                                     and math.isnan(p) and math.isnan(r))):
            continue
        if same_kind and _is_number(p) and _is_number(r):
            if not _close(float(p), float(r), scales[_INDEX.sub("[]", path)]):
                out.append(f"{where}{path}: {p!r} vs recorded {r!r}")
        elif isinstance(p, str) and isinstance(r, str):
            looks_csv = "\n" in r and "," in r
            compare = _csv_differences if looks_csv else _text_differences
            out += compare(p, r, f"{where}{path}")
        else:
            out.append(f"{where}{path}: {p!r} vs recorded {r!r}")
    return out[:5]


def differences(rel: str, produced: str, recorded: str) -> list[str]:
    """What differs between a produced golden file and the recorded one (empty: equal within
    the tolerance). ``rel`` names the file; its suffix chooses how it is read."""
    if produced == recorded:
        return []
    if rel.endswith(".json"):
        return _json_differences(produced, recorded, rel)
    if rel.endswith(".csv"):
        return _csv_differences(produced, recorded, rel)
    return _text_differences(produced, recorded, rel)


# ---------------------------------------------------------------------------------------------
# Fingerprints: large outputs stored as numbers that can be compared with the tolerance
# ---------------------------------------------------------------------------------------------
def fingerprint(values: dict[str, list]) -> dict:
    """A compact record of named sequences (CSV columns, or a figure's leaves by key path) that
    the tolerant comparison can check: for numbers their count, sum, sum of magnitudes and
    position-weighted sum (a change of a value, or values moved far in the order, moves one of them), the
    non-finite ones listed exactly; other values by the SHA-256 of their text. The sums are
    compared at the scale of the sum of magnitudes: a change of one value by more than
    REL + ABS_OF_SCALE times the column's total magnitude is caught."""
    out: dict[str, dict] = {}
    for name, items in values.items():
        numbers = [v for v in items if _is_number(v)]
        finite = [float(v) for v in numbers if math.isfinite(v)]
        others = [v for v in items if not _is_number(v)]
        # One list, so that the comparison's scale (its largest entry, the sum of magnitudes)
        # applies to all three: near-cancelling sums are not compared at their own tiny size.
        moments = [
            math.fsum(abs(v) for v in finite),
            math.fsum(finite),
            math.fsum((i + 1) * v for i, v in enumerate(finite)) / max(len(finite), 1),
        ]
        out[name] = {
            "count": len(items),
            "moments": moments,
            "non_finite": [str(v) for v in numbers if not math.isfinite(v)],
            "others_sha256": hashlib.sha256(json.dumps(others, ensure_ascii=False).encode()).hexdigest(),
        }
    return out


def csv_columns(text: str) -> dict[str, list]:
    """Columns of a CSV text, each cell a float where it reads as one."""
    rows = list(csv.reader(io.StringIO(text)))
    header, body = rows[0], rows[1:]
    return {
        name: [v if (v := _number(row[j])) is not None else row[j] for row in body]
        for j, name in enumerate(header)
    }


def json_paths(value) -> dict[str, list]:
    """A JSON value's leaves grouped by key path (list positions dropped); numbers written
    inside strings (titles, hover texts) are taken out as numbers, the rest of the string kept
    as text."""
    grouped: dict[str, list] = defaultdict(list)
    for path, leaf in _leaves(value):
        key = _INDEX.sub("[]", path)
        if isinstance(leaf, str) and _NUMBER.search(leaf):
            grouped[key + "#text"].append(_NUMBER.sub("#", leaf))
            grouped[key + "#numbers"] += [float(n) for n in _NUMBER.findall(leaf)]
        else:
            grouped[key].append(leaf)
    return dict(grouped)
