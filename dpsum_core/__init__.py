"""dpsum: answering summation queries for numerical attributes under differential privacy.

The engine behind the dashboard and the CLI (no Streamlit imports here). See SPEC.md in the
project's shared material for the mathematics; module names follow the paper's concepts.
"""

from __future__ import annotations

__version__ = "0.1.0"
