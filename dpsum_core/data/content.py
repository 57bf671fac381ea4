"""The content of cleaned data as a multiset hash: what binds a ledger to the people, not to bytes.

A release reads (identifier, value) rows: a row is kept when it has an identifier (with one)
and a value that cleaning parses to a finite number (missing, non-numeric and infinite values
are dropped, as :func:`~dpsum_core.data.cleaning.clean` drops them). :class:`Content` is the
multiset of the kept rows, hashed so that it is the same whatever holds the rows: CSV, Parquet,
a folder of parts, in any order, read by any engine.

- **canonical row**: the value is the parsed double *before* clipping to [0, U] (U is a release
  parameter, not the data), as exact integers: for 2⁻⁵² ≤ |x| < 2⁵³ its limbs ⌊|x|⌋, and the
  next two 52-bit fractional digits (exact: every bit of such a double is at or above 2⁻¹⁰⁴);
  for other non-zero doubles the mantissa M < 2⁵³ and exponent E with |x| = M·2ᴱ; the sign; −0
  is 0. The text of a number never enters (``1e3``, ``1000.0`` and ``1000`` are one value).
  The identifier, its white space at both ends removed: text that is an integer written
  plainly (``"7"``, ``"-12"``, not ``"007"`` or ``"+7"``) or an integral number below 2⁶² is
  that integer (``"7"`` in CSV is ``7`` in Parquet); other text is its MD5; other numbers are
  encoded like values.
- **row hash**: two lanes, each a polynomial in the row's nine components modulo a prime
  P < 2³¹, squared modulo P (so rows do not cancel by linearity). Every step is an exact
  64-bit integer operation, computed alike by numpy (:func:`content_of`) and in the DuckDB and
  Spark SQL of :mod:`dpsum_core.data.backends.sql`, in the scan that already computes the
  summary or the cleaning report (no extra pass).
- **multiset**: the exact integer sum of each lane over the rows, and the number of rows:
  independent of order and partitioning. :meth:`Content.digest` hashes them with a salt.

Privacy
-------
A :class:`Content` is computed from private data. Its digest is kept in the ledger, the
custodian's record (never in a release); see PRIVACY.md for what it lets a reader of the
ledger confirm.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

VERSION = "dpsum-content-1"
PRIMES = (2147483647, 2147483629)  # the two largest primes below 2³¹
MULTIPLIERS = (1103515245, 1140671485)
LOW, HIGH = 2.0**-52, 2.0**53  # the range where the limbs are exact
TWO52 = 2.0**52
EXPONENT_OFFSET = 2000  # E + offset ≥ 0
INT_ID_BOUND = 2.0**62  # integral numbers below it (in magnitude) are integer identifiers
# The identifier's kind, the first component of a row: none (one row = one person), an
# integer, text (its MD5 in four 28-bit pieces), another number (a value's four components).
ID_NONE, ID_INT, ID_TEXT, ID_NUMBER = 0, 1, 2, 3
MD5_PIECES = ((1, 7), (8, 7), (15, 7), (22, 7))  # (1-based start, length) in the hex digest


@dataclass(frozen=True)
class Content:
    """The multiset of a dataset's kept (identifier, value) rows: their number and the exact
    sums of the two lanes of their hashes.

    Privacy
    -------
    Computed from private data: kept by the custodian (hashed, in the ledger), never released.
    """

    rows: int
    sums: tuple[int, int]

    def __add__(self, other: Content) -> Content:
        """The content of the union of two multisets (parts of one dataset)."""
        a, b = self.sums, other.sums
        return Content(self.rows + other.rows, (a[0] + b[0], a[1] + b[1]))

    def digest(self, salt: str) -> str:
        """``"content:sha256:<hex>"`` of the rows, the two sums and ``salt`` (the ledger's)."""
        text = f"{VERSION}\0{salt}\0{self.rows}\0{self.sums[0]}\0{self.sums[1]}"
        return "content:sha256:" + hashlib.sha256(text.encode()).hexdigest()


EMPTY = Content(0, (0, 0))


def value_components(x: np.ndarray) -> list[np.ndarray]:
    """The four int64 components (tag, L₁, L₂, L₃) of finite doubles ``x`` (module docstring)."""
    x = np.asarray(x, dtype=float)
    a = np.abs(x)
    normal = (a >= LOW) & (a < HIGH)
    inside = np.where(normal, a, 0.0)
    l1 = np.floor(inside)
    s1 = (inside - l1) * TWO52
    l2 = np.floor(s1)
    l3 = np.floor((s1 - l2) * TWO52)
    kind = normal.astype(np.int64)
    scaled = np.flatnonzero((a > 0) & ~normal)  # rare: beyond 2⁵³, or below 2⁻⁵²
    if scaled.size:
        _, e = np.frexp(a[scaled])
        exponent = np.maximum(e.astype(np.int64) - 53, -1074)
        l1[scaled] = np.ldexp(a[scaled], -exponent)
        l2[scaled] = exponent + EXPONENT_OFFSET
        kind[scaled] = 2
    return [2 * kind + (x < 0), l1.astype(np.int64), l2.astype(np.int64), l3.astype(np.int64)]


def id_components(ids: pd.Series, spaces: str = "") -> list[np.ndarray]:
    """The five int64 components (kind, a₁…a₄) of identifiers (none missing; module
    docstring), text with ``spaces`` removed at both ends. Text is canonicalised once per
    distinct identifier."""
    import pandas as pd  # here, not at import: `dpsum --help` starts without pandas

    n = len(ids)
    if pd.api.types.is_bool_dtype(ids) or not pd.api.types.is_numeric_dtype(ids):
        codes, uniques = pd.factorize(ids, sort=False)
        rows = _text_ids(pd.Series(uniques, dtype=object), spaces)
        return [rows[codes, j] for j in range(5)]
    numbers = ids.to_numpy()
    floats = numbers.astype(float)
    # Tested on the double, as the SQL engines test it (an int64 id is exact below 2⁶²).
    whole = (np.floor(floats) == floats) & (np.abs(floats) < INT_ID_BOUND)
    ints = np.where(whole, numbers, 0).astype(np.int64)
    values = value_components(np.where(whole, 0.0, floats))
    zero = np.zeros(n, np.int64)
    return [
        np.where(whole, ID_INT, ID_NUMBER).astype(np.int64),
        *(np.where(whole, first, v) for first, v in zip((ints, zero, zero, zero), values, strict=True)),
    ]


def _text_ids(uniques: pd.Series, spaces: str) -> np.ndarray:
    """The components of distinct identifiers read as text (numbers in a text column too), as
    a (n, 5) array: text that is an integer written plainly is that integer, other text its
    MD5 (vectorised but for the MD5s)."""
    import pandas as pd  # here, not at import: `dpsum --help` starts without pandas

    out = np.zeros((len(uniques), 5), np.int64)
    numbers = uniques.map(lambda u: isinstance(u, (int, float, np.number)) and not isinstance(u, bool))
    if numbers.any():  # numbers among text: as a numeric column encodes them
        parts = id_components(pd.Series(uniques[numbers].astype(float).to_numpy()))
        out[numbers.to_numpy()] = np.column_stack(parts)
    text = uniques[~numbers].astype(str)
    text = text.str.strip(spaces) if spaces else text
    plain = text.str.fullmatch(r"-?(?:0|[1-9][0-9]{0,18})").to_numpy(dtype=bool)
    ints = np.array([int(t) for t in text[plain]], dtype=object)
    fits = np.zeros(len(text), dtype=bool)
    fits[np.flatnonzero(plain)] = (ints >= -(2**63)) & (ints < 2**63) if ints.size else False
    where = np.flatnonzero(~numbers.to_numpy())
    out[where[fits], 0] = ID_INT
    out[where[fits], 1] = ints[fits[plain]].astype(np.int64) if fits.any() else 0
    for i, t in zip(where[~fits], text[~fits], strict=True):
        digest = hashlib.md5(t.encode("utf-8"), usedforsecurity=False).hexdigest()
        out[i] = [ID_TEXT, *(int(digest[s - 1 : s - 1 + k], 16) for s, k in MD5_PIECES)]
    return out


def lanes(components: list[np.ndarray | int], *, square: bool = True) -> list[np.ndarray]:
    """Each lane's hash of every row: (Σ cᵢ·Kⁿ⁻ⁱ mod P)² mod P, by Horner's rule (without
    ``square``: the sum before squaring, to go on from).

    A component is an array or one int for every row. Only the second (an integer
    identifier) may be negative or reach 2⁶³; the others are below 2⁵³, so h·K + c < 2⁶³ needs
    no reduction of c first.
    """
    out = []
    for p, k in zip(PRIMES, MULTIPLIERS, strict=True):
        h: np.ndarray | int = components[0] % p
        for i, c in enumerate(components[1:], start=1):
            h = (h * k + (c % p if i == 1 else c)) % p
        out.append(np.asarray(h * h % p if square else h, dtype=np.int64))
    return out


CHUNK = 1 << 20  # rows hashed at a time: temporaries stay small


def content_of(
    values: np.ndarray, ids: pd.Series | None = None, *, spaces: str = ""
) -> Content:
    """The :class:`Content` of kept rows: finite parsed ``values`` (before clipping) and their
    identifiers (``None``: one row = one person; text compared with ``spaces`` removed at both
    ends, :data:`dpsum_core.data.cleaning.SPACES`).

    Privacy
    -------
    See :class:`Content`.
    """
    values = np.asarray(values, dtype=float)
    n = int(values.size)
    if n == 0:
        return EMPTY
    head: list[np.ndarray] | None = None if ids is None else id_components(ids, spaces)
    sums = [0, 0]
    for start in range(0, n, CHUNK):
        part = slice(start, start + CHUNK)
        first = [ID_NONE, 0, 0, 0, 0] if head is None else [c[part] for c in head]
        for j, h in enumerate(lanes([*first, *value_components(values[part])])):
            sums[j] += int(h.sum(dtype=np.int64))  # < 2³¹ each: exact for a chunk
    return Content(n, (sums[0], sums[1]))
