"""The page set-up ``app.py`` runs before ``st.navigation``: light imports only (see app.py).

It must come before ``st.navigation``: set after it, the default page's icon (a Material symbol)
became the favicon, which the browser fetches from a font server, and that fails offline.
"""

from __future__ import annotations

import streamlit as st

APP_TITLE = "Evaluation Audit Workbench"


def favicon():
    """A local favicon drawn at start-up (a named icon would be fetched from a font server)."""
    from PIL import Image, ImageDraw
    image = Image.new("RGBA", (64, 64), (31, 78, 121, 255))
    draw = ImageDraw.Draw(image)
    draw.line([(14, 34), (27, 47), (50, 18)], fill="white", width=8)
    return image


def configure_page() -> None:
    """Wide layout, the app's title and the local icon."""
    st.set_page_config(page_title=APP_TITLE, page_icon=favicon(), layout="wide", initial_sidebar_state="expanded")
