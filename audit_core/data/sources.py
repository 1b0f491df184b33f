"""One entry point for every kind of labelled audit data: :func:`load_audit_source`.

The kind is found from the content, not the file name (uploads may be renamed):

* zip magic ``PK\\x03\\x04`` -> Inspect AI ``.eval`` log (:mod:`.inspect_log`);
* one JSON document with ``eval`` and ``samples`` -> Inspect AI ``.json`` log;
* JSON lines whose objects have ``doc_id`` -> lm-evaluation-harness samples (:mod:`.lmeval`);
* a folder -> lm-eval output folder (``samples_*.jsonl`` and ``results_*.json``), else a folder of
  Inspect AI logs (a log dir or an eval set: each log one run);
* anything else -> labelled audit CSV (:func:`audit_core.data.loader.load_audit_csv`).

Several files or folders (a list; :func:`load_runs`) are several runs read as one table with a
``run`` column, the first subgroup: each run is read as above with the same choices, labelled by
the model and task its log names (a CSV by its file name) or by the user's labels, and replayed one
after the other. lm-eval samples files alone stay one run (one file per task).

Every kind returns the same :class:`AuditData`; every bad or unsupported file raises one
:class:`InputError`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

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
from audit_core.data.loader import AuditData, load_audit_csv, load_audit_frame
from audit_core.errors import InputError

CSV, INSPECT_EVAL, INSPECT_JSON, LMEVAL_SAMPLES, LMEVAL_DIR, RUNS = (
    "csv", "inspect-eval", "inspect-json", "lmeval-samples", "lmeval-dir", "runs")
SOURCE_KINDS = (CSV, INSPECT_EVAL, INSPECT_JSON, LMEVAL_SAMPLES, LMEVAL_DIR, RUNS)
RUN_COLUMN = "run"


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
                      filter: str | None = None, labels=None) -> AuditData:
    """Load a CSV, an Inspect AI log, lm-eval samples file(s) or an lm-eval output folder.

    ``source``: a path (file or folder), bytes, a binary file object, or a list of paths to
    lm-eval samples files. ``score``: the CSV column, Inspect scorer or lm-eval metric;
    ``subgroups``: columns, metadata keys or doc fields; ``order``: column (``False`` = as read);
    ``filter``: the lm-eval filter; ``labels``: several runs' names (:func:`load_runs`). See each
    kind's module for its mapping rules.
    """
    if labels is not None and not isinstance(source, (list, tuple)) and not (
            isinstance(source, (str, os.PathLike)) and Path(source).is_dir()):
        raise InputError("labels: several runs need several files; one file is one run")
    if isinstance(source, (list, tuple)) or (isinstance(source, (str, os.PathLike)) and Path(source).is_dir()
                                             and not _has_lmeval_samples(Path(source))):
        return load_runs(source if isinstance(source, (list, tuple)) else [source], name, labels=labels, score=score,
                         subgroups=subgroups, order=order, features=features, filter=filter, id=id, text=text)
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
    """The choices of an evaluation log (as :func:`load_audit_source` takes it), None for a CSV;
    for several runs, the choices every run offers, with ``run`` first among the subgroups."""
    if isinstance(source, (list, tuple)) or (isinstance(source, (str, os.PathLike)) and Path(source).is_dir()
                                             and not _has_lmeval_samples(Path(source))):
        files = _run_files(source if isinstance(source, (list, tuple)) else [source])
        if _all_lmeval_samples(files):
            return LogChoices(*lmeval_choices([(n, detect_kind(raw, n)[1]) for n, raw in files], None))
        each = []
        for display, raw in files:
            found = log_choices(raw, display)
            if found is None:  # a CSV: any column
                from audit_core.data.csvio import read_csv_frame
                columns = tuple(str(c) for c in read_csv_frame(raw, name=display).columns)
                found = LogChoices(columns, columns, ())
            each.append(found)
        common = [s for s in each[0].scores if all(s in c.scores for c in each)]
        keys = [s for s in each[0].subgroups if all(s in c.subgroups for c in each) and s != RUN_COLUMN]
        defaults = [s for s in each[0].default_subgroups if s in keys]
        return LogChoices(tuple(common), (RUN_COLUMN, *keys), (RUN_COLUMN, *defaults),
                          tuple(f for f in each[0].filters if all(f in c.filters for c in each)))
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


def _has_lmeval_samples(folder: Path) -> bool:
    return any(p.is_file() for p in folder.rglob("samples_*.jsonl"))


def inspect_logs_in(folder: Path) -> list[Path]:
    """The Inspect AI logs in a folder (a log dir or an eval set), by name: ``.eval`` archives and
    ``.json`` documents that are logs (an eval set's own ``logs.json`` and ``eval-set.json`` are not)."""
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in (".eval", ".json")):
        if path.suffix == ".eval":
            found.append(path)
            continue
        with open(path, "rb") as handle:
            head = handle.read(4096)
        if b'"eval"' in head or b'"samples"' in head:  # cheap look first; the reader checks the whole
            try:
                if detect_kind(read_bytes(path)[0], str(path))[0] == INSPECT_JSON:
                    found.append(path)
            except InputError:
                continue
    return found


def _run_files(items) -> list[tuple[str, bytes | Path]]:
    """(display name, bytes or an lm-eval output folder) per run: a folder of Inspect logs gives
    one per log; ``(name, bytes)`` pairs (uploads) are taken as they are."""
    files: list[tuple[str, bytes | Path]] = []
    for item in items:
        if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], (bytes, bytearray)):
            files.append((str(item[0]), bytes(item[1])))
        elif isinstance(item, (str, os.PathLike)) and Path(item).is_dir():
            if _has_lmeval_samples(Path(item)):
                files.append((str(item), Path(item)))
                continue
            logs = inspect_logs_in(Path(item))
            if not logs:
                raise InputError(f"{item}: no evaluation log in this folder (no Inspect AI .eval or .json log, "
                                 "no lm-eval samples_*.jsonl file)")
            files += [(str(p), read_bytes(p)[0]) for p in logs]
        else:
            raw, display = read_bytes(item)
            files.append((display, raw))
    if not files:
        raise InputError("source: no file given")
    return files


def _all_lmeval_samples(files) -> bool:
    return all(isinstance(raw, bytes) and detect_kind(raw, display)[0] == LMEVAL_SAMPLES for display, raw in files)


def _label_of(display: str, raw: bytes | Path) -> str:
    """A run's label: the model and task its Inspect log names, else the file or folder name."""
    if isinstance(raw, bytes):
        kind, parsed = detect_kind(raw, display)
        if kind in (INSPECT_EVAL, INSPECT_JSON):
            from audit_core.data.inspect_log import iter_eval_archive
            header = iter_eval_archive(raw, display)[0] if kind == INSPECT_EVAL else parsed
            spec = header.get("eval") if isinstance(header.get("eval"), dict) else {}
            model, task = str(spec.get("model") or "").strip(), str(spec.get("task") or "").strip()
            if model or task:
                return " · ".join(x for x in (model, task) if x)
    return Path(display).stem or display


def run_status_of(raw: bytes, display: str) -> str | None:
    """An Inspect AI log's run status (``started`` while it runs, then ``success``, ``error`` or
    ``cancelled``); None for a file that records none (a CSV, lm-eval samples)."""
    kind, parsed = detect_kind(raw, display)
    if kind not in (INSPECT_EVAL, INSPECT_JSON):
        return None
    from audit_core.data.inspect_log import iter_eval_archive, run_status
    header = iter_eval_archive(raw, display)[0] if kind == INSPECT_EVAL else parsed
    return run_status(header) if isinstance(header, dict) else None


def run_labels(files, labels=None) -> list[str]:
    """One distinct label per run: the user's (as many as runs), else :func:`_label_of`, with the
    file name added where two runs would share one (two logs of the same model and task)."""
    if labels is not None:
        labels = [str(label).strip() for label in labels]
        if len(labels) != len(files):
            raise InputError(f"labels: {len(labels)} label(s) for {len(files)} run(s); give one label per run")
        if len(set(labels)) < len(labels) or not all(labels):
            raise InputError(f"labels: every run needs its own non-empty label ({', '.join(map(repr, labels))})")
        return labels
    found = [_label_of(display, raw) for display, raw in files]
    counts = {label: found.count(label) for label in found}
    found = [f"{label} ({Path(display).name})" if counts[label] > 1 else label
             for label, (display, _) in zip(found, files, strict=True)]
    return [label if found.count(label) == 1 else f"{label} #{i + 1}" for i, label in enumerate(found)]


def load_runs(items, name: str | None = None, *, labels=None, score: str | None = None, subgroups=None,
              order=None, features=None, filter: str | None = None, id: str | None = None,
              text: str | None = None) -> AuditData:
    """Several runs (files, folders, ``(name, bytes)`` pairs) as one table with a ``run`` column.

    Each run is read by :func:`load_audit_source` with the same score, subgroups, order and filter;
    the table holds the score, ``run`` (the first subgroup) and the subgroups every run has, run
    after run, each in its own order. lm-eval samples files alone are one run (one file per task).
    ``labels``: one per run (default :func:`run_labels`). Refused with one message when the runs
    share no score name or a run cannot be read.
    """
    files = _run_files(items)
    if _all_lmeval_samples(files) and labels is None:
        _refuse_csv_roles("lm-eval", id, text)
        parsed = [(display, detect_kind(raw, display)[1]) for display, raw in files]
        return load_lmeval(parsed, None, name or ", ".join(Path(d).name for d, _ in files), score=score,
                           subgroups=subgroups, order=order, features=features, filter=filter)
    if features:
        raise InputError("several runs: features apply to one run at a time")
    names = run_labels(files, labels)
    own = None if subgroups is None else tuple(s for s in ([subgroups] if isinstance(subgroups, str) else subgroups)
                                               if s != RUN_COLUMN)
    parts = []
    for (display, raw), label in zip(files, names, strict=True):
        try:
            parts.append((label, load_audit_source(raw, display, score=score, subgroups=own, order=order,
                                                   filter=filter, id=id, text=text)))
        except InputError as exc:
            raise InputError(f"run {label!r}: {exc}") from None
    first = parts[0][1]
    common = tuple(s for s in first.subgroups if all(s in d.subgroups for _, d in parts))
    frames, notes, warnings = [], [], []
    for label, data in parts:
        if data.score != first.score:
            notes.append(f"run {label!r}: score column {data.score!r} read as {first.score!r}")
        frame = data.frame[[data.score, *common]].rename(columns={data.score: first.score})
        frames.append(frame.assign(**{RUN_COLUMN: label}))
        notes += [f"run {label!r}: {n}" for n in data.notes]
        warnings += [f"run {label!r}: {w}" for w in data.warnings]
    dropped = sorted({s for _, d in parts for s in d.subgroups} - set(common))
    notes.insert(0, f"{len(parts)} runs read as one table ({', '.join(f'{lab!r}: {d.n:,}' for lab, d in parts)} "
                    f"cases), one run after the other; {RUN_COLUMN!r} is the first subgroup"
                 + (f"; subgroup(s) {', '.join(map(repr, dropped))} left out: not in every run" if dropped else ""))
    table = pd.concat(frames, ignore_index=True)[[first.score, RUN_COLUMN, *common]]
    data = load_audit_frame(table, name=name or ", ".join(Path(d).name for d, _ in files), score=first.score,
                            subgroups=(RUN_COLUMN, *common), order=False, id=False, text=False, features=())
    return replace(data, notes=tuple(notes) + data.notes, warnings=tuple(warnings) + data.warnings)


def runs_kind(items) -> str:
    """The kind of several files or a folder: :data:`LMEVAL_DIR` for lm-eval output (a folder with
    samples files, or samples files alone), else :data:`RUNS`."""
    if not isinstance(items, (list, tuple)):
        return LMEVAL_DIR if _has_lmeval_samples(Path(items)) else RUNS
    files = _run_files(items)
    return LMEVAL_DIR if _all_lmeval_samples(files) or (len(files) == 1 and isinstance(files[0][1], Path)) else RUNS


def _with_notes(data: AuditData, notes: list[str]) -> AuditData:
    return replace(data, notes=tuple(notes) + data.notes) if notes else data


__all__ = ["CSV", "INSPECT_EVAL", "INSPECT_JSON", "LMEVAL_DIR", "LMEVAL_SAMPLES", "RUNS", "RUN_COLUMN", "SOURCE_KINDS",
           "CsvSource", "LogChoices", "PoolTable", "detect_kind", "inspect_logs_in", "load_audit_source",
           "load_runs", "log_choices", "read_pool_table", "run_labels", "runs_kind"]
