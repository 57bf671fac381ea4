"""The public domain (U, bins, weight rule), the histogram and per-bin sums of a column.

U and the bins are public choices, never read off the data; the histogram is private.
"""


from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from dpsum_core import limits
from dpsum_core.data.cleaning import WeightRule
from dpsum_core.data.dataset import Dataset, Statistics
from dpsum_core.data.exact import differences, point_sums
from dpsum_core.text import counted, number, unit_nouns
from dpsum_core.validation import check_choice, check_int, check_upper

WEIGHT_RULES: tuple[str, ...] = ("upper", "midpoint")


# --------------------------------------------------------------------------------------------
# Domain and histogram
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Domain:
    """The public value domain [0, U] cut into n equal bins (e_{j-1}, e_j], e_j = j·U/n.

    Parameters
    ----------
    upper
        U, public knowledge (never derived from the data).
    bins
        n, the number of bins.
    weights
        Bin weight rule: ``"upper"`` uses v_j = e_j (the paper), ``"midpoint"`` (e_{j-1}+e_j)/2.
    """

    upper: float = 800_000.0
    bins: int = 1000
    weights: WeightRule = "upper"

    def __post_init__(self) -> None:
        object.__setattr__(self, "upper", check_upper(self.upper))
        object.__setattr__(self, "bins", check_int(self.bins, "bins", low=1, high=limits.MAX_BINS))
        check_choice(self.weights, "weights", WEIGHT_RULES)

    @property
    def width(self) -> float:
        """Bin width U/n."""
        return self.upper / self.bins

    @cached_property
    def edges(self) -> np.ndarray:
        """Upper edges e_1..e_n (e_n = U exactly)."""
        e = np.arange(1, self.bins + 1, dtype=float) * self.upper / self.bins
        e[-1] = self.upper
        e.setflags(write=False)
        return e

    @cached_property
    def bin_weights(self) -> np.ndarray:
        """Public representative values v_j (the paper's D = diag(v))."""
        e = self.edges
        if self.weights == "upper":
            return e
        lower = np.concatenate(([0.0], e[:-1]))
        v = (lower + e) / 2
        v.setflags(write=False)
        return v

    def as_dict(self) -> dict[str, float | int | str]:
        """Plain dict for JSON."""
        return {"upper": self.upper, "bins": self.bins, "weights": self.weights}


def bin_index(values: np.ndarray, domain: Domain) -> np.ndarray:
    """0-based bin of each value: t ∈ (e_{j-1}, e_j] ↦ j-1, and 0 ↦ 0."""
    # Arithmetic guess, then a one-step correction against the exact edges: this is an O(N)
    # pass (much faster than a binary search) and agrees with searchsorted(edges, t, 'left').
    idx = np.ceil(values * (domain.bins / domain.upper)).astype(np.int64) - 1
    np.clip(idx, 0, domain.bins - 1, out=idx)
    edges = domain.edges
    idx -= (idx > 0) & (values <= edges[idx - 1])
    idx += (idx < domain.bins - 1) & (values > edges[idx])
    return idx


def histogram(dataset: Statistics | np.ndarray, domain: Domain) -> np.ndarray:
    """Counts x_j of records per bin (private); a summary answers from its counts at the edges."""
    if hasattr(dataset, "histogram"):
        return dataset.histogram(domain)
    values = dataset.values if isinstance(dataset, Dataset) else np.asarray(dataset, float)
    return np.bincount(bin_index(values, domain), minlength=domain.bins).astype(float)


def bin_sums(dataset: Statistics, domain: Domain) -> np.ndarray:
    """Raw sums s_j = Σ_{t in bin j} t per bin (private), each the correctly rounded sum of its
    own records: the same numbers from a Dataset and from any engine's summary (a per-bin float
    accumulation would depend on the order of the additions).

    Privacy
    -------
    Each s_j is rounded once from the exact sum of bin j's records (differences of the exact
    integer sums at the edges, :mod:`dpsum_core.data.exact`), so adding a record changes only
    its own bin's sum. Differences of *rounded* running totals would not: one added record
    moves every later total's rounding, and hundreds of other bins' sums by an ulp.
    """
    if isinstance(dataset, Dataset) and dataset.exact_running_sums:
        # Integer values with a total below 2⁵³: every running sum is exact, so are these
        # differences (and they equal the rounded exact sums below, bit for bit).
        return np.diff(np.concatenate(([0.0], dataset.sum_at_most(domain.edges))))
    return point_sums(differences(dataset.units_at_most(domain.edges)))


def domain_warnings(dataset: Statistics, domain: Domain) -> list[str]:
    """Plain-language warnings when the domain fits the data badly (empty-looking histogram).

    Two checks: most records (``limits.DOMAIN_CROWDED_RECORDS``) fall in a few bins (at most
    ``limits.DOMAIN_CROWDED_BINS`` of them: U is probably far too large, e.g. hourly wages on
    an income domain), or many records (over ``limits.DOMAIN_CLIPPED_SHARE``) were above U and
    set to U (U is probably too small). One at a time: when the crowded bins include the top
    bin and many records were clipped, the pile is at U, and only "too small" is said.

    Both count the unit of privacy: with an identifier column the values are the people's
    totals, so the counts and shares are of people (totals above U out of the people kept),
    not of rows.

    Privacy
    -------
    These messages are computed from the private data and are for the data holder's eyes
    only: they are never released, put in a link or a file, and never used to choose U
    automatically (a U read off the data is not public, and would leak the range).
    """
    out = []
    report = dataset.report
    by_person = report.id_column is not None
    units = (report.people or 0) if by_person else report.rows_kept
    one, noun = unit_nouns(by_person)
    clipped = report.clipped_above_upper
    too_small = clipped > limits.DOMAIN_CLIPPED_SHARE * max(units, 1)
    per_bin = histogram(dataset, domain)
    order = np.argsort(per_bin, kind="stable")[::-1]
    counts = per_bin[order]
    total = counts.sum()
    if total > 0:
        crowded = int(np.searchsorted(np.cumsum(counts), limits.DOMAIN_CROWDED_RECORDS * total))
        crowded += 1
        # Records piled at U crowd the top bin: then U is too small, not too large (one
        # warning, not two that contradict each other).
        top_piled = too_small and domain.bins - 1 in order[:crowded]
        if crowded <= max(1, int(limits.DOMAIN_CROWDED_BINS * domain.bins)) and not top_piled:
            share = counts[:crowded].sum() / total  # measured (at least the threshold)
            shown = "all" if share >= 1 else f"{math.floor(1000 * share) / 10:.1f}%"  # never up
            where = f"{shown} of the {noun} fall in {crowded:,} of the {domain.bins:,} bins"
            if limits.DOMAIN_CROWDED_BINS * domain.bins < 1:  # so few bins: they may be the cause
                out.append(
                    f"{where}: U = {number(domain.upper)} may be far too large for this column, "
                    f"or {domain.bins:,} bins too few (a bin's records count at one value, so "
                    "the error will be large). Set U from what is publicly known about the "
                    "column's range, and use more bins."
                )
            else:
                out.append(
                    f"{where}: U = {number(domain.upper)} looks far too large for this column "
                    "(the histogram will look empty and the error will be large). Set U from "
                    "what is publicly known about the column's range."
                )
    if too_small:
        out.append(
            f"{counted(clipped, one, noun)} ({clipped / max(units, 1):.1%}) "
            + ("had a total (all their rows summed) above " if by_person else
               "was above " if clipped == 1 else "were above ")
            + f"U = {number(domain.upper)} and {'was' if clipped == 1 else 'were'} set to U: U "
            "looks too small for this column. "
            "Set U from what is publicly known about the column's range."
        )
    return out
