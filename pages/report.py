"""Report: export what this session computed as self-contained HTML, Markdown or JSON.

Each page registers its latest result as a ``ReportSection``; this page lets the user choose
sections and downloads the documents built by ``audit_core.report`` (charts rendered offline,
every user string escaped, parameters, data source, package versions and date stated).
"""

from __future__ import annotations

import streamlit as st
import streamlit.components.v1 as components

from audit_core.report import Report, markdown_zip, render_html, render_json, render_markdown
from pages import _shared

_shared.page_header(
    "Report",
    "Choose which results of this session go into the report, then download it. HTML is one "
    "self-contained file (charts as inline SVG with their Vega-Lite specs, no external scripts or "
    "fonts); Markdown embeds the charts as images; JSON holds every number.")


def downloads(report: Report) -> None:
    """Render the chosen sections and offer the four downloads plus an HTML preview."""
    with st.spinner("Rendering charts offline…"):
        html = render_html(report)
        markdown = render_markdown(report)
        bundle = markdown_zip(report)
        document = render_json(report)

    stamp = report.created.strftime("%Y%m%d-%H%M%S")
    d1, d2, d3, d4 = st.columns(4)
    d1.download_button("HTML report", html.encode("utf-8"), f"audit-report-{stamp}.html", "text/html",
                       key="dl_html", type="primary", icon=":material/download:")
    d2.download_button("Markdown (images inline)", markdown.encode("utf-8"), f"audit-report-{stamp}.md",
                       "text/markdown", key="dl_md", icon=":material/download:")
    d3.download_button("Markdown + images (zip)", bundle, f"audit-report-{stamp}.zip", "application/zip",
                       key="dl_zip", icon=":material/download:")
    d4.download_button("JSON (every number)", document.encode("utf-8"), f"audit-report-{stamp}.json",
                       "application/json", key="dl_json", icon=":material/download:")
    st.caption(f"Created {report.created.isoformat()} UTC · "
               + ", ".join(f"{k} {v}" for k, v in report.versions.items()))

    with st.expander("Preview (HTML)", expanded=True):
        # An iframe keeps the report's own CSS from restyling the app.
        components.html(html, height=640, scrolling=True)


sections = _shared.computed_sections()
if not sections:
    st.info("Nothing computed yet in this session. Open a page to compute a result:")
    c1, c2, c3, c4, c5 = st.columns(5)
    c1.page_link("pages/explorer.py", label="Protocol explorer", icon=":material/hub:")
    c2.page_link("pages/supports.py", label="Minimal supports", icon=":material/join_inner:")
    c3.page_link("pages/measure.py", label="Measure response logs", icon=":material/analytics:")
    c4.page_link("pages/replay.py", label="Replay", icon=":material/replay:")
    c5.page_link("pages/simulate.py", label="Simulate", icon=":material/casino:")
else:
    title = st.text_input("Report title", "Evaluation audit report", max_chars=200)
    st.markdown("**Sections** (the latest result of each page)")
    chosen = []
    for key, section in sections.items():
        n_charts, n_tables = len(section.charts), len(section.tables)
        label = (f"{section.title} ({n_charts} chart{'s' * (n_charts != 1)}, "
                 f"{n_tables} table{'s' * (n_tables != 1)}) · data: {section.source}")
        if st.checkbox(label, value=True, key=f"report_pick_{key}", help=f"Data source: {section.source}"):
            chosen.append(section)
    if chosen:
        downloads(Report(title=title or "Evaluation audit report", sections=tuple(chosen)))
    else:
        st.warning("Choose at least one section.")
