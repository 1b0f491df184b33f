"""Report building: self-contained HTML / Markdown / JSON, offline charts, escaping of user text.

Public API: :class:`Report`, :class:`ReportSection`, :class:`ReportTable`, :class:`ReportChart`,
:func:`render_html`, :func:`render_markdown`, :func:`markdown_zip`, :func:`render_json`,
:func:`render_pdf` (typst; :mod:`audit_core.report.pdf`),
:func:`package_versions`, :func:`json_safe`, :func:`safe_csv_bytes`, :func:`escape_html`,
:func:`escape_markdown`, :func:`chart_svg`, :func:`chart_png`. Tables and chart specs live in
:mod:`audit_core.views` (imports Altair, so it is not loaded here).
"""

import lazy_loader

# Each name is imported from its module on first use; the names and their modules are in
# __init__.pyi, which editors and type checkers read too (tests/architecture/test_import_cost.py).
__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
