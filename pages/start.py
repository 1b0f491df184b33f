"""The app's root URL ``/``: the protocol explorer, at its own documented URL ``/protocol-explorer``.

Streamlit serves its default page at ``/`` only, never at the page's ``url_path``, so the explorer
is an ordinary page (reachable at ``/protocol-explorer`` on a fresh and a warm server, see app.py)
and this hidden default page hands the root over to it, with the link's settings.
"""

from pages._first_run import through_router

through_router()  # a deep link as a fresh server's first request runs this file itself (pages/_first_run.py)

import streamlit as st

st.switch_page("pages/protocol-explorer.py", query_params=st.query_params.to_dict())
