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
from dataclasses import dataclass, replace
from pathlib import Path

from audit_core.data import jsonio
from audit_core.data.csvio import CsvSource, read_bytes
from audit_core.data.inspect_log import (
    POOL_SCORE_PREFIX,
    ZIP_MAGIC,
    inspect_choices,
    inspect_pool_frame,
    load_inspect_log,
    read_eval_archive,
    read_json_log,
)
from audit_core.data.lmeval import lmeval_choices, load_lmeval, read_output_dir
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
        document = jsonio.loads(text, name)
    except json.JSONDecodeError:
        first = next(line for line in text.splitlines() if line.strip())
        try:
            row = jsonio.loads(first, f"{name}: line 1")
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


@dataclass(frozen=True)
class LogChoices:
    """What a reader of an evaluation log can be given: ``scores`` (Inspect scorers, ``scorer.key``
    for dict values, or lm-eval metrics), ``subgroups`` (metadata keys, or ``task``/``group`` and doc
    fields), ``default_subgroups`` (those read when none are given) and lm-eval ``filters``."""

    scores: tuple[str, ...]
    subgroups: tuple[str, ...]
    default_subgroups: tuple[str, ...]
    filters: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {"scores": list(self.scores), "subgroups": list(self.subgroups),
                "default_subgroups": list(self.default_subgroups), "filters": list(self.filters)}


def log_choices(source, name: str | None = None) -> LogChoices | None:
    """The choices of an evaluation log (as :func:`load_audit_source` takes it), None for a CSV."""
    if isinstance(source, (list, tuple)):
        files = [read_bytes(Path(p)) for p in source]
        return LogChoices(*lmeval_choices([(n, detect_kind(raw, n)[1]) for raw, n in files], None))
    if isinstance(source, (str, os.PathLike)) and Path(source).is_dir():
        files, results, _ = read_output_dir(Path(source))
        return LogChoices(*lmeval_choices(files, results))
    raw, display = read_bytes(source, name)
    kind, parsed = detect_kind(raw, display)
    if kind == CSV:
        return None
    if kind == LMEVAL_SAMPLES:
        return LogChoices(*lmeval_choices([(display, parsed)], None))
    header, samples = read_eval_archive(raw, display) if kind == INSPECT_EVAL else read_json_log(parsed, display)
    return LogChoices(*inspect_choices(header, samples))


@dataclass(frozen=True)
class PoolTable:
    """A pool to label, as the CSV a live audit stores: ``content`` (UTF-8 CSV bytes), ``roles``
    (the column roles the reader fixed, as for a live pool: ``id``, ``text``, ``features``,
    ``hidden`` (never shown to an annotator); empty for a CSV, whose roles are detected), ``kind``
    (a :data:`SOURCE_KINDS` value) and ``notes``."""

    content: bytes
    roles: dict
    kind: str
    notes: tuple[str, ...] = ()


def read_pool_table(raw: bytes, name: str) -> PoolTable:
    """A pool file of any kind as CSV: a CSV as it is; an Inspect AI log (``.eval`` / ``.json``)
    as one row per model output (:func:`~audit_core.data.inspect_log.inspect_pool_frame`),
    shown by its input, target and output, with no features. lm-eval samples are refused: the
    harness's pool has no model output text to show an annotator beyond its own metric."""
    kind, parsed = detect_kind(raw, name)
    if kind == CSV:
        return PoolTable(raw, {}, kind)
    if kind == LMEVAL_SAMPLES:
        raise InputError(f"{name}: lm-eval samples cannot be a pool to label; give a CSV or an Inspect AI log")
    header, samples = read_eval_archive(raw, name) if kind == INSPECT_EVAL else read_json_log(parsed, name)
    frame, notes = inspect_pool_frame(header, samples, name)
    # No score role: the people's labels are the scores. The automatic scorers' columns stay in the
    # table (to compare with afterwards) but are hidden from the annotator, who must not anchor on them.
    hidden = [c for c in frame.columns if c.startswith(POOL_SCORE_PREFIX)]
    roles = {"id": "id", "text": "input", "features": [], "score": None, "hidden": hidden, "resolved": True}
    return PoolTable(frame.to_csv(index=False).encode("utf-8"), roles, kind, tuple(notes))


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
           "LogChoices", "PoolTable", "detect_kind", "load_audit_source", "log_choices", "read_pool_table"]
