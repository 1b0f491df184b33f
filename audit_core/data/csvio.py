"""The one place that turns CSV bytes into a table of strings.

Every CSV the workbench reads (labelled audit data, long-format policy classes, response logs)
goes through :func:`read_csv_frame`, so the checks that users rely on are the same everywhere:
UTF-8 only (a BOM is accepted and removed), a clear message naming the line of a bad byte, empty
file, header only, a delimiter other than the comma (sniffed, so ``;`` and tab files load),
ragged rows, duplicate or blank column names. Values are returned as strings; type conversion and
its messages belong to the caller, who knows what a column means. A caller reading numbers may ask
for decimal commas (``0,5``) to be read as decimal points in a file whose delimiter is not the
comma (spreadsheets in many locales write ``;``-delimited files so); the columns changed are
listed in ``frame.attrs[DECIMAL_COMMA_COLUMNS]`` for the caller to note.
"""

from __future__ import annotations

import csv
import io
import os
import re
from typing import BinaryIO

import numpy as np
import pandas as pd

from audit_core.errors import InputError

CsvSource = str | os.PathLike | bytes | bytearray | BinaryIO

_DELIMITERS = ",;\t|"
DECIMAL_COMMA_COLUMNS = "decimal_comma_columns"

# Bounds on one table, checked from the header line and the count of line breaks before anything
# is parsed (docs/limits.md): a 6.9 MB header of 10^6 columns took the Replay page past 100 s and
# 2.9 GB, and an ordinary 38 MB run of 10^7 cells 62 s and 1.27 GB. Reading, typing and replaying
# cost about 130 bytes and 6 microseconds per cell, so 5,000,000 cells stay near 0.65 GB and 30 s.
# An operator who needs more sets the environment variable (a whole number) and accepts the cost.
MAX_COLUMNS = 10_000
MAX_CELLS = 5_000_000
MAX_COLUMNS_ENV, MAX_CELLS_ENV = "AUDIT_MAX_COLUMNS", "AUDIT_MAX_CELLS"
# The csv module refuses a field over 128 KB (its default), with its own exception; a quoted cell of
# free text may be longer, up to the whole upload.
MAX_FIELD_CHARS = 64 * 2**20
csv.field_size_limit(max(csv.field_size_limit(), MAX_FIELD_CHARS))


def table_limit(default: int, variable: str) -> int:
    """The limit ``default``, or the whole number an operator set in the environment ``variable``."""
    text = os.environ.get(variable, "").strip().replace("_", "").replace(",", "")
    return int(text) if text.isdigit() and int(text) > 0 else default


def check_table_size(columns: int, rows: int, name: str) -> None:
    """InputError naming the limit and how to raise it when a table of ``columns`` x ``rows``
    (data rows counted from line breaks, blank lines included: an upper bound) is beyond :data:`MAX_COLUMNS` or
    :data:`MAX_CELLS`."""
    max_columns = table_limit(MAX_COLUMNS, MAX_COLUMNS_ENV)
    if columns > max_columns:
        raise InputError(f"{name}: the header has {columns:,} columns, more than the limit of {max_columns:,} "
                         f"columns per table (set the environment variable {MAX_COLUMNS_ENV} to raise it; on a "
                         "server, its operator does; docs/limits.md)")
    max_cells = table_limit(MAX_CELLS, MAX_CELLS_ENV)
    if columns * rows > max_cells:
        raise InputError(f"{name}: about {rows:,} rows x {columns:,} columns = {columns * rows:,} cells, more than "
                         f"the limit of {max_cells:,} cells per table: split the file or drop unused columns (set "
                         f"the environment variable {MAX_CELLS_ENV} to raise the limit; on a server, its "
                         "operator does; docs/limits.md)")


# A number written with a decimal comma (or an integer), blanks around it allowed.
_COMMA_NUMBER = re.compile(r"\s*[+-]?\d+(,\d+)?\s*")
_LINE = re.compile(r"([^\r\n]*)(?:\r\n|\r|\n|$)")


def _first_line(text: str) -> str:
    """The first non-blank line (ended by LF, CR or CRLF), found without splitting the whole text."""
    for match in _LINE.finditer(text):
        if match.group(1).strip():
            return match.group(1)
    return ""


def read_bytes(source: CsvSource, name: str | None = None) -> tuple[bytes, str]:
    """Return ``(raw bytes, display name)`` from a path, bytes or a binary file object."""
    if isinstance(source, (bytes, bytearray)):
        return bytes(source), name or "uploaded file"
    if isinstance(source, (str, os.PathLike)):
        from audit_core.data.files import read_file  # regular files only (no FIFO, device, /proc)
        return read_file(source), name or str(source)
    if hasattr(source, "read"):
        data = source.read()
        if isinstance(data, str):
            data = data.encode("utf-8")
        return bytes(data), name or getattr(source, "name", None) or "uploaded file"
    raise InputError(f"cannot read CSV from a {type(source).__name__}")


def decode_utf8(raw: bytes, name: str, kind: str = "CSV") -> str:
    """Decode UTF-8 (BOM removed); a bad byte is reported with its line and column.

    ``kind`` names the format in the advice ("save the file as UTF-8 JSON" for a JSON file)."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputError(
            f"{name}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at line {line}, column {col}); "
            f"save the file as UTF-8 {kind}"
        ) from None


def _sniff_delimiter(header: str) -> str:
    counts = {d: header.count(d) for d in _DELIMITERS}
    best = max(counts, key=lambda d: (counts[d], d == ","))
    return best if counts[best] > 0 else ","


def _unquoted_field_counts(text: str, delimiter: str) -> list[tuple[int, int]]:
    """``(line number, fields)`` of every non-blank line, one vectorised pass over the bytes.

    Valid only without quote characters, where a field count is the delimiter count plus one.
    """
    data = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    newlines = np.flatnonzero(data == 10)
    ends = np.append(newlines, data.size)
    starts = np.concatenate(([0], newlines + 1))
    delim_cum = np.concatenate(([0], np.cumsum(data == ord(delimiter))))
    blank = np.isin(data, np.frombuffer(b" \t\r\n" + delimiter.encode(), dtype=np.uint8))
    content_cum = np.concatenate(([0], np.cumsum(~blank)))
    fields = delim_cum[ends] - delim_cum[starts] + 1
    has_content = content_cum[ends] - content_cum[starts] > 0
    line_numbers = np.flatnonzero(has_content) + 1
    # Only the first mismatch is reported, so hand back a short list when the file is fine.
    kept = fields[has_content]
    bad = np.flatnonzero(kept != kept[0])
    cut = (bad[0] + 1) if bad.size else 1
    return list(zip(line_numbers[:cut].tolist(), kept[:cut].tolist(), strict=True))


def _check_field_counts(text: str, delimiter: str, width: int, name: str) -> None:
    """Every data row must have as many fields as the header (pandas would pad short rows)."""
    if '"' in text:
        # strict: an unterminated quote is an error here, not a field that runs to the end of the file
        rows = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
        try:
            counted = [(rows.line_num, len(r)) for r in rows if r and any(c.strip() for c in r)]
        except csv.Error as exc:
            hint = " (a quote opened and never closed?)" if "end of data" in str(exc) else ""
            raise InputError(f"{name}: malformed CSV at line {rows.line_num}: {exc}{hint}") from None
    else:
        counted = _unquoted_field_counts(text, delimiter)
    for data_row, (line_no, n_fields) in enumerate(counted[1:], start=1):
        if n_fields != width:
            raise InputError(
                f"{name}: data row {data_row} (line {line_no}) has {n_fields} field(s), the header has "
                f"{width}; check the delimiter ({delimiter!r}) and quoting"
            )


def _read_decimal_commas(frame: pd.DataFrame) -> tuple[str, ...]:
    """Rewrite ``0,5`` as ``0.5`` in every column whose non-blank values are all numbers with a
    decimal comma or integers, with at least one decimal comma; returns the columns changed."""
    changed = []
    for column in frame.columns:
        values = frame[column]
        has_comma = values.str.contains(",", regex=False)
        if not has_comma.any():
            continue
        blank = values.str.strip() == ""
        if (blank | values.str.fullmatch(_COMMA_NUMBER.pattern)).all():
            frame[column] = values.str.replace(",", ".", regex=False)
            changed.append(str(column))
    return tuple(changed)


def read_csv_frame(source: CsvSource, name: str | None = None, expect_delimiter: str | None = None,
                   decimal_comma: bool = False) -> pd.DataFrame:
    """Read a CSV into a DataFrame of strings (no NA conversion, nothing dropped).

    Raises :class:`InputError` for: missing file, non-UTF-8 bytes, empty file, header without
    rows, blank or duplicate column names, and rows with more or fewer fields than the header.
    The delimiter is sniffed from the header line among ``, ; TAB |`` unless ``expect_delimiter``
    is given. Blank lines are skipped. Parsing uses pandas' C reader (10^6 rows in well under a
    second); the field-count check is one pass over the lines. ``decimal_comma``: in a file whose
    delimiter is not the comma, columns of numbers written with decimal commas are read with decimal
    points (see the module docstring).
    """
    raw, name = read_bytes(source, name)
    text = decode_utf8(raw, name)
    if not text.strip():
        raise InputError(f"{name}: the file is empty")
    first_line = _first_line(text)
    delimiter = expect_delimiter or _sniff_delimiter(first_line)
    # An upper bound on the columns before the header is parsed (a quoted delimiter counts too).
    breaks = max(raw.count(b"\n"), raw.count(b"\r"))
    data_rows = breaks - (raw.endswith((b"\n", b"\r")))          # lines after the header, blank ones included
    check_table_size(first_line.count(delimiter) + 1, max(1, data_rows), name)
    try:
        header = [h.strip() for h in next(csv.reader([first_line], delimiter=delimiter))]
    except csv.Error as exc:
        raise InputError(f"{name}: malformed CSV header (line 1): {exc}") from None
    for i, h in enumerate(header, start=1):
        if not h:
            raise InputError(f"{name}: column {i} of the header has no name")
    # Until the file is read as a table its header is not shown (it may be any file's first line):
    # positions, not names.
    seen: dict[str, int] = {}
    for i, h in enumerate(header, start=1):
        if h in seen:
            raise InputError(f"{name}: columns {seen[h]} and {i} of the header have the same name")
        seen[h] = i
    _check_field_counts(text, delimiter, len(header), name)
    try:
        frame = pd.read_csv(
            io.StringIO(text), sep=delimiter, dtype=str, keep_default_na=False, index_col=False,
            skip_blank_lines=True, skipinitialspace=False,
        )
    except (pd.errors.ParserError, csv.Error) as exc:
        # The checks above catch what we know of; anything pandas still refuses is one message.
        raise InputError(f"{name}: malformed CSV: {str(exc).strip().splitlines()[-1]}") from None
    if frame.empty:
        raise InputError(f"{name}: the file has a header line ({len(header)} column(s)) but no data rows")
    frame.columns = header
    frame.attrs[DECIMAL_COMMA_COLUMNS] = _read_decimal_commas(frame) if decimal_comma and delimiter != "," else ()
    return frame


# ------------------------------------------------------------------ compact storage of a text table

COMPACTED = "compacted_columns"
_SAMPLE = 2000


def compact_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """The same table with its text (object) columns stored compactly, for a table that is kept
    (a server holds each upload's table for every page and session that uses it).

    A column of Python strings costs ~60-80 bytes per cell (object pointer + string object): a
    10 MB CSV of 525,000 rows held 91 MB. Here a column with few distinct values (at most half
    the rows) becomes a categorical (small integer codes + each distinct string once); any other
    text column an Arrow string array (the characters + one offset per cell). Other columns are
    kept as they are. :func:`expand_frame` gives back the identical table (same values, object
    dtype, same ``attrs``); the names of the columns changed are in ``attrs[COMPACTED]``.
    """
    columns, compacted = {}, []
    for name in frame.columns:
        column = frame[name]
        if column.dtype != object or pd.api.types.infer_dtype(column, skipna=False) != "string":
            columns[name] = column
            continue
        head = column.iloc[:_SAMPLE]
        codes, uniques = (None, ()) if head.nunique() > len(head) // 2 else pd.factorize(column)
        if codes is not None and len(uniques) <= len(column) // 2:
            columns[name] = pd.Series(pd.Categorical.from_codes(codes, uniques), index=column.index, name=name)
        else:  # mostly distinct (ids, texts): hashing every cell would be wasted when the head says so
            columns[name] = _arrow_text(column)
        compacted.append(name)
    out = pd.DataFrame(columns, index=frame.index, copy=False)
    out.columns = frame.columns
    out.attrs = {**frame.attrs, COMPACTED: tuple(compacted)}
    return out


def _arrow_text(column: pd.Series) -> pd.Series:
    """An Arrow string column with 4-byte offsets (pandas' own string dtype uses 8), or 8 when
    the column's text does not fit 2 GiB."""
    import pyarrow as pa

    try:
        return column.astype(pd.ArrowDtype(pa.string()))
    except (pa.ArrowCapacityError, pa.ArrowInvalid, OverflowError):
        return column.astype(pd.ArrowDtype(pa.large_string()))


def expand_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """The table :func:`compact_frame` stored, as it was read (text columns of Python strings)."""
    compacted = frame.attrs.get(COMPACTED, ())
    if not compacted:
        return frame
    out = frame.astype({name: object for name in compacted})
    out.attrs = {k: v for k, v in frame.attrs.items() if k != COMPACTED}
    return out
