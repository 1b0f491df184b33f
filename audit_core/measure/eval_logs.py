"""Response logs straight from evaluation logs: Inspect AI ``.eval`` / ``.json`` logs and lm-eval
``--log_samples`` output of the testbed's runnable tasks (:mod:`audit_core.testbed.tasks`).

:func:`load_response_source` is the one entry point for every kind of response log: a response-log
CSV goes to :func:`~audit_core.measure.log.load_response_log`; evaluation logs (one or several, of
one or several models, Inspect and lm-eval alike) become the same rows ``model, cluster, cell,
response, oracle`` and go through the same checks (:func:`response_log_from_frame`). The kind of
each file is read from its content (:func:`audit_core.data.sources.detect_kind`), and the logs are
read with the project's own readers (:mod:`audit_core.data.inspect_log`, :mod:`audit_core.data.lmeval`).

Mapping:

* an lm-eval output folder may come as one zip archive (the Measure page takes one file).
* model: Inspect's ``eval.model``; lm-eval's ``model_name`` (else ``config.model`` with its
  ``pretrained=`` argument) from ``results_*.json``, else the folder name. Several Inspect epochs
  are several models ``<model> [epoch k]``.
* cluster, cell, oracle, testbed tag: the sample's ``metadata`` (Inspect) or ``doc`` (lm-eval).
  Items that carry the oracles of every world (``oracles``) give the per-cluster columns
  ``oracle_base, oracle_target, oracle_sham``, so a log of a reduced support (no row in some
  world) still knows every world's oracle.
* response: the option letter the model chose. Inspect: a score's ``answer`` when it is one of the
  sample's option letters, else the completion when it is a lone letter or ``ANSWER: X``.
  lm-eval: ``multiple_choice`` = the choice with the highest log-likelihood; ``generate_until`` =
  the filtered response when it is one of the option letters. Anything else (text, lm-eval's
  ``[invalid]``) is ``INVALID`` and counted in the notes.
* errored Inspect samples and lm-eval samples without a response are not the model's answers (a
  provider outage is not an invalid answer): left out of the log, every rate is of the others, and
  the notes say how many and why; the notes also state each Inspect run's status.

Refused with one message each: a log whose samples carry no testbed metadata (an ordinary task),
logs of items from different testbeds (another seed: same cluster names, other problems), a
response-log CSV mixed with evaluation logs, cells outside the layout being measured, and a model
none of whose answers is an option letter (it answered in text).
"""

from __future__ import annotations

import json
import math
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from audit_core.data.csvio import read_bytes
from audit_core.errors import InputError
from audit_core.identify import PolicyClass, frozen_policy_class
from audit_core.measure.log import NON_ANSWER, ResponseLog, listed, load_response_log, response_log_from_frame

TAG_KEY = "testbed"  # as audit_core.testbed.tasks.TAG_KEY (measure does not import the testbed)
NEEDED = ("cluster", "cell", "oracle")
LETTER = re.compile(r"^\s*(?:ANSWER\s*:\s*)?\(?([A-Z])\)?[.:)]?\s*$", re.IGNORECASE)
STATED = re.compile(r"ANSWER\s*:\s*\(?([A-Z])\b", re.IGNORECASE)
LMEVAL_INVALID = "[invalid]"
_EXAMPLE_CHARS = 40


@dataclass
class _Rows:
    """Rows of one evaluation log, and what the notes and checks need."""

    source: str
    kind: str
    rows: list = field(default_factory=list)
    tags: dict = field(default_factory=dict)  # cluster -> (seed, cluster_key)
    text: Counter = field(default_factory=Counter)  # model -> answers that were text
    text_example: dict = field(default_factory=dict)
    errored: Counter = field(default_factory=Counter)  # model -> samples left out (errored / no response)
    error_reasons: Counter = field(default_factory=Counter)  # first line of each error message
    letters: Counter = field(default_factory=Counter)  # model -> answers that were letters
    notes: list = field(default_factory=list)


def _metadata(record: dict, part: str, name: str, what: str) -> dict:
    meta = record.get(part) if isinstance(record.get(part), dict) else {}
    missing = [k for k in NEEDED if not isinstance(meta.get(k), str) or not meta.get(k)]
    if missing:
        raise InputError(
            f"{name}: {what} has no testbed fields in its {part} ({', '.join(missing)} missing): this is not a log of "
            "testbed items. Run the task the testbed writes for its items (Inspect AI task file or lm-eval "
            "task folder), whose samples carry cluster, cell and oracle")
    return meta


def _oracle_of(meta: dict):
    """The item's oracle: the labels of every world (``oracles``, items since issue 33: a log of a
    reduced support still knows them all) as a dict, else the label of its own world."""
    oracles = meta.get("oracles")
    if isinstance(oracles, dict) and oracles and all(isinstance(v, str) and v for v in oracles.values()):
        return dict(oracles)
    return meta["oracle"]


def _oracle_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """Per-world columns ``oracle_<world>`` when every row carries the oracles of all worlds (the
    response-log CSV's per-cluster form), else the column ``oracle`` (label of the row's world)."""
    values = frame["oracle"].tolist()
    if values and all(isinstance(v, dict) for v in values):
        worlds = list(dict.fromkeys(w for v in values for w in v))
        out = frame.drop(columns=["oracle"])
        for w in worlds:
            out[f"oracle_{w}"] = [v.get(w, "") for v in values]
        return out
    world = frame["cell"].str.split(":").str[0] if len(frame) else frame["cell"]
    frame = frame.copy()
    frame["oracle"] = [v.get(w, "") if isinstance(v, dict) else v for v, w in zip(values, world, strict=True)]
    return frame


def _tag(meta: dict, rows: _Rows) -> None:
    tag = meta.get(TAG_KEY) if isinstance(meta.get(TAG_KEY), dict) else {}
    key = (tag.get("seed"), tag.get("cluster_key"))
    seen = rows.tags.setdefault(meta["cluster"], key)
    if seen != key:
        raise InputError(f"{rows.source}: cluster {meta['cluster']!r} appears with two testbed tags "
                         f"({_tag_text(seen)} and {_tag_text(key)}): items of different testbeds are mixed in one log")


def _tag_text(key) -> str:
    seed, fingerprint = key
    return "no testbed tag" if seed is None else f"seed {seed}, cluster fingerprint {fingerprint}"


def _letters_of(meta: dict, n_choices: int | None) -> set[str]:
    mapping = meta.get("mapping")
    if isinstance(mapping, str) and mapping:
        return set(mapping.upper())
    return {chr(ord("A") + i) for i in range(n_choices or 0)}


def _count(rows: _Rows, model: str, response: str, raw: str | None) -> str:
    if response != NON_ANSWER:
        rows.letters[model] += 1
    else:
        rows.text[model] += 1
        if raw and model not in rows.text_example:
            rows.text_example[model] = raw.strip()[:_EXAMPLE_CHARS]
    return response


# ------------------------------------------------------------------------------------ Inspect

def _inspect_completion(sample: dict) -> str:
    from audit_core.data.inspect_log import _sample_output
    return _sample_output(sample)


def _inspect_response(sample: dict, letters: set[str]) -> tuple[str, str | None]:
    """(letter or INVALID, the raw answer text)."""
    for entry in (sample.get("scores") or {}).values():
        answer = entry.get("answer") if isinstance(entry, dict) else None
        if isinstance(answer, str) and answer.strip().upper() in letters:
            return answer.strip().upper(), answer
    text = _inspect_completion(sample)
    match = LETTER.match(text) or STATED.search(text)
    if match and match.group(1).upper() in letters:
        return match.group(1).upper(), text
    return NON_ANSWER, text


def inspect_rows(header: dict, samples, name: str) -> _Rows:
    """Rows of a read Inspect log (module docstring); ``samples`` may be an iterator."""
    from audit_core.data.inspect_log import error_reason, run_status, run_status_warning, sample_errored
    rows = _Rows(name, "Inspect AI")
    spec = header.get("eval") if isinstance(header.get("eval"), dict) else {}
    model = str(spec.get("model") or "").strip() or Path(name).stem
    epochs, errored = [], []
    n_read = 0
    for sample in samples:  # an iterator over a .eval archive: one parsed sample at a time
        n_read += 1
        meta = _metadata(sample, "metadata", name, f"sample {sample.get('id')!r}")
        _tag(meta, rows)
        epoch = int(sample.get("epoch", 1) or 1)
        epochs.append(epoch)
        if sample_errored(sample):  # not the model's answer: left out, counted with its reason
            errored.append(epoch)
            rows.error_reasons[error_reason(sample.get("error"))] += 1
            continue
        response, raw = _inspect_response(sample, _letters_of(meta, len(sample.get("choices") or [])))
        rows.rows.append((model, meta["cluster"], meta["cell"], response, _oracle_of(meta), raw, epoch))
    if not n_read:
        raise InputError(f"{name}: the Inspect log has no samples")
    several = len(set(epochs)) > 1
    final = []
    for who, cluster, cell, response, oracle, raw, epoch in rows.rows:
        who = f"{who} [epoch {epoch}]" if several else who
        final.append((who, cluster, cell, _count(rows, who, response, raw), oracle))
    for epoch in errored:
        rows.errored[f"{model} [epoch {epoch}]" if several else model] += 1
    rows.rows = final
    task = spec.get("task", "?")
    rows.notes.append(f"{name}: Inspect AI log of task {task!r}, model {model!r}, status {run_status(header)}, "
                      f"{n_read} sample(s)" + (f", {len(set(epochs))} epochs (one model per epoch)" if several else ""))
    if warning := run_status_warning(header, name):
        rows.notes.append(warning)
    if not final:
        raise InputError(f"{name}: every sample of the Inspect log errored ({n_read} sample(s), e.g. "
                         f"{next(iter(rows.error_reasons))!r}): the log holds no answer of the model")
    return rows


# ------------------------------------------------------------------------------------ lm-eval

def lmeval_model(results: dict | None, fallback: str) -> str:
    """The model an lm-eval run names in its results file, else ``fallback``."""
    results = results or {}
    if str(results.get("model_name") or "").strip():
        return str(results["model_name"]).strip()
    config = results.get("config") if isinstance(results.get("config"), dict) else {}
    model = str(config.get("model") or "").strip()
    args = config.get("model_args")
    pretrained = None
    if isinstance(args, str):
        pretrained = next((a.split("=", 1)[1] for a in args.split(",") if a.strip().startswith("pretrained=")), None)
    elif isinstance(args, dict):
        pretrained = args.get("pretrained")
    if model and pretrained:
        return f"{model}:{pretrained}"
    return model or fallback


def _loglikelihood(entry) -> float:
    value = entry[0] if isinstance(entry, (list, tuple)) and entry else entry
    try:
        number = float(value)
    except (TypeError, ValueError):
        return -math.inf
    return number if math.isfinite(number) else -math.inf


def _lmeval_response(row: dict, doc: dict, letters: set[str]) -> tuple[str, str | None]:
    responses = row.get("filtered_resps")
    choices = doc.get("choices") if isinstance(doc.get("choices"), list) else []
    if isinstance(responses, list) and choices and len(responses) == len(choices) and \
            all(isinstance(r, (list, tuple)) for r in responses):  # multiple_choice: one log-likelihood a choice
        scores = [_loglikelihood(r) for r in responses]
        best = max(range(len(scores)), key=scores.__getitem__)
        chosen = str(choices[best]).strip().upper()
        return (chosen, chosen) if scores[best] > -math.inf and chosen in letters else (NON_ANSWER, None)
    text = responses[0] if isinstance(responses, list) and responses else responses
    text = text if isinstance(text, str) else ""
    if text.strip() == LMEVAL_INVALID:  # the regex filter found no letter: show what was written
        resps = row.get("resps")
        first = resps[0] if isinstance(resps, list) and resps else ""
        text = first[0] if isinstance(first, list) and first else first if isinstance(first, str) else ""
        return NON_ANSWER, text
    match = LETTER.match(text) or STATED.search(text)
    if match and match.group(1).upper() in letters:
        return match.group(1).upper(), text
    return NON_ANSWER, text


def lmeval_rows(files: list[tuple[str, str]], results: dict | None, name: str, model: str) -> _Rows:
    """Rows of lm-eval samples files of one run (module docstring); one filter per task is read."""
    from audit_core.data.lmeval import has_response, parse_samples, task_of
    rows = _Rows(name, "lm-eval")
    model = lmeval_model(results, model)
    filters: dict[str, str] = {}
    n = 0
    for file_name, text in files:
        task = task_of(file_name)
        for line in parse_samples(text, file_name):
            chosen = filters.setdefault(task, str(line.get("filter", "none")))
            if str(line.get("filter", "none")) != chosen:
                continue
            meta = _metadata(line, "doc", file_name, f"document {line.get('doc_id')!r} of task {task!r}")
            _tag(meta, rows)
            n += 1
            if not has_response(line):  # no answer of the model: left out, counted
                rows.errored[model] += 1
                rows.error_reasons["no response (empty resps)"] += 1
                continue
            response, raw = _lmeval_response(line, meta, _letters_of(meta, None))
            rows.rows.append((model, meta["cluster"], meta["cell"], _count(rows, model, response, raw),
                              _oracle_of(meta)))
    rows.notes.append(f"{name}: lm-eval samples of task(s) {', '.join(filters)} (filter "
                      f"{', '.join(sorted(set(filters.values())))}), model {model!r}, {n} document(s)")
    return rows


# ------------------------------------------------------------------------------ the entry point

def _lmeval_runs(directory: Path) -> list[tuple[str, list, dict | None, list]]:
    """(model folder, samples files, results, notes) per folder holding samples files: lm-eval
    writes ``<output_path>/<model>/``, so an output path with several models has several."""
    from audit_core.data.lmeval import read_output_dir
    folders = sorted({p.parent for p in directory.rglob("samples_*.jsonl") if p.is_file()})
    if not folders:
        read_output_dir(directory)  # raises its message: no samples files here
    return [(str(f), *read_output_dir(f)) for f in folders]


def _read_one(item, name: str | None) -> list[_Rows] | bytes:
    """The rows of one evaluation log (a list, one per lm-eval run), or the bytes of a CSV."""
    from audit_core.data.inspect_log import iter_eval_archive, read_json_log
    from audit_core.data.sources import CSV, INSPECT_EVAL, LMEVAL_SAMPLES, detect_kind, inspect_logs_in
    if isinstance(item, (str, os.PathLike)) and Path(item).is_dir():
        if not any(p.is_file() for p in Path(item).rglob("samples_*.jsonl")):
            logs = inspect_logs_in(Path(item))   # an Inspect log dir or eval set: one part per log
            if not logs:
                raise InputError(f"{item}: no evaluation log in this folder (no Inspect AI .eval or .json log, "
                                 "no lm-eval samples_*.jsonl file)")
            return [part for log in logs for part in _read_one(str(log), None)]
        out = []
        for folder, files, results, notes in _lmeval_runs(Path(item)):
            rows = lmeval_rows(files, results, folder, Path(folder).name)
            rows.notes = notes + rows.notes
            out.append(rows)
        return out
    raw, display = read_bytes(item, name)
    kind, parsed = detect_kind(raw, display)
    if kind == CSV:
        return raw
    if kind == LMEVAL_SAMPLES:
        return [lmeval_rows([(display, parsed)], None, display, Path(display).parent.name or "lm-eval model")]
    if kind == INSPECT_EVAL and (zipped := _zipped_lmeval_runs(raw, display)):
        return zipped
    header, samples = iter_eval_archive(raw, display) if kind == INSPECT_EVAL else read_json_log(parsed, display)
    return [inspect_rows(header, samples, display)]


def _zipped_lmeval_runs(raw: bytes, name: str) -> list[_Rows]:
    """lm-eval output folder(s) uploaded as one zip archive (a page takes one file): one run per
    folder holding ``samples_*.jsonl`` members; [] when the archive holds none (an Inspect log)."""
    import io
    import zipfile

    from audit_core.data.lmeval import RESULTS_FILE, SAMPLES_FILE
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
        names = [n for n in archive.namelist() if not n.endswith("/")]
    except zipfile.BadZipFile:
        return []  # the Inspect reader gives the message
    samples = [n for n in names if SAMPLES_FILE.match(Path(n).name)]
    if not samples:
        return []
    runs = []
    try:
        for folder in sorted({str(Path(n).parent) for n in samples}):
            files = [(f"{name}/{n}", archive.read(n).decode("utf-8")) for n in samples if str(Path(n).parent) == folder]
            found = [n for n in names if str(Path(n).parent) == folder and RESULTS_FILE.match(Path(n).name)]
            results = json.loads(archive.read(sorted(found)[-1])) if found else None
            runs.append(lmeval_rows(files, results, f"{name}/{folder}" if folder != "." else name,
                                    Path(folder).name if folder != "." else Path(name).stem))
    # zipfile raises NotImplementedError for a compression method it does not support
    except (UnicodeDecodeError, json.JSONDecodeError, zipfile.BadZipFile, NotImplementedError) as exc:
        raise InputError(f"{name}: a zip of lm-eval output that cannot be read ({exc})") from None
    return runs


def _check_testbeds(parts: list[_Rows]) -> None:
    """Every log's items come from one testbed: one tag per cluster name across the logs."""
    first: dict[str, tuple] = {}
    for part in parts:
        for cluster, key in part.tags.items():
            source, seen = first.setdefault(cluster, (part.source, key))
            if seen != key:
                raise InputError(
                    f"{part.source}: its items come from another testbed than those of {source} ({_tag_text(key)} "
                    f"vs {_tag_text(seen)} for cluster {cluster!r}): clusters of the same name are different "
                    "problems. Measure together only logs of the items of one testbed generate run")


def _answer_notes(parts: list[_Rows]) -> list[str]:
    letters, text, errored, example, reasons = Counter(), Counter(), Counter(), {}, Counter()
    for part in parts:
        letters.update(part.letters)
        text.update(part.text)
        errored.update(part.errored)
        reasons.update(part.error_reasons)
        for model, shown in part.text_example.items():
            example.setdefault(model, shown)
    for model in sorted(set(text) | set(errored) | set(letters)):
        if letters[model] == 0 and text[model]:
            raise InputError(
                f"model {model!r} answered in text, never with an option letter ({text[model]} answer(s), e.g. "
                f"{example.get(model, '')!r}): nothing can be measured. The testbed tasks ask for the letter of "
                "one option; check the model's prompt template or the task's solver")
    notes = []
    if errored:
        shown = "; ".join(f"{count} x {message!r}" for message, count in reasons.most_common(3))
        notes.append(f"{sum(errored.values())} sample(s) errored or hold no response ({shown}): an error is not "
                     "the model's answer, so they are left out of every rate (" +
                     ", ".join(f"model {m!r}: {errored[m]}" for m in sorted(errored)) + ")")
    for model in sorted(text):
        notes.append(f"model {model!r}: {text[model]} answered without an option letter "
                     f"(e.g. {example.get(model, '')!r}); counted as {NON_ANSWER}")
    return notes


def _check_layout(frame: pd.DataFrame, layout: PolicyClass, name: str) -> None:
    outside = sorted(set(frame["cell"]) - set(layout.cells))
    if outside:
        axes = ":".join(layout.axes)
        raise InputError(f"{name}: cell(s) {listed(outside, 3)} of the log are not cells of the layout being "
                         f"measured ({axes}, {len(layout.cells)} cells, e.g. {layout.cells[0]!r}): the log and the "
                         "layout differ; measure the testbed's logs with the frozen 36-cell class")


def _relabel(parts: list[_Rows], labels: list[str] | None) -> None:
    """Each log's model named by the user's label (one per log), else, where two logs name the same
    model and answer the same cells (two runs of it, not two halves of one run such as lm-eval's
    file per readout), by the model and the log's file name: two runs of one model are two models."""
    if labels is not None:
        if len(labels) != len(parts):
            raise InputError(f"labels: {len(labels)} label(s) for {len(parts)} evaluation log(s); give one per log")
        if len(set(labels)) < len(labels) or not all(str(label).strip() for label in labels):
            raise InputError("labels: every log needs its own non-empty label")
    cells: dict[str, list[set]] = {}
    for part in parts:
        by_model: dict[str, set] = {}
        for r in part.rows:
            by_model.setdefault(r[0], set()).add((r[1], r[2]))
        for model, answered in by_model.items():
            cells.setdefault(model, []).append(answered)
    # a model whose logs overlap in (cluster, cell) was run more than once
    repeated = {m for m, sets in cells.items() if len(sets) > 1 and
                any(a & b for i, a in enumerate(sets) for b in sets[i + 1:])}
    seen = Counter({m: 2 for m in repeated})
    for i, part in enumerate(parts):
        models = sorted({r[0] for r in part.rows} | set(part.errored))
        if labels is not None:
            label = str(labels[i]).strip()
            names = {m: label if len(models) == 1 else f"{label} {m}" for m in models}
        else:
            names = {m: f"{m} ({Path(part.source).name})" if seen[m] > 1 else m for m in models}
        if all(k == v for k, v in names.items()):
            continue
        part.rows = [(names[r[0]], *r[1:]) for r in part.rows]
        for counter in (part.text, part.errored, part.letters):
            renamed = Counter({names.get(k, k): v for k, v in counter.items()})
            counter.clear()
            counter.update(renamed)
        part.text_example = {names.get(k, k): v for k, v in part.text_example.items()}
        part.notes.append(f"{part.source}: model(s) named " + ", ".join(f"{k!r} -> {v!r}" for k, v in names.items()
                                                                        if k != v))


def load_eval_logs(items: list, names: list[str | None], policy_class: PolicyClass | None = None,
                   labels: list[str] | None = None) -> ResponseLog:
    """One response log from evaluation logs (paths, folders or bytes with their names); ``labels``
    names each log's model (one per log, after folders are opened)."""
    parts: list[_Rows] = []
    for item, name in zip(items, names, strict=True):
        read = _read_one(item, name)
        if isinstance(read, bytes):
            display = name or str(item)
            raise InputError(f"{display}: a response-log CSV cannot be measured together with evaluation logs "
                             "(mixed layouts: one row per cell vs one sample per item); measure the CSV alone "
                             "or the evaluation logs alone")
        parts += read
    _relabel(parts, None if labels is None else list(labels))
    _check_testbeds(parts)
    notes = [n for p in parts for n in p.notes] + _answer_notes(parts)
    frame = pd.DataFrame([r for p in parts for r in p.rows], columns=["model", "cluster", "cell", "response", "oracle"])
    layout = policy_class or frozen_policy_class()
    display = ", ".join(p.source for p in parts) if len(parts) <= 3 else f"{len(parts)} evaluation logs"
    _check_layout(frame, layout, display)
    frame = _oracle_columns(frame)
    seeds = sorted({str(k[0]) for p in parts for k in p.tags.values() if k[0] is not None})
    if seeds:
        n = len({c for p in parts for c in p.tags})
        notes.append(f"items of testbed seed {', '.join(seeds)} ({n} cluster{'' if n == 1 else 's'})")
    return response_log_from_frame(frame, display, policy_class, notes)


def load_response_source(data, name: str | None = None, policy_class: PolicyClass | None = None,
                         labels: list[str] | None = None) -> ResponseLog:
    """Any response log: a CSV (bytes or path), an Inspect AI log, lm-eval samples file(s) or
    output folder (or a folder of Inspect logs), or a list of such logs (module docstring);
    ``(name, bytes)`` pairs are uploaded logs. ``labels``: one model name per log."""
    if isinstance(data, (list, tuple)):
        if not data:
            raise InputError("response log: no file given")
        if len(data) == 1 and labels is None:
            return load_response_source(data[0], name, policy_class)
        items = [d[1] if isinstance(d, tuple) else d for d in data]
        shown = [str(d[0]) if isinstance(d, tuple) else None for d in data]
        return load_eval_logs(items, shown, policy_class, labels)
    if isinstance(data, tuple):
        data, name = data[1], data[0]
    if isinstance(data, (str, os.PathLike)) and Path(data).is_dir():
        return load_eval_logs([data], [name], policy_class, labels)
    from audit_core.data.sources import CSV, detect_kind
    raw, display = read_bytes(data, name)
    if detect_kind(raw, display)[0] != CSV:
        return load_eval_logs([raw], [display], policy_class, labels)
    return load_response_log(raw, name=display, policy_class=policy_class)


__all__ = ["inspect_rows", "lmeval_model", "lmeval_rows", "load_eval_logs", "load_response_source"]
