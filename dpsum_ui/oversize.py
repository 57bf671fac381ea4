"""A data file above the upload limit, which the browser refuses by itself: what the page says
and does then.

Streamlit's uploader checks the size in the browser and refuses a larger file before sending
anything: it lists the file in red ("File must be 200.0MB or smaller.") and the app is never
told, so no error of the app could say what to do. :func:`watch` puts a hidden button beside
the uploader and a script in the top window (``st.html`` runs its scripts there) that presses
it when a red "too large" file appears in that uploader: the click's callback records the
refusal as the app's own refusals are recorded (:func:`dpsum_ui.datasets.on_upload`), so
the error under the box says what was wrong and what to do, and the box is reset
(:func:`dpsum_ui.uploads.uploader_size`): the red file is listed no more.

The settings-file and ledger uploaders (JSON files of a few kilobytes) are refused the same way
above the same limit: :func:`watch_file` watches them, with their own callbacks
(:func:`dpsum_ui.explorer.on_config_too_big`, :func:`dpsum_ui.release.on_ledger_too_big`)
and words (:func:`file_message`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Literal

import streamlit as st

from dpsum_core import limits

from . import keys as K
from .datasets import Role
from .store import data_state, put_data
from .uploads import uploader_size

SUFFIX = "_too_big"  # the hidden button of uploader ``key`` is ``key + SUFFIX``
BUTTONS = {K.DATA_UPLOAD: K.DATA_UPLOAD_TOO_BIG,
           K.RELEASE_DATA_UPLOAD: K.RELEASE_DATA_UPLOAD_TOO_BIG,
           K.SHARE_CONFIG_UPLOAD: K.SHARE_CONFIG_UPLOAD_TOO_BIG,
           K.RELEASE_LEDGER_UPLOAD: K.RELEASE_LEDGER_UPLOAD_TOO_BIG}  # fmt: skip

# Finds a red file whose error is its size (Streamlit: "File must be … or smaller."), in an
# uploader with a hidden button, and presses that button once for that file.
_SCRIPT = """<script>
(() => {
  if (window.__dpsumTooBig) return;
  const seen = new WeakSet();
  const check = () => document
    .querySelectorAll('[data-testid="stFileChip"][aria-invalid="true"]')
    .forEach((chip) => {
      const alert = chip.querySelector('[role="alert"]');
      if (seen.has(chip) || !alert || !/or smaller/.test(alert.textContent)) return;
      const box = chip.closest('[class*="st-key-"]');
      const name = box && [...box.classList].find((c) => c.startsWith("st-key-"));
      const press = name && document.querySelector(
        "." + CSS.escape(name + "SUFFIX") + " button");
      if (!press) return;
      seen.add(chip);
      press.click();
    });
  window.__dpsumTooBig = new MutationObserver(check);
  window.__dpsumTooBig.observe(document.body, { childList: true, subtree: true });
  check();
})();
</script>""".replace("SUFFIX", SUFFIX)


def limit_mb(refused: int) -> int:
    """The upload limit in force in an uploader that refused ``refused`` files, in MB: its own
    (:func:`~dpsum_ui.uploads.uploader_size`), else the server's ``server.maxUploadSize``."""
    own = uploader_size(refused)
    return own if own is not None else int(st.get_option("server.maxUploadSize"))


def message(limit: int, role: Role) -> str:
    """What the page says under the ``role`` uploader after the browser refused a file above
    ``limit`` MB: what was wrong, and the ways to use the data all the same."""
    command = ("release it with the command line, which reads files of any size without "
               "uploading them: `dpsum release --engine duckdb --data FILE --column COLUMN …`"
               if role == "release" else
               "use the command line, which reads files of any size without uploading them: "
               "`dpsum run --engine duckdb --data FILE --column COLUMN …` to plan, `dpsum "
               "release …` to release")  # fmt: skip
    return (
        f"That file is larger than the {limit} MB upload limit, so your browser refused it "
        "before sending it: nothing was uploaded. To use it here, upload a smaller file made "
        "from it: only the value column (and the person column if a person has several rows), "
        "a random sample of the rows, or one total per person (Parquet is often several times "
        f"smaller than CSV; at most {limits.MAX_ROWS:,} rows). To use the whole file, "
        f"{command} (README, “Large data”); or ask whoever runs this dashboard to put the "
        "file in its data directory, then choose “a server dataset”."
    )


def file_message(limit: int, kind: Literal["settings", "ledger"]) -> str:
    """What the page says after the browser refused a settings file or a ledger above ``limit``
    MB: what was wrong (no such file is that large: it is another file), and what to do."""
    if kind == "settings":
        return (
            f"That file is larger than the {limit} MB upload limit, so your browser refused it "
            "before sending it: nothing was read, and your current settings are unchanged. A "
            "settings file is a few kilobytes: choose the JSON file that **Download settings** "
            "saved (or a run.json of `dpsum run`)."
        )
    return (
        f"That file is larger than the {limit} MB upload limit, so your browser refused it "
        "before sending it: nothing was loaded, and the ledger in use is unchanged. A ledger is "
        "a few kilobytes: upload the file that **Download the ledger** saved (dpsum_ledger.json)."
    )


def watch(key: str, role: Role) -> None:
    """The hidden button of uploader ``key`` (the ``role`` dataset's) and the script that
    presses it when the browser refuses a file above the limit (hidden by dpsum_ui.style)."""
    watch_file(key, lambda: _refuse(role))


def watch_file(key: str, refused: Callable[[], None]) -> None:
    """The hidden button of uploader ``key`` (one of :data:`BUTTONS`), whose callback
    ``refused`` says the refusal and resets the box, and the script that presses it."""
    with st.container(key=BUTTONS[key] + "_slot"):
        st.button("A file above the upload limit was refused", key=BUTTONS[key],
                  on_click=refused)  # fmt: skip
        st.html(_SCRIPT, unsafe_allow_javascript=True)


def _refuse(role: Role) -> None:
    """The hidden button's callback: the ``role`` uploader's browser refused a file above its
    limit. Recorded as the app's own refusals are (:func:`dpsum_ui.datasets.on_upload`): the
    error is said under the box, the data in use stays, and the uploader is reset."""
    kept = data_state()
    planning, release = kept.refused
    if role == "release":
        error = message(limit_mb(release), role)
        put_data(replace(kept, release_upload_error=error, refused=(planning, release + 1)))
    else:
        error = message(limit_mb(planning), role)
        put_data(replace(kept, upload_error=error, refused=(planning + 1, release)))
