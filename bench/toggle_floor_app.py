"""The floor of bench_browser_toggle.py: a bare Streamlit page with one `target` toggle and one
"Collisions" metric in a fragment. Its click-to-number time is what Streamlit and Chromium cost
on this machine before the workbench adds anything (``streamlit run bench/toggle_floor_app.py``)."""

import streamlit as st


@st.fragment
def toggle_and_number() -> None:
    observed = st.toggle("target", value=True)
    st.metric("Collisions", 0 if observed else 3)


toggle_and_number()
