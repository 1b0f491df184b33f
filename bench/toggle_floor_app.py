"""The floor of bench_browser_toggle.py and load_server.py: a bare Streamlit page with one `target`
toggle and one "Collisions" metric in a fragment. Its click-to-number time is what Streamlit and
Chromium cost on this machine before the workbench adds anything (``streamlit run
bench/toggle_floor_app.py``).

``FLOOR_METRICS=N`` (environment) draws N metrics instead of one: the same page sending as many
messages per toggle as another page does, so a toggle's cost can be split into Streamlit's cost
per message and the rest (load_server.py --toggle-load)."""

import os

import streamlit as st

METRICS = max(int(os.environ.get("FLOOR_METRICS", "1")), 1)


@st.fragment
def toggle_and_number() -> None:
    observed = st.toggle("target", value=True)
    for i in range(METRICS):
        st.metric("Collisions" if i == 0 else f"Collisions {i}", 0 if observed else 3)


toggle_and_number()
