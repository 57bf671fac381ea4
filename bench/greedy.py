"""GreedyH for n = 256, 1000, 4096 (prefix W and weighted W·T_θ), engine vs dense recursion.

    python -m bench.greedy [--quick] [--repeat 5] [--sizes 256,1000,4096]

The engine's ``strategies.greedy_h`` is timed cold (its tree cache cleared before every run).
The naive reference forms the Gram matrix MᵀM and runs the recursion of SPEC §4 on it densely
(bench/naive.py). Both must return the same rows and the same (AᵀA)⁻¹; for n = 1000 the error
factor is also checked against the reference numbers of SPEC §4 (4 significant digits).
"""

from __future__ import annotations

from functools import partial

import numpy as np

from bench import naive
from bench.common import emit, log, machine, measure, parser, ratio, repeats, target, timed
from dpsum_core.data.domain import Domain
from dpsum_core.mechanisms import greedy_h as strategies
from dpsum_core.mechanisms.workloads import make_workload

THETA = 50_000 * 1.2**4
"""θ of the weighted case (SPEC §4's reference table)."""
SPEC_F = {"prefix": 1.015716e5, "weighted": 1.074728e15}
"""SPEC §4 GreedyH error factors F = ‖A‖₁²·Tr(R (AᵀA)⁻¹ Rᵀ) for n = 1000."""
TARGETS = {1000: 0.1, 4096: 3.0}


def case(n: int, variant: str) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """Workload counts k_i, the scale T (None for prefix W) and the dense M = W·T."""
    domain = Domain(800_000.0, n)
    counts = make_workload("Q1", domain).counts
    scale = None if variant == "prefix" else np.minimum(domain.bin_weights, THETA)
    M = (np.arange(1, n + 1)[None, :] <= counts[:, None]).astype(float)
    return counts, scale, M if scale is None else M * scale


def check(strategy, rows, inv, counts, scale) -> dict:
    """Same rows and inverse as the dense recursion, and the error factor F."""
    same_rows = len(rows) == strategy.rows and all(
        (s, e) == (lo, hi)
        for s, e, (lo, hi, _w) in zip(strategy.starts, strategy.ends, rows, strict=True)
    )
    weights = np.array([w for _lo, _hi, w in rows])
    dense = strategy.inverse.dense()
    t = np.ones(strategy.n) if scale is None else scale
    F = strategy.l1_norm**2 * strategy.inverse.prefix_quadratic(t, counts).sum()
    return {
        "rows": strategy.rows,
        "same_rows": bool(same_rows),
        "weights_max_abs_diff": float(f"{np.abs(weights - strategy.weights).max():.3g}")
        if same_rows
        else None,
        "inverse_max_rel_diff": float(f"{naive.max_rel_diff(dense, inv):.3g}"),
        "error_factor_F": float(f"{F:.7g}"),
    }


def main() -> None:
    """Time engine and dense GreedyH for each n and variant; print JSON."""
    p = parser(__doc__)
    p.add_argument("--sizes", help="comma list of n (default 256,1000,4096; quick 256,1000)")
    args = p.parse_args()
    repeat = repeats(args)
    sizes = [
        int(s) for s in (args.sizes or ("256,1000" if args.quick else "256,1000,4096")).split(",")
    ]
    out: dict = {
        "machine": machine(),
        "repeat": repeat,
        "theta_weighted": THETA,
        "results": {},
        "targets": {},
    }
    for n in sizes:
        for variant in ("prefix", "weighted"):
            log(f"greedy: n = {n} {variant}")
            counts, scale, M = case(n, variant)
            engine = measure(
                partial(strategies.greedy_h, counts, n, scale),
                repeat=repeat,
                setup=strategies._tree.cache_clear,
            )
            strategy = strategies.greedy_h(counts, n, scale)
            (rows, inv), naive_s = timed(partial(naive.greedy_h, M.T @ M))
            rec: dict = {
                "engine": engine,
                "naive_s": round(naive_s, 4),
                "speedup": ratio(naive_s, engine["median_s"]),
            }
            rec["check"] = check(strategy, rows, inv, counts, scale)
            rec["check"]["equal"] = bool(
                rec["check"]["same_rows"]
                and rec["check"]["weights_max_abs_diff"] <= 1e-12
                and rec["check"]["inverse_max_rel_diff"] <= 1e-9
            )
            if n == 1000:
                F = rec["check"]["error_factor_F"]
                rec["check"]["spec_F"] = SPEC_F[variant]
                rec["check"]["spec_F_4_digits"] = f"{F:.4g}" == f"{SPEC_F[variant]:.4g}"
            out["results"][f"n{n}_{variant}"] = rec
            if n in TARGETS:
                out["targets"][f"greedy_h_n{n}_{variant}_s"] = target(
                    engine["median_s"], TARGETS[n]
                )
    emit(out)


if __name__ == "__main__":
    main()
