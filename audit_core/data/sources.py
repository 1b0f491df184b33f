"""One entry point for every kind of labelled audit data: :func:`load_audit_source`.

The kind is found from the content, not the file name (uploads may be renamed):

* zip magic ``PK\\x03\\x04`` -> Inspect AI ``.eval`` log (:mod:`.inspect_log`);
* one JSON document with ``eval`` and ``samples`` -> Inspect AI ``.json`` log;
* JSON lines whose objects have ``doc_id`` -> lm-evaluation-harness samples (:mod:`.lmeval`);
* a folder -> lm-eval output folder (``samples_*.jsonl`` and ``results_*.json``);
* anything else -> labelled audit CSV (:func:`audit_core.data.loader.load_audit_csv`).

Every kind returns the same :class:`AuditData`; every bad or unsupported file raises one
:class:`InputError`.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

from audit_core.data.csvio import CsvSource, read_bytes
from audit_core.data.inspect_log import (
    ZIP_MAGIC,
    load_inspect_log,
    read_eval_archive,
    read_json_log,
)
from audit_core.data.lmeval import load_lmeval, read_output_dir
from audit_core.data.loader import AuditData, load_audit_csv
from audit_core.errors import InputError

CSV, INSPECT_EVAL, INSPECT_JSON, LMEVAL_SAMPLES, LMEVAL_DIR = (
    "csv", "inspect-eval", "inspect-json", "lmeval-samples", "lmeval-dir")
SOURCE_KINDS = (CSV, INSPECT_EVAL, INSPECT_JSON, LMEVAL_SAMPLES, LMEVAL_DIR)


def _json_text(raw: bytes) -> str | None:
    """The text if the bytes look like JSON (an object first), else None."""
    head = raw[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    if not head.startswith(b"{"):
        return None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


def detect_kind(raw: bytes, name: str) -> tuple[str, object]:
    """(kind, parsed content or None) of a file's bytes; JSON kinds are parsed once here."""
    if raw.startswith(ZIP_MAGIC):
        return INSPECT_EVAL, None
    text = _json_text(raw)
    if text is None:
        return CSV, None
    try:
        document = json.loads(text)
    except json.JSONDecodeError:
        first = next(line for line in text.splitlines() if line.strip())
        try:
            row = json.loads(first)
        except json.JSONDecodeError:
            raise InputError(f"{name}: starts like JSON but is neither a JSON document nor JSON lines") from None
        if isinstance(row, dict) and "doc_id" in row:
            return LMEVAL_SAMPLES, text
        raise InputError(f"{name}: JSON lines, but not lm-eval samples (the first line has no 'doc_id')") from None
    if isinstance(document, dict) and "eval" in document and ("samples" in document or "results" in document):
        return INSPECT_JSON, document
    if isinstance(document, dict) and "doc_id" in document:
        return LMEVAL_SAMPLES, text  # a samples file with a single line
    if isinstance(document, dict) and "results" in document and ("configs" in document or "n-samples" in document):
        raise InputError(f"{name}: an lm-eval results file holds no per-sample scores; give the samples_*.jsonl "
                         "file(s) or the whole output folder")
    raise InputError(f"{name}: a JSON document, but neither an Inspect AI log (eval, samples) nor lm-eval samples")


def _refuse_csv_roles(kind: str, id, text) -> None:
    if id is not None or text is not None:
        raise InputError(f"{kind} source: the case id comes from the log; id and text columns apply to CSV files only")


def load_audit_source(source, name: str | None = None, *, score: str | None = None, subgroups=None,
                      order=None, id: str | None = None, text: str | None = None, features=None,
                      filter: str | None = None) -> AuditData:
    """Load a CSV, an Inspect AI log, lm-eval samples file(s) or an lm-eval output folder.

    ``source``: a path (file or folder), bytes, a binary file object, or a list of paths to
    lm-eval samples files. ``score``: the CSV column, Inspect scorer or lm-eval metric;
    ``subgroups``: columns, metadata keys or doc fields; ``order``: column (``False`` = as read);
    ``filter``: the lm-eval filter. See each kind's module for its mapping rules.
    """
    if isinstance(source, (list, tuple)):
        return _load_samples_files([Path(p) for p in source], name, score, subgroups, order, features, filter, id, text)
    if isinstance(source, (str, os.PathLike)) and Path(source).is_dir():
        _refuse_csv_roles("lm-eval", id, text)
        files, results, notes = read_output_dir(Path(source))
        data = load_lmeval(files, results, name or str(source), score=score, subgroups=subgroups, order=order,
                           features=features, filter=filter)
        return _with_notes(data, notes)
    raw, display = read_bytes(source, name)
    kind, parsed = detect_kind(raw, display)
    if kind == CSV:
        if filter is not None:
            raise InputError(f"{display}: a filter applies to lm-eval samples only")
        return load_audit_csv(raw, name=display, score=score, subgroups=subgroups, order=order, id=id, text=text,
                              features=features)
    if kind == LMEVAL_SAMPLES:
        _refuse_csv_roles("lm-eval", id, text)
        return load_lmeval([(display, parsed)], None, display, score=score, subgroups=subgroups, order=order,
                           features=features, filter=filter)
    _refuse_csv_roles("Inspect AI", id, text)
    if filter is not None:
        raise InputError(f"{display}: a filter applies to lm-eval samples only")
    header, samples = read_eval_archive(raw, display) if kind == INSPECT_EVAL else read_json_log(parsed, display)
    return load_inspect_log(header, samples, display, score=score, subgroups=subgroups, order=order, features=features)


def _load_samples_files(paths: list[Path], name, score, subgroups, order, features, filter, id, text) -> AuditData:
    """Several lm-eval samples files (one per task) as one source."""
    _refuse_csv_roles("lm-eval", id, text)
    if not paths:
        raise InputError("source: no file given")
    files = []
    for path in paths:
        raw, display = read_bytes(path)
        kind, parsed = detect_kind(raw, display)
        if kind != LMEVAL_SAMPLES:
            raise InputError(f"{display}: several files are read together only as lm-eval samples files; "
                             f"this one is {kind}")
        files.append((display, parsed))
    return load_lmeval(files, None, name or ", ".join(p.name for p in paths), score=score, subgroups=subgroups,
                       order=order, features=features, filter=filter)


def _with_notes(data: AuditData, notes: list[str]) -> AuditData:
    return replace(data, notes=tuple(notes) + data.notes) if notes else data


__all__ = ["CSV", "INSPECT_EVAL", "INSPECT_JSON", "LMEVAL_DIR", "LMEVAL_SAMPLES", "SOURCE_KINDS", "CsvSource",
           "detect_kind", "load_audit_source"]
