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
# Domain fit warnings (shown to the data holder only, never used to set U): "most records in a
# few bins" = DOMAIN_CROWDED_RECORDS of the records in at most DOMAIN_CROWDED_BINS of the bins;
# "many clipped" = more than DOMAIN_CLIPPED_SHARE of the records were above U.
DOMAIN_CROWDED_RECORDS = 0.9
DOMAIN_CROWDED_BINS = 0.02
DOMAIN_CLIPPED_SHARE = 0.01
