"""Generate a synthetic, income-like CSV (one column ``income``, whole US dollars).

The values mimic CPS personal income: exact zeros, a log-normal body, a bounded Pareto
right tail and a handful of values just below the public domain top U = 800 000. Every
draw comes from one ``np.random.default_rng(seed)``, so the same arguments give a
byte-identical file.

Examples
--------
python sample_data/make_incomes.py --out sample_data/incomes.csv
python sample_data/make_incomes.py --seed 7 --n 5000 --out sample_data/incomes_small.csv
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

ZERO_SHARE = 0.04
"""Share of records with no income at all (exact zeros)."""
BODY_MEDIAN = 40_000.0
"""Median of the log-normal body, in dollars."""
BODY_SIGMA = 0.75
"""Standard deviation of log(income) in the body."""
TAIL_SHARE = 0.02
"""Share of records drawn from the Pareto tail."""
TAIL_MIN = 150_000.0
"""Scale x_m of the Pareto tail: its smallest possible value."""
TAIL_ALPHA = 1.8
"""Pareto shape; 1.5-2 is typical of top US incomes (smaller means heavier)."""
TAIL_MAX = 10_000_000.0
"""Upper bound of the (bounded) Pareto tail, so no seed produces an absurd outlier."""
NEAR_TOP_COUNT = 8
"""Number of values drawn uniformly from [NEAR_TOP_LOW, NEAR_TOP_HIGH]."""
NEAR_TOP_LOW = 750_000.0
"""Lower end of the near-domain-top band."""
NEAR_TOP_HIGH = 800_000.0
"""Upper end of the near-domain-top band (the default public domain top U)."""


def make_incomes(n: int, *, rng: np.random.Generator) -> np.ndarray:
    """Draw ``n`` incomes from the zero / log-normal / Pareto / near-top mixture.

    The component sizes are fixed counts (rounded shares of ``n``), not random, so every
    dataset has the same make-up; only the values and their order are random.

    Parameters
    ----------
    n : int
        Number of records; must exceed ``NEAR_TOP_COUNT``.
    rng : numpy.random.Generator
        Source of every random draw.

    Returns
    -------
    numpy.ndarray
        Shuffled int64 array of length ``n``, whole dollars, all >= 0.

    Examples
    --------
    >>> x = make_incomes(1000, rng=np.random.default_rng(0))
    >>> x.shape, int((x == 0).sum()), bool(x.min() >= 0)
    ((1000,), 40, True)
    """
    if n <= NEAR_TOP_COUNT:
        raise ValueError(f"n must be > {NEAR_TOP_COUNT}, got {n}")
    n_zero = round(n * ZERO_SHARE)
    n_tail = round(n * TAIL_SHARE)
    n_body = n - n_zero - n_tail - NEAR_TOP_COUNT

    body = rng.lognormal(mean=np.log(BODY_MEDIAN), sigma=BODY_SIGMA, size=n_body)
    # Bounded Pareto by inverse CDF: F(x) = (1 - (x_m/x)^a) / (1 - (x_m/x_max)^a).
    u = rng.random(n_tail)
    mass = 1.0 - (TAIL_MIN / TAIL_MAX) ** TAIL_ALPHA
    tail = TAIL_MIN * (1.0 - u * mass) ** (-1.0 / TAIL_ALPHA)
    near_top = rng.uniform(NEAR_TOP_LOW, NEAR_TOP_HIGH, size=NEAR_TOP_COUNT)

    values = np.concatenate([np.zeros(n_zero), body, tail, near_top])
    # Round body values up to at least $1 so the only zeros are the intended ones.
    values = np.where(values > 0, np.maximum(np.rint(values), 1.0), 0.0)
    return rng.permutation(values.astype(np.int64))


def write_csv(values: np.ndarray, path: Path) -> None:
    """Write ``values`` as a one-column CSV with header ``income``, LF line ends.

    Parameters
    ----------
    values : numpy.ndarray
        Integer incomes.
    path : pathlib.Path
        Destination file; overwritten.
    """
    lines = ["income", *map(str, values.tolist())]
    path.write_text("\n".join(lines) + "\n", encoding="ascii", newline="\n")


def summary(values: np.ndarray) -> dict[str, int | float]:
    """Summary statistics reported in ``sample_data/README.md``.

    Parameters
    ----------
    values : numpy.ndarray
        Incomes.

    Returns
    -------
    dict of str to int or float
        rows, zeros, min, median, mean, p99, max and the count above 800 000.
    """
    return {
        "rows": values.size,
        "zeros": int((values == 0).sum()),
        "min": int(values.min()),
        "median": float(np.median(values)),
        "mean": round(float(values.mean()), 2),
        "p99": round(float(np.percentile(values, 99)), 2),
        "max": int(values.max()),
        "above_150000": int((values > 150_000).sum()),
        "in_750000_800000": int(((values >= 750_000) & (values <= 800_000)).sum()),
        "above_800000": int((values > 800_000).sum()),
    }


def main(argv: list[str] | None = None) -> None:
    """Parse arguments, generate the data, write the CSV and print its summary.

    Parameters
    ----------
    argv : list of str, optional
        Command-line arguments; ``sys.argv[1:]`` when omitted.
    """
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=2024, help="RNG seed (2024)")
    parser.add_argument("--n", type=int, default=45_000, help="rows (45000)")
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).with_name("incomes.csv"),
        help="output CSV path (default: incomes.csv next to this script)",
    )
    args = parser.parse_args(argv)
    values = make_incomes(args.n, rng=np.random.default_rng(args.seed))
    write_csv(values, args.out)
    print(f"wrote {args.out}: {summary(values)}")


if __name__ == "__main__":
    main()
