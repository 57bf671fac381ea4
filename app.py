"""dpsum dashboard: ``streamlit run app.py``. Page config, navigation and the sidebar only.

The page files live in ``app_pages/``, not ``pages/``: Streamlit auto-discovers a ``pages/``
folder (its older multipage mode) and, on a freshly started server, would run a deep-linked
page file on its own, without this frame, until some session has run this script.
"""

import streamlit as st

from dpsum_ui import guide, shell, style, warmup
from dpsum_ui.uploads import keep_uploads_in_memory

keep_uploads_in_memory()  # before any upload reaches the server's multipart parser

st.set_page_config(
    page_title="dpsum",
    page_icon=":material/functions:",
    layout="wide",
    menu_items={"About": "dpsum: prefix-sum queries under differential privacy."},
)

page = st.navigation(
    [
        st.Page("app_pages/data.py", title="Data", icon=":material/table_chart:", url_path="data"),
        st.Page(
            "app_pages/explorer.py",
            title="Explorer",
            icon=":material/insights:",
            default=True,
        ),
        st.Page(
            "app_pages/single_query.py",
            title="Single query",
            icon=":material/school:",
            url_path="single-query",
        ),
        st.Page(
            "app_pages/compare.py", title="Compare", icon=":material/grid_view:", url_path="compare"
        ),
        st.Page(
            "app_pages/decide.py", title="Decide", icon=":material/target:", url_path="decide"
        ),
        st.Page(
            "app_pages/release.py", title="Release", icon=":material/publish:", url_path="release"
        ),
        st.Page("app_pages/about.py", title="About", icon=":material/info:", url_path="about"),
    ],
    position="top",
)
style.apply()
shell.restore_from_link(page.url_path)
with st.sidebar.container(key=warmup.SLOT):  # hidden (style.py), so always there: no shift
    if warmup.draws_chart_first(page.url_path):
        warmup.preload_chart_library(eager=True)  # evaluated while the page is computed
sidebar = st.sidebar.container()
guide.switch()  # below the summary, before the page reads it
page.run()
with sidebar:
    shell.sidebar_summary(publishing=page.url_path == "release")
    warmup.preload_chart_library()  # when idle, unless done above; the last slot: no room
warmup.start()  # after the page is drawn: the first Run need not import scipy
