"""Names of :mod:`audit_core.report`, loaded on first use (``lazy_loader`` reads this stub)."""

from .document import (
    Report,
    ReportChart,
    ReportSection,
    ReportTable,
    json_safe,
    markdown_zip,
    package_versions,
    render_html,
    render_json,
    render_markdown,
)
from .pdf import render_pdf
from .render import chart_png, chart_svg
from .safety import escape_html, escape_markdown, markdown_literal, neutralise_cell, neutralise_frame, safe_csv_bytes

__all__ = [
    "chart_png", "chart_svg", "escape_html", "escape_markdown", "json_safe", "markdown_literal",
    "markdown_zip", "neutralise_cell", "neutralise_frame", "package_versions", "render_html", "render_json",
    "render_markdown", "render_pdf", "Report", "ReportChart", "ReportSection", "ReportTable",
    "safe_csv_bytes",
]
