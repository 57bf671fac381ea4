"""The one module of limits: used by the validators, the CLI and the app's widgets."""

from __future__ import annotations

EPSILON_MIN = 1e-4
EPSILON_MAX = 100.0
# The largest total ε of a ledger (dpsum_core/publish/ledger.py): ten releases at EPSILON_MAX.
# Far beyond any total that protects anyone (e^1000 overflows a float); a larger one is a typo.
EPSILON_TOTAL_MAX = 1000.0
RHO_MIN = 0.01
RHO_MAX = 0.99
MAX_BINS = 5000
MAX_TRIALS = 10_000
MAX_ROWS = 20_000_000
MAX_UPLOAD_MB = 200
# A table is refused before it is decoded (dpsum_core/data/reading.py) when its header (CSV) or
# metadata (Parquet) shows more than MAX_COLUMNS columns, or when the estimated decoded size of
# the columns read — Parquet: Arrow's buffers (fixed width per row, or the pages' uncompressed
# bytes) plus 8 bytes per row of the DataFrame; text: 8 bytes per line for a column of numbers,
# a string object per line and the file's bytes for a column of text — exceeds MAX_DECODED_MB:
# a few hundred kB of compressed Parquet can decode to gigabytes. Only the chosen value and
# identifier columns are decoded; the other columns are listed from the header, the metadata
# and the first rows. 512 MB holds 2·10⁷ rows of one numeric Parquet column (320 MB).
MAX_COLUMNS = 2000
MAX_DECODED_MB = 512
# What all the app's sessions together may hold of uploads at once (dpsum_ui/uploads.py): the
# kept bytes of each uploaded file and the columns decoded from it, reserved before decoding
# and released when the session drops them; an upload that would exceed it is refused.
MAX_UPLOADS_HELD_MB = 1536
# A CSV header line longer than this is refused (a header is read before anything is parsed).
MAX_HEADER_BYTES = 2**20
MAX_UPPER = 1e15
# The smallest public U: bin widths U/n stay normal floats (≥ 2·10⁻¹⁶ at n = MAX_BINS) and the
# domain prints meaningfully; a narrower domain should be measured in a smaller unit.
MIN_UPPER = 1e-6
# SVT's public grid u_k = s·c^(k−1) up to U has K = ⌈log_c(U/s)⌉ + 1 points; SVT draws
# trials × K noise values (× m for SQM's per-query choice), so K is bounded: 200 points allow
# c ≈ 1.014 on the paper's [s, U] = [5·10⁴, 8·10⁵] (the paper uses 1.2), and 10⁴ trials of SQM's
# per-query SVT on Q1 stay within minutes (bench/inputs.py).
MAX_SVT_GRID = 200
# The recursive mechanism's β: e^β = e^100 exceeds the ratio of any two values in
# [MIN_UPPER, MAX_UPPER] (≈ e^48), so a larger β only adds noise (scale β/ε_θ on ln θ); the
# bound also keeps β·i* and β/ε_θ finite.
MAX_RM_BETA = 100.0
# The smallest θ a data-dependent truncation step may release, as a fraction of U: θ ≥ U·2⁻⁴⁰
# (public). With a large β and a small ε_θ the recursive mechanism's ln θ has noise of scale
# β/ε_θ and exp(ln θ) can underflow to 0, which would make the noise scale θ/ε zero. Raising θ
# to this floor is post-processing; it is below any useful truncation (U·10⁻¹²).
THETA_MIN_FRACTION = 2.0**-40
# A run keeps every noisy answer (with and without isotonic regression) in memory:
# trials × queries × algorithms × truncation methods ≤ MAX_ANSWERS (≈ 0.5 GB of float64).
MAX_ANSWERS = 30_000_000
# Domain fit warnings (shown to the data holder only, never used to set U): "most records in a
# few bins" = DOMAIN_CROWDED_RECORDS of the records in at most DOMAIN_CROWDED_BINS of the bins;
# "many clipped" = more than DOMAIN_CLIPPED_SHARE of the records were above U.
DOMAIN_CROWDED_RECORDS = 0.9
DOMAIN_CROWDED_BINS = 0.02
DOMAIN_CLIPPED_SHARE = 0.01
# Largest values kept in a data summary (dpsum_core/summary.py). The recursive mechanism's
# crossover index is i* ≤ ⌈ln(U/θ₀)/β⌉ + 2 (SPEC §2.3 "Cost"): at the paper's defaults (U = 800 000,
# θ₀ = 50 000, β = 2ρε/5 with ε = 0.01, ρ ≥ 0.1) that is ≤ 6 934, so i* < k and no extra pass is
# needed for it. 8 192 values are 64 KiB: the summary stays small.
SUMMARY_TOP_K = 8192
# Second aggregation passes one run may ask for before it is refused (summary.complete).
SUMMARY_MAX_PASSES = 64
# Undecided steps of the crossover index's binary search one second pass fetches ahead (both
# outcomes of each: at most 2^d − 1 ranks per search). SQM with a per-query recursive θ runs
# m searches of ≈ log₂ N steps; fetching 4 levels at once cut 21 passes to 4 (Q1, 3·10⁷ rows).
SUMMARY_SPECULATIVE_PROBES = 4
# Points one second pass may add (SQM with a per-query recursive θ asks for trials × m points).
SUMMARY_MAX_EXTRA_POINTS = 20_000
# The decision view's ε grid: DECIDE_EPSILON_POINTS log-spaced values from DECIDE_EPSILON_LOW to
# DECIDE_EPSILON_HIGH (the app's ε slider range); the simulation check runs every
# DECIDE_SIMULATE_EVERY-th of them (7 runs), each a full run with the configured trials.
DECIDE_EPSILON_LOW = 1e-3
DECIDE_EPSILON_HIGH = 10.0
DECIDE_EPSILON_POINTS = 25
DECIDE_SIMULATE_EVERY = 4
# Decide's published-interval width: measured on DECIDE_INTERVAL_RELEASES simulated releases per
# (configuration, ε), seeded with DECIDE_INTERVAL_SEED (common draws at every ε: a smooth curve).
DECIDE_INTERVAL_RELEASES = 8
DECIDE_INTERVAL_SEED = 0
# The error target typed on the Decide page, in percent: (0, DECIDE_TARGET_MAX_PERCENT].
DECIDE_TARGET_MAX_PERCENT = 1000.0
# What one click may cost on a shared server, estimated before anything runs from the public
# configuration alone (dpsum_core/simulate/cost.py: answers, GreedyH strategies, RawSum's dense
# design, the points of a sweep or a simulation). A run, grid, sweep or simulation estimated
# above MAX_CLICK_SECONDS is refused with the estimate; a link or a settings file starts a run
# by itself only below MAX_LINK_SECONDS (above it, its settings are restored and Run waits).
MAX_CLICK_SECONDS = 60.0
MAX_LINK_SECONDS = 3.0
# Process-wide caches, bounded in bytes (least recently used evicted first; the newest entry is
# kept even when alone above the bound, since its run needs it): RawSum's dense designs (up to
# three n × n float64 matrices each, ≈ 0.6 GB at MAX_BINS) and GreedyH strategies (≈ 0.1 MB at
# n = 1000): the shared cache of public keys, the process cache of a single user (CLI), and
# each browser session's cache of θ-dependent strategies.
MAX_DESIGN_CACHE_BYTES = 1 << 30
MAX_SHARED_STRATEGY_BYTES = 64 << 20
MAX_PROCESS_STRATEGY_BYTES = 256 << 20
MAX_SESSION_STRATEGY_BYTES = 64 << 20
# Heavy runs of all sessions share the cores through one process-wide queue (dpsum_ui/turns.py):
# a click estimated above QUEUE_ABOVE_SECONDS waits for a free slot; lighter ones (the default
# Explorer run, ≈ 2.6 s estimated, mostly one-off builds that are cached) never wait.
QUEUE_ABOVE_SECONDS = 3.0
# The queue is fair to people, not to clicks (issue 27.4): one client (a browser, all its tabs)
# holds at most QUEUE_PER_CLIENT heavy runs running or queued, and a heavy click that would wait
# behind more than QUEUE_MAX_SECONDS of estimated runs is refused (try again later).
QUEUE_PER_CLIENT = 2
QUEUE_MAX_SECONDS = 600.0
# Every session's kept results (runs, sweeps, curves, figures: dpsum_ui/store.py) within this
# many bytes, least recently used out (the newest is kept even alone above it): one session
# held ≈ 1.1 GB of four heavy runs.
MAX_SESSION_MEMO_BYTES = 256 << 20
# What cleaning a column costs (dpsum_core/data/cleaning.py: cleaning_seconds), per row read:
# parsing text cells (≈ 0.5–2 µs a row on this project's 2-core machine), and with a privacy
# identifier the sort of the rows by person and value and the per-person sums (≈ 0.5–1.5 µs a
# row, 2·10⁶ rows in 1–3 s). At MAX_ROWS by person that is ≈ 50 s: within MAX_CLICK_SECONDS, so
# never refused, but an upload of more than ≈ 1.2·10⁶ rows cleaned by person takes a queue turn.
CLEAN_ROW_SECONDS = 1e-6
CLEAN_PERSON_ROW_SECONDS = 1.5e-6
# Server datasets (dpsum_ui/server_data.py): files one dataset folder may hold (each is checked
# and handed to DuckDB by name) and entries the Data page lists (more can be typed by path).
MAX_DATASET_FILES = 10_000
MAX_LISTED_DATASETS = 1_000
# ClampShells' designs (dpsum_core/mechanisms/clampshells.py), process-wide, bounded in bytes
# (least recently used out): 32 designs at 5 000 bins could hold ≈ 0.8 GB.
MAX_CLAMPSHELLS_CACHE_BYTES = 256 << 20
# Hashing a server file for its ledger fingerprint (SHA-256), priced at this many bytes a second.
HASH_BYTES_PER_SECOND = 500e6
