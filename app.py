"""Evaluation Audit Workbench: Streamlit entry point.

`streamlit run app.py` opens the protocol explorer on the bundled frozen policy class. This file
only sets up the page, the shared sidebar and the router; each page lives in ``pages/`` and every
number on a page comes from ``audit_core.analyses``.
"""

import streamlit as st

from pages._page_config import configure_page, tune_allocator

configure_page()  # before st.navigation, else the default page's icon is fetched as the favicon
tune_allocator()  # a shared server gives back what a large upload used (pages/_page_config.py)

PAGES = {
    "Identifiability": [
        # The root URL: hands over to the explorer at /protocol-explorer (pages/_home.py says why).
        st.Page("pages/_home.py", title="Protocol explorer", icon=":material/hub:", url_path="start",
                default=True, visibility="hidden"),
        st.Page("pages/explorer.py", title="Protocol explorer", icon=":material/hub:", url_path="protocol-explorer"),
        st.Page("pages/supports.py", title="Minimal supports", icon=":material/join_inner:",
                url_path="minimal-supports"),
        st.Page("pages/testbed.py", title="Testbed items", icon=":material/science:", url_path="testbed-items"),
        st.Page("pages/measure.py", title="Measure response logs", icon=":material/analytics:",
                url_path="measure-logs"),
    ],
    "Adaptive auditing": [
        st.Page("pages/replay.py", title="Replay", icon=":material/replay:", url_path="replay-run"),
        st.Page("pages/simulate.py", title="Simulate", icon=":material/casino:", url_path="simulation"),
        st.Page("pages/live_audit.py", title="Live audit", icon=":material/fact_check:", url_path="live-audit"),
        st.Page("pages/plan.py", title="Audit planner", icon=":material/event_note:", url_path="audit-planner"),
        st.Page("pages/compare.py", title="Compare runs", icon=":material/compare_arrows:",
                url_path="compare-runs"),
    ],
    "Share": [
        st.Page("pages/report.py", title="Report", icon=":material/description:", url_path="audit-report"),
    ],
}

# Deep links. Because a pages/ folder sits next to this file, Streamlit runs the FIRST script run of
# each server process through its legacy multipage handling (PagesManager.uses_pages_directory is
# still True until st.navigation runs): it lists pages/*.py, matches the URL path against their file
# names and, finding none, shows "Page not found" before falling back to this file. So every
# non-default url_path below has a file pages/<url_path>.py that only runs this router; the legacy
# match then succeeds and this router resolves the URL as on every later run. A url_path must never
# equal a page file's name: on a fresh server that URL would run the page file without this router.
# tests/app/test_deep_links.py keeps the two lists in step.
#
# st.navigation comes first, before the heavy imports: until it runs, a fresh server's first page shows
# that legacy list of pages/*.py in the sidebar (for the whole cold start, about 4 s), and a click on
# it would run a page file without this router.
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
