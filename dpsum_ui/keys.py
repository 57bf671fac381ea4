"""Stable widget keys of the dashboard: browser and AppTest tests target these names.

Every widget has a fixed ``key=``; the same key on two pages means the same setting (the
value is kept in the session by :mod:`dpsum_ui.store` and shared, e.g. ε on the explorer and
the teaching page).

Sidebar (app.py)
    ``guide``              toggle: the guide's boxes, one per step (a link carries ``guide=1``)
    (otherwise no widgets; a summary of the current dataset and settings, and the seed)

Data page (app_pages/data.py)
    ``data_source``        radio: ``"sample"``, ``"upload"`` or (with a data directory) ``"server"``
    ``data_sample``        selectbox: sample file name (``incomes.csv``, ``incomes_small.csv``)
    ``data_upload``        file_uploader: CSV / TSV / Parquet
    ``data_upload_remove`` button: stop using the uploaded file (shown while the uploader box
                           is empty and a file is in use, e.g. after visiting another page)
    ``data_upload_too_big``  button, hidden: pressed by dpsum_ui.oversize's script when the
                           browser refuses a file above the upload limit (the page says so)
    ``data_server``        selectbox: a file or folder in the data directory (server datasets)
    ``data_server_path``   text_input: or a relative path inside the data directory
    ``data_column``        selectbox: numeric column of the current table
    ``data_id_column``     selectbox: the unit of privacy, ``None`` (one row per person) or the
                           column identifying a person (its rows are summed before clipping)
    ``release_data``       radio: the release dataset, ``"same"`` (the planning data above, the
                           default) or a different ``"sample"`` / ``"upload"``
    ``release_data_sample``  selectbox: the release dataset's sample file
    ``release_data_upload``  file_uploader: the release dataset's file (CSV / TSV / Parquet)
    ``release_data_upload_remove``  button: stop using the uploaded release file (as
                           ``data_upload_remove``)
    ``release_data_upload_too_big``  button, hidden: as ``data_upload_too_big``
    ``release_data_column``  selectbox: the release dataset's numeric column
    ``release_id_column``  selectbox: the release dataset's own unit of privacy, ``None`` until
                           chosen, :data:`~dpsum_ui.datasets.ONE_ROW` or the identifier column
    ``domain_upper``       number_input: public upper bound U
    ``domain_keep``        button: keep the current U after an upload (shown until U is set)
    ``domain_bins_mode``   radio: ``"bins"`` (set n) or ``"width"`` (set the bin width)
    ``domain_bins``        number_input: number of bins n
    ``domain_width``       number_input: bin width U/n
    ``domain_weights``     radio: bin weight rule ``"upper"`` or ``"midpoint"``

Workload explorer (app_pages/explorer.py; also reused on the Compare and Single query pages)
    ``workload_kind``      selectbox: ``Q1``, ``Q2``, ``Q3``, ``every``, ``values``
    ``workload_every``     number_input: K of "every K-th edge"
    ``workload_values``    text_input: explicit thresholds, comma separated
    ``epsilon``            select_slider: ε over log-spaced values 0.001 … 10 (1, 2, 3, 5 per
                           decade, and the current ε if it is none of them)
    ``epsilon_typed``      text_input under it: any ε from 0.0001 to 100, typed with a decimal
                           point and read by widgets.typed_epsilon (a browser number field drops
                           a decimal comma: "0,2" became 2); it sets ``epsilon`` (the one
                           setting: the field only shows and edits it)
    ``epsilon_typed_kept``  not a widget: why a typed text was refused (empty, a comma, not a
                           number, out of range) and ε kept (said once, then this is cleared)
    ``rho``                slider: ρ, share of ε spent on choosing θ
    ``truncation``         segmented_control: ``none``, ``fixed``, ``svt``, ``recursive``
    (each truncation method's parameters: the keys its module's descriptions declare,
    dpsum_core.truncation.method.Param.widget_key, drawn by widgets.method_parameters)
    ``theta_fixed``        number_input: the fixed θ
    ``svt_variant``        radio: ``paper`` or ``tight``
    ``svt_r`` ``svt_c`` ``svt_s``         number_inputs: SVT r, c, s
    ``rm_beta_auto``       checkbox: β = 2ε_θ/5 (paper default)
    ``rm_beta`` ``rm_theta0`` ``rm_mu``   number_inputs: recursive β, θ₀, μ
    ``algorithms``         pills (multi): any of ``sqm``, ``identity``, ``workload``, ``timm``, ``tamm``
    ``trials``             number_input
    ``delta``              number_input: δ of the relative error (in the Parameters popover)
    ``seed``               number_input
    ``seed_new``           button: draw a new seed (does not run anything)
    ``iso``                toggle: show answers/errors with isotonic regression
    ``explorer_run``       button: Run
    ``explorer_parameters``  popover: SVT / Recursive parameters and δ
    ``explorer_share``       popover: link, settings file download / upload
    ``explorer_tab``       tabs (lazy; ``store.put("explorer_tab", label)`` opens one)
    ``explorer_focus``     pills (multi): whose bands the answers and error figures draw (the
                           run's algorithms; all by default, so six bands stay readable one by one)
    ``explorer_preview``   expander (before a run): the data histogram, drawn when opened
    ``share_config_upload``    file_uploader: restore settings from a config JSON
    ``share_config_upload_too_big``  button, hidden: as ``data_upload_too_big``
    ``share_config_download``  download_button: config JSON (+ sample dataset name)
    ``share_summary_csv``      download_button: summary.csv of the last run
    ``share_run_json``         download_button: run.json of the last run

Single query (app_pages/single_query.py)
    ``teach_query``        select_slider: the query's threshold τ (from the workload)
    ``teach_algorithm``    segmented_control: algorithm whose bias/variance is drawn
    ``teach_theta``        setting (no widget): the θ the lesson frame starts at (a link's θ);
                           θ is then moved in the browser by the frame's own slider
    ``teach_private``      toggle: θ chosen privately (measurement budget (1−ρ)ε)
    ``teach_share``        popover: link to this query, θ and algorithm (θ from the frame)
    ``teach_all_box``      expander: every algorithm's error over θ, built only when open
    ``teach_compute``      button: compute θ curves estimated above a link's budget
    (shares ``workload_*``, ``epsilon``, ``rho``, ``trials``, ``seed`` with the explorer)

Compare (app_pages/compare.py)
    ``compare_truncations``  multiselect: truncation methods of the grid
    ``compare_view``         segmented_control: ``heatmap``, ``error``, ``answers``
    ``compare_parameters``   popover: SVT / Recursive parameters and δ
    ``compare_run``          button: Run the grid
    ``sweep_epsilons``       multiselect: ε values of the sweep
    ``sweep_truncation``     selectbox: truncation method used in the sweep
    ``sweep_run``            button: Run the ε sweep
    ``compare_share``        popover: link to the grid and sweep shown

Release (app_pages/release.py; starts from the explorer's settings above)
    ``release_algorithm``  selectbox: the one algorithm to release
    ``release_truncation`` selectbox: the one truncation method (``posthoc`` for RawSum)
    ``release_iso``        toggle: publish isotonic-regressed answers
    ``release_public_cap`` number: an optional public cap (a documented top code) for ClampShells
    ``release_bands``      text_input: optional totals by band, ``LOW-HIGH`` comma separated as
                           ``dpsum release --bands`` (edges 0 or thresholds of the workload),
                           checked before anything is spent; the last release's bands are in its
                           table and files (ReleaseState.last_bands)
    ``release_total``      number_input: the dataset's total ε budget
    ``release_ledger_upload``    file_uploader: continue from a downloaded ledger
    ``release_ledger_upload_too_big``  button, hidden: as ``data_upload_too_big``
    ``release_ledger_download``  download_button: the session's ledger (JSON)
    ``release_raise``      checkbox: raise the uploaded ledger's total (recorded in it)
    ``release_confirm``    checkbox: "I understand this spends ε"
    ``release_unit_confirm``  checkbox: the unit of privacy shown is right for this dataset
    ``release_one_row_sure``  checkbox: one row is one person in this file, although a column
                              looks like an identifier (needed before the unit can be confirmed)
    ``release_go``         button: Release (once per confirmation)
    ``release_answers_csv``      download_button: answers.csv of the last release
    ``release_bands_csv``        download_button: bands.csv of the last release's totals by band
    ``release_record_json``      download_button: release.json of the last release
    ``release_report_html``      download_button: report.html of the last release
    ``release_report_md``        download_button: report.md of the last release
    ``release_estimate``         button: compute an expected error estimated above a link's budget
Decide (app_pages/decide.py)
    ``decide_target_on``     radio: what the target is on, ``"error"`` (the typical error of the
                             analytic curves) or ``"interval"`` (the typical half-width of the
                             published 95 % intervals, measured on simulated releases)
    ``decide_target``        text_input: the target in percent (``5`` = 5 %)
    ``decide_above``         number_input: queries from this percentile of τ up (0 = all)
    ``decide_truncations``   multiselect: truncation methods compared
    ``decide_simulate``      button: simulate at every 4th ε to check the analytic curves
    ``decide_compute``       button: compute curves estimated above a link's budget
    ``decide_to_release``    button: use the ε that meets the target on the Release page
    ``decide_measure``       button: measure the published intervals for the interval target
                             (its search, when estimated above a link's budget)
    ``decide_width``         button: measure the published intervals at the ε offered (when
                             estimated above a link's budget)
    ``decide_share``         popover: link to this view
    ``decide_table``         expander: the curves as a table, with ``decide_csv`` (download),
                             built only when open
    (shares ``workload_*``, ``rho``, ``algorithms``, ``trials``, ``seed`` with the explorer)

Charts and figure downloads (every figure, ``<figure>`` as below)
    ``chart_<figure>`` (the plotly chart itself),
    ``dl_<figure>_stem`` (text_input: the downloads' file name), ``dl_<figure>_note`` (text_area:
    a note written under the figure in its HTML, PNG and SVG downloads),
    ``dl_<figure>_html``, ``dl_<figure>_csv`` (the chart's numbers), ``dl_<figure>_png``,
    ``dl_<figure>_svg`` (PNG/SVG only when a browser for server-side export is installed),
    ``table_<figure>`` (expander: the chart's numbers as a table, built only when open). Figures: ``explorer_answers``,
    ``explorer_error``, ``explorer_isotonic``, ``explorer_theta``, ``explorer_data``,
    ``explorer_expected``, ``data_histogram``, ``teach_curves``, ``teach_all``,
    ``compare_grid``, ``compare_sweep``, ``decide``.
"""

from __future__ import annotations

# Sidebar
GUIDE = "guide"

# Data page
DATA_SOURCE = "data_source"
DATA_SAMPLE = "data_sample"
DATA_UPLOAD = "data_upload"
DATA_UPLOAD_REMOVE = "data_upload_remove"
DATA_UPLOAD_TOO_BIG = "data_upload_too_big"
DATA_COLUMN = "data_column"
DATA_ID_COLUMN = "data_id_column"
DATA_SERVER = "data_server"
DATA_SERVER_PATH = "data_server_path"
RELEASE_DATA = "release_data"
RELEASE_DATA_SAMPLE = "release_data_sample"
RELEASE_DATA_UPLOAD = "release_data_upload"
RELEASE_DATA_UPLOAD_REMOVE = "release_data_upload_remove"
RELEASE_DATA_UPLOAD_TOO_BIG = "release_data_upload_too_big"
RELEASE_DATA_COLUMN = "release_data_column"
RELEASE_ID_COLUMN = "release_id_column"
DOMAIN_UPPER = "domain_upper"
DOMAIN_KEEP = "domain_keep"
DOMAIN_BINS_MODE = "domain_bins_mode"
DOMAIN_BINS = "domain_bins"
DOMAIN_WIDTH = "domain_width"
DOMAIN_WEIGHTS = "domain_weights"

# Experiment settings
WORKLOAD_KIND = "workload_kind"
WORKLOAD_EVERY = "workload_every"
WORKLOAD_VALUES = "workload_values"
EPSILON = "epsilon"
EPSILON_TYPED = "epsilon_typed"  # a typed ε (sets EPSILON; not a setting of its own)
EPSILON_KEPT = "epsilon_typed_kept"  # why a typed ε was refused (said once)
RHO = "rho"
TRUNCATION = "truncation"
RM_BETA = "rm_beta"  # the recursive β's widget (its first value is the dashboard's own)
ALGORITHMS = "algorithms"
TRIALS = "trials"
DELTA = "delta"
SEED = "seed"
SEED_NEW = "seed_new"
ISO = "iso"
EXPLORER_RUN = "explorer_run"
EXPLORER_TAB = "explorer_tab"
EXPLORER_FOCUS = "explorer_focus"
EXPLORER_PARAMETERS = "explorer_parameters"
EXPLORER_SHARE = "explorer_share"
EXPLORER_PREVIEW = "explorer_preview"
SHARE_CONFIG_UPLOAD = "share_config_upload"
SHARE_CONFIG_UPLOAD_TOO_BIG = "share_config_upload_too_big"
SHARE_CONFIG_DOWNLOAD = "share_config_download"
SHARE_SUMMARY_CSV = "share_summary_csv"
SHARE_RUN_JSON = "share_run_json"

# Single query
TEACH_QUERY = "teach_query"
TEACH_ALGORITHM = "teach_algorithm"
TEACH_THETA = "teach_theta"
TEACH_PRIVATE = "teach_private"
TEACH_SHARE = "teach_share"
TEACH_ALL = "teach_all_box"
TEACH_COMPUTE = "teach_compute"  # compute θ curves estimated above a link's budget

# Compare
COMPARE_TRUNCATIONS = "compare_truncations"
COMPARE_VIEW = "compare_view"
COMPARE_RUN = "compare_run"
COMPARE_PARAMETERS = "compare_parameters"
SWEEP_EPSILONS = "sweep_epsilons"
SWEEP_TRUNCATION = "sweep_truncation"
SWEEP_RUN = "sweep_run"
COMPARE_SHARE = "compare_share"

# Release
RELEASE_ALGORITHM = "release_algorithm"
RELEASE_TRUNCATION = "release_truncation"
RELEASE_ISO = "release_iso"
RELEASE_PUBLIC_CAP = "release_public_cap"  # a documented top code, ClampShells' θ at no ε
RELEASE_BANDS = "release_bands"  # totals by band, as --bands: "500-1000, 1000-1500"
RELEASE_TOTAL = "release_total"
RELEASE_LEDGER_UPLOAD = "release_ledger_upload"
RELEASE_LEDGER_UPLOAD_TOO_BIG = "release_ledger_upload_too_big"
RELEASE_LEDGER_DOWNLOAD = "release_ledger_download"
RELEASE_RAISE = "release_raise"
RELEASE_CONFIRM = "release_confirm"
RELEASE_UNIT_CONFIRM = "release_unit_confirm"
RELEASE_ONE_ROW_SURE = "release_one_row_sure"
RELEASE_GO = "release_go"
RELEASE_ANSWERS_CSV = "release_answers_csv"
RELEASE_BANDS_CSV = "release_bands_csv"
RELEASE_RECORD_JSON = "release_record_json"
RELEASE_REPORT_HTML = "release_report_html"
RELEASE_REPORT_MD = "release_report_md"
RELEASE_ESTIMATE = "release_estimate"  # compute an expected error above a link's budget
# Decide
DECIDE_TARGET = "decide_target"
DECIDE_TARGET_ON = "decide_target_on"
DECIDE_ABOVE = "decide_above"
DECIDE_TRUNCATIONS = "decide_truncations"
DECIDE_SIMULATE = "decide_simulate"
DECIDE_SHARE = "decide_share"
DECIDE_TABLE = "decide_table"
DECIDE_CSV = "decide_csv"
DECIDE_COMPUTE = "decide_compute"  # compute curves estimated above a link's budget
DECIDE_TO_RELEASE = "decide_to_release"  # "Use ε = … on the Release page"
DECIDE_MEASURE = "decide_measure"  # the interval target's search, estimated above a link's budget
DECIDE_WIDTH = "decide_width"  # the published width at the ε offered, estimated above it


def download_key(figure: str, fmt: str) -> str:
    """Key of a figure's download button, e.g. ``dl_explorer_error_html``."""
    return f"dl_{figure}_{fmt}"


def table_key(figure: str) -> str:
    """Key of a figure's data-table expander, e.g. ``table_explorer_error``."""
    return f"table_{figure}"
