"""PDF report through typst (the ``typst`` PyPI package bundles the compiler and its fonts).

Layout, for slides and print (A4 landscape, large type): a title block; the verdicts first (the
first summary line of every section, in one box); then each section with its remaining summary
lines, its charts as vector images (the SVG vl-convert makes for the HTML report) and its tables
(``table.header`` repeats on every page, so a long table breaks across pages cleanly); the
section's parameters and data source close it; the last block gives the package versions and the
creation date.

Determinism: the typst source is a pure function of the report; system fonts are ignored (only
the fonts bundled with typst are used) and the document date and compiler timestamp are the
report's ``created`` time, so two renders of one report are byte for byte equal.

Safety: no user string is ever spliced into typst markup. Every one is written as a typst string
literal (:func:`audit_core.report.safety.typst_string`), which typst shows as plain text.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from audit_core.report import format as fmt
from audit_core.report.document import plain_text
from audit_core.report.render import chart_svg
from audit_core.report.safety import typst_string as lit

MAX_TABLE_ROWS = 200
# A table this short is kept on one page (a 6-row table split 3/3 over two pages); a longer one
# breaks, with its header row repeated.
UNBROKEN_TABLE_ROWS = 25
CHART_MAX_HEIGHT_CM = 14.0
CHART_MAX_WIDTH_CM = 25.0  # A4 landscape text width with 1.8 cm margins

_PREAMBLE = """\
#set page(paper: "a4", flipped: true, margin: (x: 1.8cm, top: 1.6cm, bottom: 1.8cm),
  footer: context [#set text(size: 9pt, fill: luma(90)); #TITLE #h(1fr) #counter(page).display("1 / 1", both: true)])
#set text(size: 12pt, lang: "en")
#set par(justify: false)
#show heading.where(level: 1): it => block(above: 1.2em, below: 0.8em)[
  #set text(size: 20pt, fill: rgb("#1f4e79")); #it.body]
#show heading.where(level: 2): it => block(above: 1em, below: 0.6em)[
  #set text(size: 14pt, fill: rgb("#1f4e79")); #it.body]
#show table.cell.where(y: 0): set text(weight: "bold")
"""


_LONG_WORD = 14
_SEPARATOR = re.compile(r"([→/_\-.:|,;=+])")
ZWSP = "\u200b"


def breakable(text: str) -> str:
    """``text`` with zero-width break opportunities inside long words (around separators, else
    every 14 characters), so that a narrow table column wraps instead of overflowing; the parts
    between separators stay whole words, which typst can hyphenate."""
    words = []
    for word in text.split(" "):
        if len(word) > _LONG_WORD:
            word = _SEPARATOR.sub(lambda m: ZWSP + m.group(1) + ZWSP, word).strip(ZWSP)
            pieces = word.split(ZWSP)
            word = ZWSP.join(ZWSP.join(p[i:i + _LONG_WORD] for i in range(0, len(p), _LONG_WORD)) or p
                             for p in pieces)
        words.append(word)
    return " ".join(words)


def table_typst(frame: pd.DataFrame, max_rows: int = MAX_TABLE_ROWS) -> str:
    """A typst ``table`` whose header row repeats on every page; numbers right-aligned."""
    frame = fmt.report_frame(frame)
    k = max(1, frame.shape[1])
    splits = "true" if len(frame) > UNBROKEN_TABLE_ROWS else "false"
    # Written by the one formatter (counts 62, rates 0.667, missing —), as on the page and in HTML.
    shown = frame.head(max_rows)
    numeric = [fmt.column_kind(c, shown[c].to_numpy()) in ("count", "rate") for c in shown.columns] or [False]
    rows = [", ".join(f"[#{lit(breakable(text))}]" for text in cells) for cells in fmt.frame_cells(shown)]
    align = ", ".join("right" if n else "left" for n in numeric)
    header = ", ".join(f"[#{lit(breakable(str(c)))}]" for c in frame.columns) or "[]"
    body = ",\n  ".join(rows)
    size = "10pt" if k <= 6 else ("8.5pt" if k <= 10 else "7pt")
    out = (f"#block(breakable: {splits})[#set text(size: {size}, hyphenate: true)\n#table(columns: {k}, align: ({align},), "
           f"stroke: 0.5pt + luma(170), inset: 4pt, fill: (x, y) => if y == 0 {{ rgb(\"#eef3f8\") }},\n"
           f"  table.header({header}),\n  {body}{',' if body else ''}\n)]\n")
    if len(frame) > max_rows:
        out += f"#text(size: 9pt, fill: luma(80))[#{lit(f'{len(frame) - max_rows} more rows in the JSON export.')}]\n"
    return out


_SIZE = re.compile(r'<svg[^>]*?\bwidth="([\d.]+)"[^>]*?\bheight="([\d.]+)"')


def _chart_width_cm(svg: str) -> float:
    """Width giving the chart at most the text width and at most CHART_MAX_HEIGHT_CM of height."""
    match = _SIZE.search(svg)
    if not match:
        return CHART_MAX_WIDTH_CM
    width, height = float(match.group(1)), float(match.group(2))
    if width <= 0 or height <= 0:
        return CHART_MAX_WIDTH_CM
    natural = width / 96 * 2.54 * 1.3  # CSS pixels to cm, enlarged for a projector
    return round(min(CHART_MAX_WIDTH_CM, natural, CHART_MAX_HEIGHT_CM * width / height), 2)


def _bullets(lines) -> str:
    return "".join(f"- #{lit(line)}\n" for line in lines)


def _verdicts(report) -> str:
    rows = []
    for section in report.sections:
        verdict = section.summary[0] if section.summary else "(no summary)"
        rows.append(f"[#strong({lit(section.title)})], [#{lit(verdict)}]")
    if not rows:
        return "#block[No sections.]\n"
    return ("#block(width: 100%, fill: rgb(\"#f3f7fb\"), stroke: (left: 3pt + rgb(\"#1f4e79\")), inset: 10pt)[\n"
            "#text(size: 15pt, weight: \"bold\", fill: rgb(\"#1f4e79\"))[Verdicts]\n"
            "#set text(size: 13pt)\n#grid(columns: (auto, 1fr), column-gutter: 14pt, row-gutter: 9pt,\n  "
            + ",\n  ".join(rows) + ",\n)]\n")


def _params(section) -> str:
    lines = ["#block(breakable: true)[#set text(size: 10pt)\n",
             f"*Data source:* #{lit(section.source)}\n\n"]
    if section.parameters:
        cells = ",\n  ".join(f"[#strong({lit(k)})], [#{lit(plain_text(v))}]" for k, v in section.parameters.items())
        lines.append(f"*Parameters*\n#grid(columns: (auto, 1fr), column-gutter: 12pt, row-gutter: 5pt,\n  {cells},\n)\n")
    lines.append("]\n")
    return "".join(lines)


def typst_source(report, chart_files: Mapping[tuple[int, int], str] | None = None) -> str:
    """The typst document of ``report``; ``chart_files[(s, c)]`` names chart c of section s's SVG
    file (charts without a file are left out, which keeps the source testable without vl-convert)."""
    chart_files = chart_files or {}
    created = report.created
    parts = [
        f"#let TITLE = {lit(report.title)}\n",
        f"#set document(title: TITLE, date: datetime(year: {created.year}, month: {created.month}, "
        f"day: {created.day}, hour: {created.hour}, minute: {created.minute}, second: {created.second}))\n",
        _PREAMBLE,
        "#block(below: 1.2em)[#text(size: 28pt, weight: \"bold\", fill: rgb(\"#1f4e79\"))[#TITLE]\n\n"
        + (f"#text(size: 15pt)[#{lit(report.author)}]\n\n" if report.author else "")
        + f"#text(size: 12pt, fill: luma(70))[#{lit(f'Created {created.isoformat()} (UTC) · {len(report.sections)} section(s)')}]]\n",
        _verdicts(report),
    ]
    for s, section in enumerate(report.sections):
        # The first section follows the verdicts on page 1 (a page of its own held only them).
        parts.append(f"{'#pagebreak(weak: true)' if s else '#v(1em)'}\n= #{lit(section.title)}\n")
        for paragraph in filter(None, section.commentary.split("\n\n")):
            parts.append(f"#block(inset: (left: 6pt), stroke: (left: 2pt + luma(160)))[#emph({lit(paragraph)})]\n")
        parts.append(_bullets(section.summary))
        for c, chart in enumerate(section.charts):
            name = chart_files.get((s, c))
            if name is None:
                continue
            width = _chart_width_cm(chart_svg(chart.spec))
            parts.append(f"#figure(image({lit(name)}, width: {width}cm), caption: [#{lit(chart.caption)}])\n")
        for table in section.tables:
            parts.append(f"== #{lit(table.caption)}\n{table_typst(table.frame)}")
        parts.append(_params(section))
    versions = ",\n  ".join(f"[#{lit(k)}], [#{lit(v)}]" for k, v in report.versions.items())
    parts.append("#pagebreak(weak: true)\n= Provenance\n"
                 f"Created #{lit(created.isoformat())} (UTC).\n\n*Package versions*\n"
                 f"#grid(columns: (auto, auto), column-gutter: 14pt, row-gutter: 5pt,\n  {versions},\n)\n")
    return "".join(parts)


def render_pdf(report) -> bytes:
    """The report as PDF bytes (typst, bundled fonts only, timestamp = ``report.created``)."""
    import typst

    with tempfile.TemporaryDirectory(prefix="audit-report-") as tmp:
        root = Path(tmp)
        files: dict[tuple[int, int], str] = {}
        for s, section in enumerate(report.sections):
            for c, chart in enumerate(section.charts):
                name = f"chart-{s + 1}-{c + 1}.svg"
                (root / name).write_text(chart_svg(chart.spec), encoding="utf-8")
                files[(s, c)] = name
        main = root / "report.typ"
        main.write_text(typst_source(report, files), encoding="utf-8")
        return bytes(typst.compile(str(main), root=str(root), font_paths=[], ignore_system_fonts=True,
                                   format="pdf", timestamp=int(report.created.timestamp())))
