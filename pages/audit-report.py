"""Report: export what this session computed as PDF, self-contained HTML, Markdown or JSON.

Each page registers its latest result as a ``ReportSection`` (with its data source); here the
user picks, orders and comments the sections, adds a title and an author, and downloads. A
document is built only when its download is clicked, and every file of one selection carries the
same timestamp (one ``Report`` object per selection).
"""

from __future__ import annotations

from pages._first_run import through_router

through_router()  # a deep link as a fresh server's first request runs this file itself (pages/_first_run.py)

import datetime as dt

import streamlit as st

from audit_core.report import Report, markdown_zip, render_html, render_json, render_markdown, render_pdf
from pages import _shared

REPORT_KEY = "report_document"

_shared.page_header(
    "Report",
    "Choose which results of this session go into the report, in which order and with what "
    "commentary, then download it. HTML is one self-contained file (charts as inline SVG with "
    "their Vega-Lite specs, no external scripts or fonts); Markdown embeds the charts as images; "
    "JSON holds every number.")


def current_report(title: str, author: str, sections: tuple) -> Report:
    """One Report per (title, author, sections): same selection, same document and timestamp."""
    wanted = (title, author, sections)
    saved = st.session_state.get(REPORT_KEY)
    if saved is None or saved[0] != wanted:
        created = dt.datetime.now(dt.UTC).replace(microsecond=0)
        saved = (wanted, Report(title=title, sections=sections, created=created, author=author))
        st.session_state[REPORT_KEY] = saved
    return saved[1]


def downloads(report: Report) -> None:
    """Five downloads, each built when clicked, and an HTML preview on request."""
    stamp = report.created.strftime("%Y%m%d-%H%M%S")
    d0, d1, d2, d3, d4 = st.columns(5)
    d0.download_button("PDF (slides and print)", lambda: render_pdf(report), f"audit-report-{stamp}.pdf",
                       "application/pdf", key="dl_pdf", type="primary", icon=":material/picture_as_pdf:")
    d1.download_button("HTML report", lambda: render_html(report).encode("utf-8"), f"audit-report-{stamp}.html",
                       "text/html", key="dl_html", icon=":material/download:")
    d2.download_button("Markdown (images inline)", lambda: render_markdown(report).encode("utf-8"),
                       f"audit-report-{stamp}.md", "text/markdown", key="dl_md", icon=":material/download:")
    d3.download_button("Markdown + images (zip)", lambda: markdown_zip(report), f"audit-report-{stamp}.zip",
                       "application/zip", key="dl_zip", icon=":material/download:")
    d4.download_button("JSON (every number)", lambda: render_json(report).encode("utf-8"),
                       f"audit-report-{stamp}.json", "application/json", key="dl_json", icon=":material/download:")
    st.caption(f"Created {report.created.isoformat()} UTC · "
               + ", ".join(f"{k} {v}" for k, v in report.versions.items()))
    if st.toggle("Preview (HTML)", key=_shared.kept("report_preview")):
        with st.spinner("Rendering charts offline…"):
            # An iframe keeps the report's own CSS from restyling the app.
            st.iframe(render_html(report), height=640)


sections = _shared.computed_sections()
if not sections:
    st.info("Nothing computed yet in this session. Open a page to compute a result:")
    c1, c2, c3, c4, c5 = st.columns(5)
    c1.page_link("pages/protocol-explorer.py", label="Protocol explorer", icon=":material/hub:")
    c2.page_link("pages/minimal-supports.py", label="Minimal supports", icon=":material/join_inner:")
    c3.page_link("pages/measure-logs.py", label="Measure response logs", icon=":material/analytics:")
    c4.page_link("pages/replay-run.py", label="Replay", icon=":material/replay:")
    c5.page_link("pages/simulation.py", label="Simulate", icon=":material/casino:")
    _shared.stop_page()

t1, t2 = st.columns([2, 1])
title = t1.text_input("Report title", "Evaluation audit report", max_chars=200, key=_shared.kept("report_title"))
author = t2.text_input("Author", "", max_chars=200, key=_shared.kept("report_author"))
st.markdown("**Sections** (the latest result of each page; its data source is named)")
chosen = []
for index, (key, section) in enumerate(sections.items()):
    n_charts, n_tables = len(section.charts), len(section.tables)
    label = (f"{section.title} ({n_charts} chart{'s' * (n_charts != 1)}, "
             f"{n_tables} table{'s' * (n_tables != 1)}) · data: {section.source}")
    pick, order = st.columns([5, 1])
    with pick:
        include = st.checkbox(_shared.plain(label), value=True, key=_shared.kept(f"report_pick_{key}"))
    with order:
        position = st.number_input("Position", 1, len(sections), index + 1, key=_shared.kept(f"report_pos_{key}"),
                                   label_visibility="collapsed", help="Order of the sections in the report.")
    if include:
        comment = st.text_area(f"Commentary on “{_shared.plain(section.title)}” (optional, plain text)", key=_shared.kept(
            f"report_note_{key}"), height=68, max_chars=4000, label_visibility="collapsed",
            placeholder=f"Commentary on {section.title} (optional, plain text)")
        chosen.append((position, index, section.with_commentary(comment)))
if not chosen:
    st.warning("Choose at least one section.")
    _shared.stop_page()
ordered = tuple(section for _, _, section in sorted(chosen, key=lambda item: (item[0], item[1])))
downloads(current_report(title or "Evaluation audit report", author, ordered))
