"""Widget state that outlives its page.

Streamlit drops a widget's value when its page is not drawn. A widget created with
``key=kept(name)`` is re-assigned at the start of every run (``app.py`` calls
:func:`keep_widget_state` before any page), so its value is there when the user comes back.
"""

from __future__ import annotations

import streamlit as st

KEPT_KEYS = "_kept_widget_keys"


def kept(key: str) -> str:
    """A widget key whose value survives page switches (``app.py`` re-asserts it every run;
    Streamlit drops a widget's value when its page is not rendered)."""
    st.session_state.setdefault(KEPT_KEYS, set()).add(key)
    return key


def keep_widget_state() -> None:
    """Re-assign every kept widget value, so switching pages does not reset it."""
    for key in st.session_state.get(KEPT_KEYS, ()):
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]
