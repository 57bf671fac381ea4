"""Click-to-figures in the browser: reads the time the end-to-end browser tests record.

    python -m bench.browser [--timings tests/e2e/artifacts/timings.json]

The real-browser tests (tests/e2e, written separately) are expected to write a JSON object to
``tests/e2e/artifacts/timings.json`` with the key ``click_to_figures_s``: seconds from pressing
**Run** on the workload explorer to the figures being drawn. This script only reports it; if the
file or the key is missing it says "not measured" (no target is failed).
"""

from __future__ import annotations

import json
from pathlib import Path

from bench.common import ROOT, emit, machine, parser

TIMINGS = ROOT / "tests" / "e2e" / "artifacts" / "timings.json"
KEY = "click_to_figures_s"


def read_timing(path: Path = TIMINGS, key: str = KEY) -> dict:
    """The recorded value, or ``"not measured"`` with the reason."""
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        return {key: "not measured", "reason": f"{path} not found: run the e2e browser tests"}
    except (OSError, json.JSONDecodeError) as exc:
        return {key: "not measured", "reason": f"{path} unreadable: {exc}"}
    value = data.get(key) if isinstance(data, dict) else None
    if isinstance(value, dict):  # the e2e test records {"median": …, "runs": […]}
        value = value.get("median")
    if not isinstance(value, (int, float)):
        return {key: "not measured", "reason": f"{path} has no numeric {key!r}"}
    return {
        key: float(value),
        "source": str(path),
        "recorded": {k: v for k, v in data.items() if k != key},
    }


def main() -> None:
    """Print the click-to-figures time (or "not measured") as JSON."""
    p = parser(__doc__)
    p.add_argument("--timings", default=str(TIMINGS))
    args = p.parse_args()
    emit({"machine": machine(), **read_timing(Path(args.timings))})


if __name__ == "__main__":
    main()
