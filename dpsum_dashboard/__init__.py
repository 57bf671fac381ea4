"""The installed dashboard: ``dpsum app`` runs ``streamlit run`` on the installed app.py.

In the repository the files here are symbolic links to the real ones (``app.py``,
``app_pages/``, ``sample_data/``, ``.streamlit/config.toml``), so nothing moved and
``streamlit run app.py`` works as before; the wheel holds copies of them as this package's
data (pyproject.toml). Independent of dpsum_core, and does not import streamlit itself.
"""
