"""dpsum dashboard: ``streamlit run app.py``. Page config, navigation and the sidebar only.

The pages are the table :data:`dpsum_ui.pages.PAGES`; this frame asks the opened page's record
(:class:`dpsum_ui.page.Page`) what a link restores and runs, and never branches on a page.

The page files live in ``app_pages/``, not ``pages/``: Streamlit auto-discovers a ``pages/``
folder (its older multipage mode) and, on a freshly started server, would run a deep-linked
page file on its own, without this frame, until some session has run this script.
"""

import streamlit as st

from dpsum_ui import codeversion, guide, phone, shell, style, unsaved, warmup
from dpsum_ui.pages import PAGES
from dpsum_ui.uploads import keep_uploads_in_memory

keep_uploads_in_memory()  # before any upload reaches the server's multipart parser

st.set_page_config(
    page_title="dpsum",
    page_icon=str(style.FAVICON),
    layout="wide",
    menu_items={"About": "dpsum: prefix-sum queries under differential privacy."},
)

if codeversion.changed():  # updated on disk: the pages would mix old and new code
    st.error(codeversion.RESTART)
    st.stop()

navigation = {  # st.Page → its record in the table
    st.Page(
        p.script, title=p.title, icon=p.icon, url_path=p.url_path or None, default=not p.url_path
    ): p
    for p in PAGES
}
page = st.navigation(list(navigation), position="top")
opened = navigation[page]  # the table's record of the page opened
style.apply()
shell.restore_from_link(opened)
with st.sidebar.container(key=warmup.SLOT):  # hidden (style.py), so always there: no shift
    if warmup.draws_chart_first(opened):
        warmup.preload_chart_library(eager=True)  # evaluated while the page is computed
    unsaved.warn_before_leaving()  # a release or download of this run came in its callback
    phone.close_sidebar_after_navigation()  # on a phone the sidebar covered the page chosen
sidebar = st.sidebar.container()
guide.switch()  # below the summary, before the page reads it
page.run()
with sidebar:
    shell.sidebar_summary(publishing=opened.publishing)
    warmup.preload_chart_library()  # when idle, unless done above; the last slot: no room
warmup.start()  # after the page is drawn: the first Run need not import scipy
