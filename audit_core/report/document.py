"""Self-contained audit reports in HTML, Markdown and JSON.

A :class:`Report` is a title, a UTC creation time, package versions and a list of
:class:`ReportSection` (one per computed result: parameters, data source, summary lines, tables,
charts as Vega-Lite specs and a JSON-safe ``numbers`` payload holding every number of the result).

- :func:`render_html`: one file, inline CSS, each chart as inline SVG plus its Vega-Lite spec in a
  non-executed ``<script type="application/json">`` block; no external URL of any kind.
- :func:`render_markdown`: Markdown with charts as PNG data URIs; :func:`markdown_zip` writes the
  same text with an ``images/`` folder instead.
- :func:`render_json`: everything, numbers included, as one JSON document.

Every user string is escaped for its target format (see :mod:`audit_core.report.safety`).
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as _dt
import io
import json
import math
import platform
import zipfile
from collections.abc import Mapping, Sequence
from importlib import metadata
from typing import Any

import numpy as np
import pandas as pd

from audit_core.report import format as fmt
from audit_core.report.render import chart_png, chart_svg, spec_json
from audit_core.report.safety import escape_html, escape_markdown

VERSION_PACKAGES = ("numpy", "pandas", "scipy", "altair", "ortools", "streamlit", "vl-convert-python")


def package_versions(names: Sequence[str] = VERSION_PACKAGES) -> dict[str, str]:
    """Installed versions of ``names`` plus Python itself ("not installed" when absent)."""
    versions = {"python": platform.python_version()}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def json_safe(value: Any) -> Any:
    """Recursively convert numpy / pandas values to JSON types; NaN and ±inf become None."""
    if isinstance(value, Mapping):
        return {str(k) if not isinstance(k, tuple) else " | ".join(map(str, k)): json_safe(v)
                for k, v in value.items()}
    if isinstance(value, pd.DataFrame):
        return [json_safe(r) for r in value.to_dict(orient="records")]
    if isinstance(value, pd.Series):
        return json_safe(value.tolist())
    if isinstance(value, np.ndarray):
        return json_safe(value.tolist())
    if isinstance(value, (list, tuple, set, frozenset)):
        return [json_safe(v) for v in value]
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        number = float(value)
        return number if math.isfinite(number) else None
    if value is None or isinstance(value, (int, str)):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        to_dict = getattr(value, "to_dict", None)
        return json_safe(to_dict() if callable(to_dict) else dataclasses.asdict(value))
    if isinstance(value, (_dt.datetime, _dt.date)):
        return value.isoformat()
    if value is pd.NA or value is pd.NaT:
        return None
    return str(value)


@dataclasses.dataclass(frozen=True)
class ReportTable:
    caption: str
    frame: pd.DataFrame

    def __repr__(self) -> str:
        return f"ReportTable({self.caption!r}, {self.frame.shape[0]}x{self.frame.shape[1]})"


@dataclasses.dataclass(frozen=True)
class ReportChart:
    caption: str
    spec: dict  # Vega-Lite spec with inline data (altair ``Chart.to_dict()``)

    def __repr__(self) -> str:
        return f"ReportChart({self.caption!r})"


@dataclasses.dataclass(frozen=True)
class ReportSection:
    """One computed result. ``numbers`` carries every number (usually the engine's ``to_dict()``)."""

    key: str
    title: str
    source: str
    parameters: dict = dataclasses.field(default_factory=dict)
    summary: tuple[str, ...] = ()
    tables: tuple[ReportTable, ...] = ()
    charts: tuple[ReportChart, ...] = ()
    numbers: Any = None
    commentary: str = ""  # the author's own paragraph, shown under the title (plain text)

    def with_commentary(self, text: str) -> ReportSection:
        """A copy carrying the author's commentary (plain text; escaped by every renderer)."""
        return dataclasses.replace(self, commentary=text.strip())

    def __repr__(self) -> str:
        return (f"ReportSection({self.key!r}, tables={len(self.tables)}, "
                f"charts={len(self.charts)})")

    def to_dict(self) -> dict:
        return {
            "key": self.key,
            "title": self.title,
            "source": self.source,
            "parameters": json_safe(self.parameters),
            "summary": list(self.summary),
            "commentary": self.commentary,
            "tables": [{"caption": t.caption, "columns": [str(c) for c in t.frame.columns],
                        "rows": json_safe(t.frame)} for t in self.tables],
            "charts": [{"caption": c.caption, "vega_lite": json_safe(c.spec)} for c in self.charts],
            "numbers": json_safe(self.numbers),
        }


@dataclasses.dataclass(frozen=True)
class Report:
    title: str
    sections: tuple[ReportSection, ...]
    created: _dt.datetime = dataclasses.field(
        default_factory=lambda: _dt.datetime.now(_dt.UTC).replace(microsecond=0))
    versions: dict = dataclasses.field(default_factory=package_versions)
    author: str = ""

    def __repr__(self) -> str:
        return f"Report({self.title!r}, {len(self.sections)} sections, {self.created.isoformat()})"

    def to_dict(self) -> dict:
        return {
            "title": self.title,
            "author": self.author,
            "created_utc": self.created.isoformat(),
            "versions": dict(self.versions),
            "sections": [s.to_dict() for s in self.sections],
        }


# --------------------------------------------------------------------------------------- HTML

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;
 max-width:1200px;margin:2rem auto;padding:0 1rem;color:#1b1b1b;line-height:1.45}
h1{color:#1f4e79;border-bottom:3px solid #1f4e79;padding-bottom:.3rem}
h2{color:#1f4e79;margin-top:2.5rem;border-bottom:1px solid #c9d3de}
table{border-collapse:collapse;margin:.6rem 0 1.2rem;font-size:.92rem}
th,td{border:1px solid #c9d3de;padding:.25rem .55rem;text-align:left;vertical-align:top}
th{background:#eef3f8} td.num{text-align:right;font-variant-numeric:tabular-nums}
dl.params{display:grid;grid-template-columns:max-content auto;gap:.15rem 1rem}
dl.params dt{font-weight:600} dl.params dd{margin:0}
figure{margin:1rem 0} figure svg{max-width:100%;height:auto}
figcaption{font-style:italic;color:#444} .meta{color:#444;font-size:.92rem}
.table-wrap{overflow-x:auto;max-width:100%}
"""


def table_html(frame: pd.DataFrame, max_rows: int = 500) -> str:
    frame = fmt.report_frame(frame)
    head = "".join(f"<th>{escape_html(c)}</th>" for c in frame.columns)
    shown = frame.head(max_rows)
    numeric = [fmt.column_kind(c, shown[c].to_numpy()) in ("count", "rate") for c in shown.columns]
    rows = ["<tr>" + "".join(f'<td class="num">{escape_html(t)}</td>' if n else f"<td>{escape_html(t)}</td>"
                             for t, n in zip(cells, numeric, strict=True)) + "</tr>"
            for cells in fmt.frame_cells(shown)]
    more = ""
    if len(frame) > max_rows:
        more = f'<p class="meta">{len(frame) - max_rows} more rows in the JSON export.</p>'
    return (f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody>'
            f"</table></div>{more}")


def _params_html(parameters: Mapping[str, Any]) -> str:
    if not parameters:
        return ""
    items = "".join(
        f"<dt>{escape_html(k)}</dt><dd>{escape_html(plain_text(v))}</dd>" for k, v in parameters.items())
    return f'<dl class="params">{items}</dl>'


def plain_text(value: Any) -> str:
    """A parameter value as one line of text, the same in every format (HTML, Markdown, PDF)."""
    if isinstance(value, (list, tuple)):
        return ", ".join(plain_text(v) for v in value) if value else "(none)"
    if isinstance(value, Mapping):
        return ", ".join(f"{k}={plain_text(v)}" for k, v in value.items())
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.6g}"
    return "" if value is None else str(value)




def _spec_script(spec: Mapping[str, Any]) -> str:
    # JSON inside <script type="application/json"> is data, never run; escaping <, > and & keeps
    # a user string such as "</script>" from closing the element early.
    text = spec_json(spec).replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
    return f'<script type="application/json" class="vega-lite-spec">{text}</script>'


def render_html(report: Report) -> str:
    """One self-contained HTML document (inline CSS and SVG, specs as JSON data blocks)."""
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape_html(report.title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{escape_html(report.title)}</h1>",
        f'<p class="meta">{escape_html(report.author)}</p>' if report.author else "",
        f'<p class="meta">Created {escape_html(report.created.isoformat())} (UTC). Versions: '
        + escape_html(", ".join(f"{k} {v}" for k, v in report.versions.items())) + "</p>",
    ]
    if report.sections:
        parts.append("<nav><ol>" + "".join(
            f'<li><a href="#sec-{i}">{escape_html(s.title)}</a></li>'
            for i, s in enumerate(report.sections)) + "</ol></nav>")
    for i, section in enumerate(report.sections):
        parts.append(f'<section id="sec-{i}"><h2>{escape_html(section.title)}</h2>')
        if section.commentary:
            parts.append("".join(f"<p>{escape_html(par)}</p>" for par in section.commentary.split("\n\n")))
        parts.append(f'<p class="meta"><strong>Data source:</strong> {escape_html(section.source)}</p>')
        parts.append(_params_html(section.parameters))
        if section.summary:
            parts.append("<ul>" + "".join(f"<li>{escape_html(line)}</li>" for line in section.summary)
                         + "</ul>")
        for chart in section.charts:
            parts.append(f"<figure>{chart_svg(chart.spec)}{_spec_script(chart.spec)}"
                         f"<figcaption>{escape_html(chart.caption)}</figcaption></figure>")
        for table in section.tables:
            parts.append(f"<h3>{escape_html(table.caption)}</h3>{table_html(table.frame)}")
        parts.append("</section>")
    parts.append("</body></html>")
    return "\n".join(p for p in parts if p)


# ----------------------------------------------------------------------------------- Markdown

def table_markdown(frame: pd.DataFrame, max_rows: int = 500) -> str:
    frame = fmt.report_frame(frame)
    header = "| " + " | ".join(escape_markdown(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    rows = ["| " + " | ".join(escape_markdown(t) for t in cells) + " |" for cells in fmt.frame_cells(frame.head(max_rows))]
    tail = [f"\n_{len(frame) - max_rows} more rows in the JSON export._"] if len(frame) > max_rows else []
    return "\n".join([header, rule, *rows, *tail])


def _markdown(report: Report, image_ref) -> str:
    lines = [f"# {escape_markdown(report.title)}", "",
             *([escape_markdown(report.author), ""] if report.author else []),
             f"Created {report.created.isoformat()} (UTC).", "",
             "Versions: " + escape_markdown(", ".join(f"{k} {v}" for k, v in report.versions.items())),
             ""]
    for s_index, section in enumerate(report.sections):
        lines += [f"## {escape_markdown(section.title)}", ""]
        for paragraph in filter(None, section.commentary.split("\n\n")):
            lines += [escape_markdown(paragraph), ""]
        lines += [f"**Data source:** {escape_markdown(section.source)}", ""]
        for key, value in section.parameters.items():
            lines.append(f"- **{escape_markdown(key)}**: {escape_markdown(plain_text(value))}")
        if section.parameters:
            lines.append("")
        for line in section.summary:
            lines.append(f"- {escape_markdown(line)}")
        if section.summary:
            lines.append("")
        for c_index, chart in enumerate(section.charts):
            ref = image_ref(s_index, c_index, chart)
            lines += [f"![{escape_markdown(chart.caption)}]({ref})", "",
                      f"*{escape_markdown(chart.caption)}*", ""]
        for table in section.tables:
            lines += [f"### {escape_markdown(table.caption)}", "", table_markdown(table.frame), ""]
    return "\n".join(lines).rstrip() + "\n"


def render_markdown(report: Report) -> str:
    """Markdown with every chart embedded as a PNG data URI (one file, no folder needed)."""
    def data_uri(_s, _c, chart: ReportChart) -> str:
        # scale 1 keeps a one-file Markdown small; the zip carries sharper images
        return "data:image/png;base64," + base64.b64encode(chart_png(chart.spec, scale=1.0)).decode("ascii")
    return _markdown(report, data_uri)


def markdown_zip(report: Report) -> bytes:
    """Zip with ``report.md`` and ``images/section-S-chart-C.png`` referenced from it."""
    images: dict[str, bytes] = {}

    def file_ref(s: int, c: int, chart: ReportChart) -> str:
        name = f"images/section-{s + 1}-chart-{c + 1}.png"
        images[name] = chart_png(chart.spec)
        return name

    text = _markdown(report, file_ref)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("report.md", text)
        for name, data in images.items():
            archive.writestr(name, data)
    return buffer.getvalue()


# --------------------------------------------------------------------------------------- JSON

def render_json(report: Report) -> str:
    """The whole report, every number included, as one JSON document (NaN written as null)."""
    return json.dumps(json_safe(report.to_dict()), indent=2, allow_nan=False)
