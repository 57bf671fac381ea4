"""``dpsum app [STREAMLIT OPTIONS]``: start the dashboard from the installed files.

Runs ``python -m streamlit run <this package>/app.py`` with the repository's Streamlit settings
(``.streamlit/config.toml``, shipped as ``streamlit_config.toml``) passed as command-line
options, so they hold from any folder; options given after ``dpsum app`` (``--server.port``,
``--server.headless true``, …) come last and win. ``dpsum app --help`` prints this help and
Streamlit's own.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
APP = HERE / "app.py"
CONFIG = HERE / "streamlit_config.toml"


def config_options(path: Path = CONFIG) -> list[str]:
    """The settings of ``path`` as ``--section.key=value`` options."""
    if not path.exists():
        return []
    options = []
    for section, values in tomllib.loads(path.read_text()).items():
        for key, value in values.items():
            text = str(value).lower() if isinstance(value, bool) else str(value)
            options.append(f"--{section}.{key}={text}")
    return options


def command(argv: list[str]) -> list[str]:
    """The streamlit command line for ``dpsum app ARGV``."""
    return [sys.executable, "-m", "streamlit", "run", str(APP), *config_options(), *argv]


def main(argv: list[str] | None = None) -> int:
    """Start the dashboard (blocks until it stops); returns Streamlit's exit status."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] in (["--help"], ["-h"]):
        print(__doc__.strip() + "\n")
        return subprocess.call([sys.executable, "-m", "streamlit", "run", "--help"])
    if not APP.exists():
        print(f"dpsum: error: the dashboard's app.py is missing from {HERE}", file=sys.stderr)
        return 2
    env = dict(os.environ)
    # app.py imports dpsum_ui and the pages by path: the installed packages are on sys.path.
    return subprocess.call(command(argv), env=env)


if __name__ == "__main__":
    sys.exit(main())
