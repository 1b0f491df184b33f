"""Escaping for every user string that leaves the workbench.

User strings (category names, column names, file names, policy names) reach three kinds of output:
HTML (escaped with :func:`escape_html`, so ``<script>alert(1)</script>`` shows as text), Markdown
(:func:`escape_markdown`: HTML-escaped and Markdown punctuation back-slashed, ``|`` safe in tables)
and CSV files opened in spreadsheets (:func:`neutralise_cell`: a text cell starting with ``=``,
``+``, ``-``, ``@``, TAB or CR gets a leading apostrophe so it is never run as a formula; OWASP
"CSV injection"). Numeric cells are the workbench's own numbers and stay numeric.
"""

from __future__ import annotations

import html
import io
import re
from typing import Any

import pandas as pd

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")

# What makes a line a list item, heading, quote, rule or setext underline when it starts one.
_MD_LINE_START = re.compile(r"^(\s*)([-+=>])")
_MD_ORDERED_ITEM = re.compile(r"^(\s*\d+)([.)])(?=\s|$)")


def escape_html(value: Any) -> str:
    """Text safe inside HTML elements and quoted attributes."""
    return html.escape(str(value), quote=True)


def escape_markdown(value: Any) -> str:
    """Text that Markdown renders literally, one line: HTML-escaped (``&``, ``<``, ``>``), then
    :func:`markdown_literal` (what opens emphasis, code, links, images, tables or math), and a
    leading list, heading or quote marker back-slashed. Dots and dashes inside text stay as they
    are: ``0.640`` is written ``0.640``, not ``0\\.640``."""
    text = markdown_literal(html.escape(str(value), quote=False))
    return _MD_ORDERED_ITEM.sub(r"\1\\\2", _MD_LINE_START.sub(r"\1\\\2", text))


# The characters that open a Markdown construct (emphasis, code, links and images, HTML, math,
# strikethrough, tables, headings); an underscore only at a word's edge (snake_case stays as it is).
_MD_OPENERS = re.compile(r"([\\`*\[\]<>~$|#])")
_MD_EDGE_UNDERSCORE = re.compile(r"(?<![^\W_])_|_(?![^\W_])")  # letters of any script: τ_full stays
_MD_AUTOLINK = re.compile(r"(?i)://|www\.|@")


def markdown_literal(value: Any) -> str:
    """One line of text that a Markdown renderer shows as it is, escaped as little as that needs
    (for the dashboard's captions and alerts, where text is also read back in tests): no image,
    link (bare URLs included), emphasis, code, HTML or math can come from it."""
    text = str(value).replace("\r", " ").replace("\n", " ")
    text = _MD_EDGE_UNDERSCORE.sub(r"\\_", _MD_OPENERS.sub(r"\\\1", text))
    # GitHub-flavoured Markdown also links bare URLs and e-mail addresses: break those patterns.
    return _MD_AUTOLINK.sub(lambda m: m.group(0)[:-1] + "\\" + m.group(0)[-1], text)


def neutralise_cell(value: Any) -> Any:
    """Prefix a text cell that a spreadsheet would read as a formula with an apostrophe."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def neutralise_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Copy of ``frame`` with text cells and column names neutralised (numbers untouched)."""
    out = frame.copy()
    for column in out.columns:
        series = out[column]
        if series.dtype == object or pd.api.types.is_string_dtype(series):
            out[column] = series.map(neutralise_cell)
        elif isinstance(series.dtype, pd.CategoricalDtype):
            out[column] = series.astype(object).map(neutralise_cell)
    out.columns = [neutralise_cell(str(c)) for c in out.columns]
    return out


def safe_csv_bytes(frame: pd.DataFrame) -> bytes:
    """UTF-8 CSV of ``frame`` for download, with formula-looking text cells neutralised."""
    buffer = io.StringIO()
    neutralise_frame(frame).to_csv(buffer, index=False)
    return buffer.getvalue().encode("utf-8")


_TYPST_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def typst_string(value: Any) -> str:
    """A typst string literal (``"..."``) holding ``value`` verbatim.

    The PDF report never splices user text into typst markup: every user string is written as a
    string literal in code mode (``#"..."`` in markup, or an argument), which typst shows as plain
    text, so ``#``, ``$``, ``*``, ``_``, ``@``, ``<``, ``]`` and ``=`` keep no meaning. Inside the
    literal only backslash, double quote and control characters need escaping (typst reference,
    "String" literals: ``\\\\``, ``\\"``, ``\\n``, ``\\r``, ``\\t``, ``\\u{...}``).
    """
    out = []
    for char in str(value):
        if char in _TYPST_ESCAPES:
            out.append(_TYPST_ESCAPES[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{{{ord(char):x}}}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'
