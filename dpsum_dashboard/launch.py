"""``dpsum app [STREAMLIT OPTIONS]``: start the dashboard from the installed files.

Runs ``python -m streamlit run <this package>/app.py`` with the repository's Streamlit settings
(``.streamlit/config.toml``, shipped as ``streamlit_config.toml``) passed as command-line
options, so they hold from any folder; options given after ``dpsum app`` (``--server.port``,
``--server.headless true``, …) come last and win. ``dpsum app --help`` prints this help; every
Streamlit option is listed by ``python -m streamlit run --help`` (thousands of lines).

The dashboard listens on 127.0.0.1 only (this machine) unless an address is given: with
``--server.address``, ``STREAMLIT_SERVER_ADDRESS`` or ``server.address`` in a Streamlit
config file (``~/.streamlit/config.toml``, ``./.streamlit/config.toml``). It has no login:
to serve a class, keep it on 127.0.0.1 behind a reverse proxy that authenticates (README,
"Serving the dashboard to a class"). ``dpsum app`` becomes the Streamlit process (exec), so
SIGTERM or Ctrl+C to it stops the server.
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
    """The settings of ``path`` as ``--section.key=value`` options, but the address (chosen by
    :func:`command`: an option would override the user's environment and config)."""
    if not path.exists():
        return []
    options = []
    for section, values in tomllib.loads(path.read_text()).items():
        for key, value in values.items():
            if (section, key) == ("server", "address"):
                continue
            text = str(value).lower() if isinstance(value, bool) else str(value)
            options.append(f"--{section}.{key}={text}")
    return options


LOOPBACK = "127.0.0.1"


def address_given(argv: list[str], cwd: Path | None = None, home: Path | None = None) -> bool:
    """Whether the user chose the address the server listens on: ``--server.address`` among
    ``argv``, the environment (``STREAMLIT_SERVER_ADDRESS``) or a user's Streamlit config file
    (global, or in the folder it is started from)."""
    if any(a == "--server.address" or a.startswith("--server.address=") for a in argv):
        return True
    if os.environ.get("STREAMLIT_SERVER_ADDRESS"):
        return True
    folders = (home or Path.home(), cwd or Path.cwd())
    for path in (folder / ".streamlit" / "config.toml" for folder in folders):
        try:
            if tomllib.loads(path.read_text()).get("server", {}).get("address"):
                return True
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue  # no file, or one Streamlit itself will complain about
    return False


def command(argv: list[str]) -> list[str]:
    """The streamlit command line for ``dpsum app ARGV``: 127.0.0.1 unless an address is
    given (:func:`address_given`)."""
    local = [] if address_given(argv) else [f"--server.address={LOOPBACK}"]
    return [sys.executable, "-m", "streamlit", "run", str(APP), *config_options(), *local, *argv]


COMMON_OPTIONS = """Common Streamlit options:
  --server.port N          the port to listen on (default 8501)
  --server.address ADDR    the address to listen on (default 127.0.0.1: this machine only)
  --server.headless true   do not open a browser
  --browser.gatherUsageStats false
                           no usage statistics (already the default here)"""

def main(argv: list[str] | None = None) -> int:
    """Start the dashboard: this process becomes Streamlit (POSIX exec), so a signal that
    stops ``dpsum app`` stops the server; elsewhere, blocks until it stops and returns its
    exit status."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] in (["--help"], ["-h"]):
        print(__doc__.strip().replace("``", "") + "\n\n" + COMMON_OPTIONS)  # plain text, not RST
        return 0
    if not APP.exists():
        print(f"dpsum: error: the dashboard's app.py is missing from {HERE}", file=sys.stderr)
        return 2
    # app.py imports dpsum_ui and the pages by path: the installed packages are on sys.path.
    args = command(argv)
    if os.name == "posix":
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(args[0], args)  # no child left serving when dpsum app is stopped
    return subprocess.call(args)


if __name__ == "__main__":
    sys.exit(main())
