"""Charts on the pages: one call draws a Vega-Lite spec from ``audit_core.views`` at the width
of its column, with PNG and SVG downloads (issue 19 items 13 and 14).

The spec fills its container's width (``width: "container"``, autosize ``fit-x``). Anything a spec
draws outside its scales' domains counts in that fit, and shrinks the plot: the views keep every
mark inside (see ``views.charts.trajectory_chart``: a live audit's m line beyond the x scale made
the Live audit chart a third of the width, and nothing after a *Present* toggle or a resize), and
tests/app/test_layout_browser.py measures the plot after a *Present* toggle and a resize.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import pandas as pd
import streamlit as st
from streamlit import dataframe_util

from audit_core.report import chart_png, chart_svg, safe_csv_bytes

# A stored spec (one object a shared cache hands every session: ``stored=True``) with its named
# datasets already in the Arrow bytes Streamlit sends. st.vega_lite_chart converts a dataset given
# as rows on every call (the explorer's lattice: two per toggle, ~40% of a toggle's rerun); given
# bytes it sends them as they are. The same call Streamlit makes, so the same bytes reach the browser.
_PREPARED: OrderedDict[int, tuple[dict, dict]] = OrderedDict()
_PREPARED_ENTRIES = 256
_PREPARED_LOCK = threading.Lock()


def _with_arrow_datasets(spec: dict) -> dict:
    with _PREPARED_LOCK:
        found = _PREPARED.get(id(spec))
        if found is not None and found[0] is spec:
            _PREPARED.move_to_end(id(spec))
            return found[1]
    datasets = spec.get("datasets")
    if not isinstance(datasets, dict) or not all(isinstance(rows, list) for rows in datasets.values()):
        return spec
    prepared = {**spec, "datasets": {name: dataframe_util.convert_anything_to_arrow_bytes(rows)
                                     for name, rows in datasets.items()}}
    with _PREPARED_LOCK:
        _PREPARED[id(spec)] = (spec, prepared)   # the spec kept alive with it: its id is not reused
        while len(_PREPARED) > _PREPARED_ENTRIES:
            _PREPARED.popitem(last=False)
    return prepared


def _chart_name(spec: dict) -> str:
    title = spec.get("title")
    text = title.get("text", "chart") if isinstance(title, dict) else (title or "chart")
    text = " ".join(text) if isinstance(text, list) else str(text)
    slug = "".join(ch if ch.isalnum() else "-" for ch in text.lower()).strip("-")
    return "-".join(filter(None, slug.split("-")))[:60] or "chart"


def show_chart(spec: dict, *, key: str | None = None, on_select=None, export: bool = True, stored: bool = False):
    """Draw a Vega-Lite spec full width without Streamlit's theme (report and app look alike),
    with PNG and SVG downloads rendered offline by vl-convert when clicked. ``stored``: the spec
    is a shared cached object that never changes (its datasets are converted once, not per rerun)."""
    shown = st.vega_lite_chart(_with_arrow_datasets(spec) if stored else spec, width="stretch", theme=None, key=key,
                               on_select=on_select or "ignore")
    if export:
        name = _chart_name(spec)
        tag = key or name
        with st.popover("Export chart", icon=":material/image:"):
            st.download_button("PNG", lambda: chart_png(spec, scale=2.0), f"{name}.png", "image/png",
                               key=f"png_{tag}", icon=":material/download:")
            st.download_button("SVG (vector)", lambda: chart_svg(spec).encode("utf-8"), f"{name}.svg",
                               "image/svg+xml", key=f"svg_{tag}", icon=":material/download:")
    return shown


def csv_download(frame: pd.DataFrame, file_name: str, label: str = "Download CSV", key: str | None = None) -> None:
    """CSV export with formula-looking text cells neutralised."""
    st.download_button(label, safe_csv_bytes(frame), file_name=file_name, mime="text/csv",
                       key=key or f"csv_{file_name}", icon=":material/download:")
