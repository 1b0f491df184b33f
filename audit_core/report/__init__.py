"""Report building: self-contained HTML / Markdown / JSON, offline charts, escaping of user text.

Public API: :class:`Report`, :class:`ReportSection`, :class:`ReportTable`, :class:`ReportChart`,
:func:`render_html`, :func:`render_markdown`, :func:`markdown_zip`, :func:`render_json`,
:func:`render_pdf` (typst; :mod:`audit_core.report.pdf`),
:func:`package_versions`, :func:`json_safe`, :func:`safe_csv_bytes`, :func:`escape_html`,
:func:`escape_markdown`, :func:`chart_svg`, :func:`chart_png`. Tables and chart specs live in
:mod:`audit_core.views` (imports Altair, so it is not loaded here).
"""

from audit_core._lazy import lazy_exports

# submodule -> the names it defines; each submodule is imported when one of its names is first used
_EXPORTS = {
    "document": (
        "Report", "ReportChart", "ReportSection", "ReportTable", "json_safe", "markdown_zip", "package_versions",
        "render_html", "render_json", "render_markdown",
    ),
    "pdf": ("render_pdf",),
    "render": ("chart_png", "chart_svg"),
    "safety": (
        "escape_html", "escape_markdown", "markdown_literal", "neutralise_cell", "neutralise_frame",
        "safe_csv_bytes",
    ),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = [
    "Report", "ReportChart", "ReportSection", "ReportTable", "chart_png", "chart_svg",
    "escape_html", "escape_markdown", "json_safe", "markdown_literal", "markdown_zip", "neutralise_cell",
    "neutralise_frame", "package_versions", "render_html", "render_json", "render_markdown", "render_pdf",
    "safe_csv_bytes",
]
