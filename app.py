"""Evaluation Audit Workbench: Streamlit entry point.

`streamlit run app.py` opens the protocol explorer on the bundled frozen policy class. This file
only sets up the page, the shared sidebar and the router; each page lives in ``pages/`` and every
number on a page comes from ``audit_core``.
"""

import streamlit as st

from pages import _shared

_shared.configure_page()

PAGES = {
    "Identifiability": [
        st.Page("pages/explorer.py", title="Protocol explorer", icon=":material/hub:",
                url_path="protocol-explorer", default=True),
        st.Page("pages/supports.py", title="Minimal supports", icon=":material/join_inner:",
                url_path="minimal-supports"),
        st.Page("pages/measure.py", title="Measure response logs", icon=":material/analytics:",
                url_path="measure-logs"),
    ],
    "Adaptive auditing": [
        st.Page("pages/replay.py", title="Replay", icon=":material/replay:", url_path="replay-run"),
        st.Page("pages/simulate.py", title="Simulate", icon=":material/casino:", url_path="simulation"),
        st.Page("pages/live_audit.py", title="Live audit", icon=":material/fact_check:", url_path="live"),
    ],
    "Share": [
        st.Page("pages/report.py", title="Report", icon=":material/description:", url_path="audit-report"),
    ],
}

# Streamlit treats a folder named pages/ as a legacy multipage app and matches its file names as
# URL paths; the url_paths above differ from the file names so every URL goes through this router.
page = st.navigation(PAGES)
try:
    page.run()
finally:
    # After the page (also when it stops early), so the list of computed results is current.
    _shared.sidebar()
