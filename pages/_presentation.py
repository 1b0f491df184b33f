"""Presentation mode: the *Present* toggle, kept in the URL as ``?present=1``, and the page style
that fits a projector at 1280 px (issue 19 items 13 and 14).

The CSS here applies in both modes where it only keeps things from being cut: buttons wrap their
label instead of truncating it, wide tables scroll inside their frame, and the sidebar keeps its
text while a page waits for input. Presentation mode adds the projector sizes on top.
"""

from __future__ import annotations

import streamlit as st

PRESENT_PARAM = "present"

# Both modes: never truncate a button's label ("PDF (slides an…"), let a wide table scroll.
_LAYOUT_CSS = """<style>
[data-testid="stDownloadButton"] button, [data-testid="stButton"] button, [data-testid="stPopover"] button
  {height: auto !important; min-height: 2.5rem; white-space: normal !important;}
[data-testid="stDownloadButton"] button p, [data-testid="stButton"] button p, [data-testid="stPopover"] button p
  {white-space: normal !important; overflow: visible !important; text-overflow: clip !important;}
[data-testid="stPageLink"] p, [data-testid="stPageLink-NavLink"] span
  {white-space: normal !important; overflow: visible !important; text-overflow: clip !important;}
[data-testid="stVegaLiteChart"] {min-width: 0;}
</style>"""

_PRESENTATION_CSS = """<style>
section[data-testid="stSidebar"], div[data-testid="stSidebarCollapsedControl"], [data-testid="stToolbar"],
header[data-testid="stHeader"] {display: none !important;}
.block-container {padding-top: 1rem !important; max-width: 100% !important;}
html, body, [data-testid="stMarkdownContainer"] p, [data-testid="stText"], label, .stCaption {font-size: 1.12rem !important;}
h1 {font-size: 2.4rem !important;}
[data-testid="stMetricValue"], [data-testid="stMetricValue"] p, [data-testid="stMetricValue"] div
  {font-size: 2.6rem !important; font-weight: 600 !important;}
[data-testid="stMetricLabel"] p {font-size: 1.1rem !important;}
label[data-baseweb="checkbox"] div[role="switch"], [data-testid="stToggle"] div[role="checkbox"] {outline: 2px solid #1f4e79;}
[data-testid="stAlert"] p {font-size: 1.2rem !important; font-weight: 600;}
</style>"""


def presenting() -> bool:
    """Presentation mode is on (kept in the URL as ``?present=1``, so a link opens in it)."""
    return st.query_params.get(PRESENT_PARAM) == "1"


def _set_presenting() -> None:
    if st.session_state.get("presentation_toggle"):
        st.query_params[PRESENT_PARAM] = "1"
    elif PRESENT_PARAM in st.query_params:
        del st.query_params[PRESENT_PARAM]


def presentation_switch() -> None:
    """The presentation-mode toggle (top of every page, since the sidebar is hidden in the mode)."""
    st.session_state["presentation_toggle"] = presenting()
    st.toggle("Present", key="presentation_toggle", on_change=_set_presenting,
              help="Hides the sidebar and toolbar, enlarges type and keeps itself in the URL.")
    st.html(_LAYOUT_CSS + (_PRESENTATION_CSS if presenting() else ""))
