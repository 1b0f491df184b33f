"""lm-evaluation-harness ``--log_samples`` outputs as labelled audit data.

lm-eval writes, per run, ``samples_<task>_<time>.jsonl`` (one JSON object a line per document and
filter: ``doc_id``, ``doc``, ``target``, ``filter``, ``metrics`` = the names of the per-sample
metrics, and each metric's value) and ``results_<time>.json`` (aggregates, and ``group_subtasks``
mapping groups to their tasks). The tests compare this reader with lm-eval's own results files
and file helpers on outputs lm-eval wrote (tests/fixtures/lmeval/).

Mapping (issue 9):

* case id = ``task/doc_id``; the task comes from the file name (``samples_<task>_<time>.jsonl``).
* score = one per-sample metric (``acc``, ``acc_norm``, ``exact_match``, ...) whose values are
  numbers or booleans in [0, 1]; with several candidates and none chosen, the message lists them.
* filter: one is used; with several in the input and none chosen, the message lists them.
* subgroups: ``doc`` fields by bare name (``subject``) or as ``doc.subject``; ``task`` is added as
  the first subgroup when the input spans several tasks; ``group`` (from ``results_*.json``) is
  available as a subgroup.
* samples without a response (``resps`` and ``filtered_resps`` empty: the model or its provider
  returned nothing) are not the model's answers: left out of every rate, and the warnings say how many.
* order: lm-eval records no per-sample time: tasks in file-name order, documents in file order.
* Only the chosen metric and the doc fields chosen as subgroups are used: doc ids, targets,
  responses and other metrics never become features.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import replace
from pathlib import Path

import pandas as pd

from audit_core.data import jsonio
from audit_core.data.loader import (
    AuditData,
    _as_tuple,
    _normalise,
    load_audit_frame,
    natural_subgroup,
)
from audit_core.errors import InputError, listed, quoted

SAMPLES_FILE = re.compile(r"^samples_(?P<task>.+)_(?P<time>\d{4}-\d{2}-\d{2}T[0-9.\-]+)\.jsonl$")
RESULTS_FILE = re.compile(r"^results_(?P<time>\d{4}-\d{2}-\d{2}T[0-9.\-]+)\.json$")
# Fields of a samples line that are never metrics.
_NOT_METRICS = {"doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics",
                "doc_hash", "prompt_hash", "target_hash", "task_name"}
_RESERVED = ("id", "task", "doc_id", "group", "filter")


def task_of(file_name: str) -> str:
    """The task name of a samples file (``samples_<task>_<time>.jsonl``), else the file's stem."""
    base = Path(file_name).name
    match = SAMPLES_FILE.match(base)
    if match:
        return match.group("task")
    stem = base[:-len(".jsonl")] if base.endswith(".jsonl") else Path(base).stem
    return stem.removeprefix("samples_")


def parse_samples(text: str, name: str) -> list[dict]:
    rows = []
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = jsonio.loads(line, f"{name}: line {line_no}")
        except json.JSONDecodeError as exc:
            raise InputError(f"{name}: line {line_no} is not JSON ({exc.msg})") from None
        if not isinstance(row, dict) or "doc_id" not in row:
            raise InputError(f"{name}: line {line_no} is not an lm-eval sample (no 'doc_id')")
        if not isinstance(row.get("doc") or {}, dict):
            raise InputError(f"{name}: line {line_no}: 'doc' is not a JSON object")
        rows.append(row)
    if not rows:
        raise InputError(f"{name}: no samples")
    return rows


def _empty(value) -> bool:
    return value is None or (isinstance(value, str) and not value.strip()) or \
        (isinstance(value, (list, tuple)) and all(_empty(v) for v in value))


def has_response(row: dict) -> bool:
    """Whether a samples line holds the model's response: ``resps`` or ``filtered_resps`` with
    something in it (a line written without both fields is taken as answered)."""
    if "resps" not in row and "filtered_resps" not in row:
        return True
    return not (_empty(row.get("resps")) and _empty(row.get("filtered_resps")))


def unanswered_warning(n: int, total: int) -> str:
    return (f"{n} of {total} lm-eval sample(s) hold no response (empty resps): no answer of the model, "
            "so they are left out of every rate")


def _metrics_of(row: dict) -> list[str]:
    listed = row.get("metrics")
    if isinstance(listed, list):
        return [m for m in listed if isinstance(m, str) and m in row]
    return [k for k, v in row.items() if k not in _NOT_METRICS and isinstance(v, (int, float))]


def _is_unit(value) -> bool:
    return isinstance(value, (bool, int, float)) and math.isfinite(float(value)) and 0.0 <= float(value) <= 1.0


def _choose_filter(rows: list[tuple[str, dict]], chosen: str | None, name: str) -> str:
    filters = sorted({str(r.get("filter", "none")) for _, r in rows})
    if chosen is None:
        if len(filters) > 1:
            raise InputError(f"{name}: the samples were scored under {len(filters)} filters "
                             f"({listed(filters)}); choose one filter")
        return filters[0]
    if chosen not in filters:
        raise InputError(f"{name}: filter {quoted(chosen)} not found; the filters are {listed(filters)}")
    return chosen


def _choose_metric(rows: list[tuple[str, dict]], chosen: str | None, name: str) -> str:
    metrics: list[str] = []
    for _, row in rows:
        metrics += [m for m in _metrics_of(row) if m not in metrics]
    if chosen is not None:
        lacking = sorted({task for task, row in rows if chosen not in row})
        if chosen not in metrics:
            raise InputError(f"{name}: score metric {quoted(chosen)} not found; the per-sample metrics are "
                             f"{listed(metrics) or 'none'}")
        if lacking:
            raise InputError(f"{name}: score metric {quoted(chosen)} is missing in task(s) {listed(lacking)}")
        return chosen
    candidates = [m for m in metrics if all(m in row and _is_unit(row[m]) for _, row in rows)]
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        raise InputError(f"{name}: no per-sample metric has values in [0, 1] in every sample (metrics: "
                         f"{listed(metrics) or 'none'})")
    raise InputError(f"{name}: several per-sample metrics could serve as the score ({listed(candidates)}); "
                     "choose one as the score")


def _top_groups(results: dict | None) -> dict[str, str]:
    """task -> its outermost group, from ``group_subtasks`` of a results file."""
    subtasks = (results or {}).get("group_subtasks") or {}
    parent = {task: group for group, tasks in subtasks.items() for task in tasks if task != group}
    top = {}
    for task, group in parent.items():
        seen = {task}
        while group in parent and group not in seen:
            seen.add(group)
            group = parent[group]
        top[task] = group
    return top


def _cell(value) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def lmeval_frame(files: list[tuple[str, str]], results: dict | None, score: str | None, filter: str | None,
                 name: str) -> tuple[pd.DataFrame, str, list[str], list[str], list[str]]:
    """(table in file order, score column, doc-field columns, notes, warnings) from (file name, text)
    pairs; samples without a response are left out (:func:`has_response`)."""
    rows = [(task_of(f), row) for f, text in files for row in parse_samples(text, f)]
    chosen_filter = _choose_filter(rows, filter, name)
    rows = [(task, row) for task, row in rows if str(row.get("filter", "none")) == chosen_filter]
    answered = [(task, row) for task, row in rows if has_response(row)]
    warnings = [unanswered_warning(len(rows) - len(answered), len(rows))] if len(answered) < len(rows) else []
    if not answered:
        raise InputError(f"{name}: {warnings[0]}; nothing is left to read")
    rows = answered
    metric = _choose_metric(rows, score, name)
    groups = _top_groups(results)
    doc_keys: list[str] = []
    for _, row in rows:
        doc_keys += [k for k in (row.get("doc") or {}) if k not in doc_keys]
    doc_columns = {(f"doc.{k}" if k in _RESERVED or k == metric else str(k)): k for k in doc_keys}
    records = []
    for position, (task, row) in enumerate(rows, start=1):
        if not isinstance(row[metric], (bool, int, float, str, type(None))):
            # a list or object (e.g. a multi-reference metric) is no score: one message, not a
            # pandas TypeError later
            raise InputError(f"{name}: sample {position} (task {quoted(task)}): the {quoted(metric)} value is a JSON "
                             f"{'list' if isinstance(row[metric], list) else 'object'}, not a number")
        doc = row.get("doc") or {}
        record = {"id": f"{task}/{row['doc_id']}", "task": task, "doc_id": str(row["doc_id"]),
                  metric: row[metric]}
        if groups:
            record["group"] = groups.get(task, task)
        record.update({c: _cell(doc.get(k)) for c, k in doc_columns.items()})
        records.append(record)
    tasks = list(dict.fromkeys(task for task, _ in rows))
    listed = ", ".join(tasks[:6]) + (" ..." if len(tasks) > 6 else "")
    notes = [f"lm-eval samples: {len(tasks)} task(s) ({listed}), score = metric {metric!r}, filter {chosen_filter!r}",
             "lm-eval records no per-sample time: replayed task by task (file-name order), documents in file order"]
    return pd.DataFrame(records), metric, list(doc_columns), notes, warnings


def _lmeval_subgroups(subgroups, doc_columns: list[str], several_tasks: bool, has_group: bool,
                      notes: list[str], values_of: dict[str, list] | None = None) -> tuple[str, ...]:
    """The subgroups: the user's (``task`` first when the input spans several tasks), else one key:
    ``task`` when there are several, else one doc field (:func:`~audit_core.data.loader.natural_subgroup`)."""
    chosen = _as_tuple(subgroups)
    if chosen is None:
        if several_tasks:
            notes.append("subgroup: 'task' (the input spans several tasks; choose doc fields as well to cross them)")
            return ("task",)
        values = {c: v for c, v in (values_of or {}).items() if c in doc_columns and _normalise(c) != "task"}
        chosen = natural_subgroup(values)
        notes.append(f"subgroup auto-detected from doc fields: {chosen[0]!r} (one key)" if chosen else
                     f"no subgroup doc field detected; the doc fields are {', '.join(doc_columns) or 'none'}")
        return chosen
    else:
        known = set(doc_columns) | {"task"} | ({"group"} if has_group else set())
        chosen = tuple(c[len("doc."):] if c.startswith("doc.") and c not in known and c[len("doc."):] in known
                       else c for c in chosen)
    if several_tasks and "task" not in chosen and (subgroups is None or chosen):   # () chosen: no subgroups
        chosen = ("task", *chosen)
        notes.append("the input spans several tasks: 'task' is the first subgroup")
    return chosen


def lmeval_choices(files: list[tuple[str, str]], results: dict | None
                   ) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(metrics, subgroup fields, default subgroups, filters) a reader of these samples can be
    given: every per-sample metric, ``task`` (and ``group``) and every doc field, the subgroups
    chosen when none is given, and the filters."""
    rows = [(task_of(f), row) for f, text in files for row in parse_samples(text, f)]
    metrics: list[str] = []
    doc_keys: list[str] = []
    for _, row in rows:
        metrics += [m for m in _metrics_of(row) if m not in metrics]
        doc_keys += [k for k in (row.get("doc") or {}) if k not in doc_keys]
    doc_columns = [f"doc.{k}" if k in _RESERVED or k in metrics else str(k) for k in doc_keys]
    several_tasks = len({task for task, _ in rows}) > 1
    has_group = bool(_top_groups(results))
    values = {c: [_cell((row.get("doc") or {}).get(k)) for _, row in rows]
              for c, k in zip(doc_columns, doc_keys, strict=True)}
    default = _lmeval_subgroups(None, doc_columns, several_tasks, has_group, [], values)
    fields = ("task", *(("group",) if has_group else ()), *doc_columns)
    filters = tuple(sorted({str(r.get("filter", "none")) for _, r in rows}))
    return tuple(metrics), fields, default, filters


def load_lmeval(files: list[tuple[str, str]], results: dict | None, name: str, score: str | None = None,
                subgroups=None, order=None, features=None, filter: str | None = None) -> AuditData:
    """AuditData from lm-eval samples files (see the module docstring for the mapping)."""
    frame, metric, doc_columns, notes, warnings = lmeval_frame(files, results, score, filter, name)
    chosen = _lmeval_subgroups(subgroups, doc_columns, frame["task"].nunique() > 1, "group" in frame, notes,
                               {c: frame[c].tolist() for c in doc_columns})
    data = load_audit_frame(frame, name=name, score=metric, subgroups=chosen, order=False if order is None else order,
                            id="id", text=False, features=() if features is None else features)
    return replace(data, notes=tuple(notes) + data.notes, warnings=tuple(warnings) + data.warnings)


def read_output_dir(directory: Path) -> tuple[list[tuple[str, str]], dict | None, list[str]]:
    """(samples files as (name, text), results document or None, notes) of an lm-eval output folder.

    lm-eval writes into ``<output_path>/<model>/``; the folder is searched recursively. With several
    runs in it (distinct timestamps) the latest is read and the notes say so.
    """
    found = [p for p in sorted(directory.rglob("samples_*.jsonl")) if p.is_file()]
    if not found:
        raise InputError(f"{directory}: no lm-eval samples_*.jsonl file in this folder (was lm-eval run "
                         "with --log_samples?)")
    stamps = sorted({m.group("time") for p in found if (m := SAMPLES_FILE.match(p.name))})
    notes = []
    if len(stamps) > 1:
        found = [p for p in found if p.name.endswith(f"_{stamps[-1]}.jsonl")]
        notes.append(f"{directory}: {len(stamps)} runs in the folder; the latest ({stamps[-1]}) is read")
    results = None
    result_files = [p for p in directory.rglob("results_*.json")
                    if not stamps or p.name == f"results_{stamps[-1]}.json"]
    if result_files:
        try:
            results = jsonio.loads(result_files[0].read_text(encoding="utf-8"), str(result_files[0]))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(f"{result_files[0]}: not a readable lm-eval results file ({exc})") from None
    try:
        files = [(str(p), p.read_text(encoding="utf-8")) for p in found]
    except UnicodeDecodeError as exc:
        raise InputError(f"{directory}: a samples file is not UTF-8 text ({exc})") from None
    return files, results, notes
