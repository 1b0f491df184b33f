"""Evaluation Audit Workbench: Streamlit entry point.

`streamlit run app.py` opens the protocol explorer on the bundled frozen policy class. This file
only sets up the page, the shared sidebar and the router; each page lives in ``pages/`` and every
number on a page comes from ``audit_core.analyses``.
"""

import streamlit as st

from pages._page_config import configure_page, tune_allocator

configure_page()  # before st.navigation, else the default page's icon is fetched as the favicon
tune_allocator()  # a shared server gives back what a large upload used (pages/_page_config.py)

# Each page file is named by its URL path (``pages/minimal-supports.py`` serves ``/minimal-supports``),
# so Streamlit's first run of a server process, which matches the URL against pages/*.py itself,
# finds the page file, and the page file runs this router first (pages/_first_run.py).
PAGES = {
    "Identifiability": [
        # The root URL: hands over to the explorer at /protocol-explorer (pages/start.py says why).
        st.Page("pages/start.py", title="Protocol explorer", icon=":material/hub:", default=True, visibility="hidden"),
        st.Page("pages/protocol-explorer.py", title="Protocol explorer", icon=":material/hub:"),
        st.Page("pages/minimal-supports.py", title="Minimal supports", icon=":material/join_inner:"),
        st.Page("pages/testbed-items.py", title="Testbed items", icon=":material/science:"),
        st.Page("pages/measure-logs.py", title="Measure response logs", icon=":material/analytics:"),
    ],
    "Adaptive auditing": [
        st.Page("pages/replay-run.py", title="Replay", icon=":material/replay:"),
        st.Page("pages/simulation.py", title="Simulate", icon=":material/casino:"),
        st.Page("pages/live-audit.py", title="Live audit", icon=":material/fact_check:"),
        st.Page("pages/audit-planner.py", title="Audit planner", icon=":material/event_note:"),
        st.Page("pages/compare-runs.py", title="Compare runs", icon=":material/compare_arrows:"),
    ],
    "Share": [
        st.Page("pages/audit-report.py", title="Report", icon=":material/description:"),
    ],
}

# st.navigation before the page modules' imports: until it runs, the first run of a server process
# shows Streamlit's own list of pages/*.py in the sidebar (pages/_first_run.py).
page = st.navigation(PAGES)

from pages import _runs, _shared, _state, _warm  # noqa: E402  (after st.navigation, see above)

_state.keep_widget_state()  # before any page: choices made on other pages survive the switch
with _runs.counted():  # background warm-ups wait while visitors' pages run (pages/_runs.py)
    try:
        page.run()
    except _shared.PageStopped:
        pass  # the page asked for input and ended its own run; the sidebar below is still drawn
    finally:
        # After the page (also when it stops early), so the list of computed results is current.
        _shared.sidebar()
# Once per server process, after its first page has run to its end (not after a hand-over such as
# the root URL's to the explorer): every page's use case and bundled first view into the shared
# caches, so a visitor's first load of another page computes none of it (pages/_warm.py).
_warm.start()
