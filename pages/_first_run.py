"""The one thing a page file does before its own code: make sure the router (``app.py``) runs it.

Streamlit runs the first script run of a server process through its pages/ folder handling
(``streamlit/runtime/scriptrunner/script_runner.py``, ``_mpa_v1``): while
``PagesManager.uses_pages_directory`` is still True (a ``pages/`` folder beside ``app.py``, and no
``st.navigation`` has run in this process yet), it lists ``pages/*.py``, matches the URL path
against their file names and runs the matching file itself, without ``app.py``. Page files are
named by their URL path (``pages/minimal-supports.py`` serves ``/minimal-supports``), so a deep
link opened as a fresh server's first request runs its own page file; that file calls
:func:`through_router` first, which runs the router, whose ``st.navigation`` resolves the same URL
and runs this same file again as its page, then ends the outer run. On every later run (and in a
test that runs a page file alone) ``st.navigation`` has run and this does nothing.
"""

from __future__ import annotations

import runpy
from pathlib import Path

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

ROUTER = Path(__file__).resolve().parents[1] / "app.py"


def through_router() -> None:
    """Run ``app.py`` and end this run when Streamlit's pages/ handling ran this page file itself."""
    if PagesManager.uses_pages_directory:
        runpy.run_path(str(ROUTER), run_name="__main__")
        st.stop()
