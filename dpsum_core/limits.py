"""The one module of limits: used by the validators, the CLI and the app's widgets."""

from __future__ import annotations

EPSILON_MIN = 1e-4
EPSILON_MAX = 100.0
RHO_MIN = 0.01
RHO_MAX = 0.99
MAX_BINS = 5000
MAX_TRIALS = 10_000
MAX_ROWS = 20_000_000
MAX_UPLOAD_MB = 200
MAX_UPPER = 1e15
DELTA_MIN = 1e-9
# A run keeps every noisy answer (with and without isotonic regression) in memory:
# trials × queries × algorithms × truncation methods ≤ MAX_ANSWERS (≈ 0.5 GB of float64).
MAX_ANSWERS = 30_000_000
# Largest values kept in a data summary (dpsum_core/summary.py). The recursive mechanism's
# crossover index is i* ≤ ⌈ln(U/θ₀)/β⌉ + 2 (SPEC §2.3 "Cost"): at the paper's defaults (U = 800 000,
# θ₀ = 50 000, β = 2ρε/5 with ε = 0.01, ρ ≥ 0.1) that is ≤ 6 934, so i* < k and no extra pass is
# needed for it. 8 192 values are 64 KiB: the summary stays small.
SUMMARY_TOP_K = 8192
# Second aggregation passes one run may ask for before it is refused (summary.complete).
SUMMARY_MAX_PASSES = 64
# Points one second pass may add (SQM with a per-query recursive θ asks for trials × m points).
SUMMARY_MAX_EXTRA_POINTS = 20_000
