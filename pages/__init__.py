"""Dashboard pages (run through ``st.navigation`` in ``app.py``); ``_shared`` holds the common UI bits."""
