"""Inspect AI evaluation logs (``.eval`` and ``.json``) as labelled audit data.

Read without inspect-ai (a heavy dependency for CI): a ``.eval`` log is a zip archive whose
members are JSON documents, Zstandard-compressed (zip method 93) in current versions and deflated
or stored in older ones: ``header.json`` (eval spec, results), ``samples/<id>_epoch_<n>.json``
(one EvalSample each, in the order they were written) and ``_journal/`` files. A ``.json`` log is
one document with ``eval`` and ``samples``. The tests compare this reader with inspect-ai's own
``read_eval_log`` on logs written by inspect-ai (tests/fixtures/inspect/).

A sample member is read by its fields (:data:`SAMPLE_FIELDS`, every field the workbench or a
caller may read): its event transcript and conversation (:data:`SKIPPED_SAMPLE_FIELDS`, most of its
bytes) are skipped unparsed (:func:`~audit_core.data.jsonio.loads_fields`), with the values,
refusals and messages of a full parse; ``full=True`` reads every field.

Mapping (issue 9):

* case: one per (sample, epoch); id = the sample id, or ``id#epoch`` when the log has several
  epochs (each epoch is its own case, not reduced to one value per sample; the notes say so).
* score: the value of one scorer (``score="match"``; ``"scorer.key"`` for dict-valued scores),
  with Inspect's meaning of values: C = 1, I = 0, P = 0.5, N = 0, numbers and booleans as they are.
  With several scorers and none chosen, the message lists them.
* subgroups: any ``metadata`` key, by its bare name (``subject``) or as ``metadata.subject``.
* order: per sample, the time of the last human edit of the chosen score when there is one, else
  ``completed_at``, else ``started_at`` (ISO-8601); log order when a sample has none or two share
  one. ``order="started_at"`` / ``"completed_at"`` / a metadata key choose another.
* Samples without the chosen score (errors, unscored) are not replayed and are listed in the notes.
* A log stopped early by ``audit_core.inspect.early_stopping`` (docs/inspect.md) is replayed in the
  order its manager took the samples (``completion``, written into the log), and the notes say how
  many samples ran and how many were skipped; skipped samples are not in the log and never scores.
* Samples that errored (an ``error``: a provider outage, a time or token limit, a tool failure)
  are not the model's answers: they are left out of every rate, scored or not, and the warnings
  say how many and why. Samples without the chosen score are not replayed and listed in the notes.
* The run's status (``success``, ``error``, ``cancelled``, ``started``) is stated wherever a log is
  read; a run that did not end in success is a warning: its rates are of the samples it finished.
* Only the chosen score and the metadata chosen as subgroups are used: ids, epochs, targets and
  other scorers never become features.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import struct
import zipfile
import zlib
from collections import Counter
from dataclasses import replace

import pandas as pd

from audit_core.data import jsonio
from audit_core.data.loader import (
    SUBGROUP_NAMES,
    AuditData,
    _as_tuple,
    _normalise,
    load_audit_frame,
    natural_subgroup,
)
from audit_core.errors import InputError, listed, quoted

# Inspect's string values (inspect_ai.scorer: CORRECT, INCORRECT, PARTIAL, NOANSWER).
VALUE_MEANING = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
ZIP_MAGIC = b"PK\x03\x04"
_ZSTD_METHOD = 93
_RESERVED = ("id", "sample_id", "epoch", "annotation_time", "completed_at", "started_at", "completion")
_LISTED = 8


# A .eval member is decompressed in streaming and no further than this: a small archive whose
# member expands to a gigabyte (a compression bomb) is refused after MAX_MEMBER_BYTES of output,
# not after the whole expansion is held in memory. Real sample members are kilobytes.
MAX_MEMBER_BYTES = 64 * 2**20
MAX_ARCHIVE_BYTES = 512 * 2**20  # all members together, decompressed

# A sample member's fields (inspect_ai.log.EvalSample) as the reader returns them. Read by the
# workbench: id, epoch, input, choices, target, output, scores, metadata, error, started_at,
# completed_at; the other small ones are kept so that a sample is the member but for its transcript.
SAMPLE_FIELDS = ("id", "epoch", "input", "choices", "target", "description", "sandbox", "files", "setup",
                 "output", "scores", "metadata", "store", "model_usage", "role_usage", "model_fallbacks",
                 "started_at", "completed_at", "total_time", "working_time", "uuid", "invalidation", "error",
                 "error_retries", "limit", "turn_count", "token_limit", "token_limit_type", "token_limit_usage",
                 "message_limit", "time_limit")
# Skipped unparsed (and any field not in SAMPLE_FIELDS): the event transcript (about 80 % of a
# member's bytes), the conversation (its messages are in the events too) and the long texts both
# refer to (attachments); no reader of this package uses them.
SKIPPED_SAMPLE_FIELDS = ("events", "events_data", "timelines", "messages", "attachments")


def _zip_member(archive: zipfile.ZipFile, raw: bytes, info: zipfile.ZipInfo, name: str = "log",
                decompressor=None) -> bytes:
    """One member's bytes, at most :data:`MAX_MEMBER_BYTES`; Zstandard members are decompressed
    here (zipfile has no method 93), by ``decompressor`` when given (one per archive: a new one
    per member costs as much as decompressing a small member)."""
    if info.compress_type != _ZSTD_METHOD:
        with archive.open(info) as stream:
            data = stream.read(MAX_MEMBER_BYTES + 1)
    else:
        import zstandard  # imported here: only .eval logs need it

        name_len, extra_len = struct.unpack("<HH", raw[info.header_offset + 26:info.header_offset + 30])
        start = info.header_offset + 30 + name_len + extra_len
        source = memoryview(raw)[start:start + info.compress_size]
        data = _zstd_read(decompressor or zstandard.ZstdDecompressor(), source, info.file_size)
    if len(data) > MAX_MEMBER_BYTES:
        raise InputError(f"{name}: member {quoted(info.filename)} of the Inspect log expands to more than "
                         f"{MAX_MEMBER_BYTES // 2**20} MB; refused (a compression bomb?)")
    return data


def _zstd_read(decompressor, source, declared: int) -> bytes:
    """What ``stream_reader(source).read(MAX_MEMBER_BYTES + 1)`` returns (the first frame's bytes,
    at most that many) without allocating those 64 MB for each member (the reader allocates the
    size asked, which took longer than decompressing a sample): a read of the size the archive
    declares, plus one, first. A read stops at the frame's end, so a shorter result is the whole
    frame; a full one (a declared size that is wrong) is read again as before."""
    if declared < MAX_MEMBER_BYTES:
        with decompressor.stream_reader(source) as stream:
            data = stream.read(declared + 1)
        if len(data) <= declared:
            return data
    with decompressor.stream_reader(source) as stream:
        return stream.read(MAX_MEMBER_BYTES + 1)


def _json_member(archive, raw: bytes, info, name: str, read: list[int] | None = None,
                 fields: tuple[str, ...] | None = None, decompressor=None):
    """One member as JSON (only its ``fields`` when given); ``read`` (one number) counts the bytes
    decompressed so far, so that many members each under the member limit still stop at
    :data:`MAX_ARCHIVE_BYTES`."""
    import zstandard

    try:
        data = _zip_member(archive, raw, info, name, decompressor)
        if read is not None:
            read[0] += len(data)
            if read[0] > MAX_ARCHIVE_BYTES:
                raise InputError(f"{name}: the Inspect log's members expand to more than "
                                 f"{MAX_ARCHIVE_BYTES // 2**20} MB")
        where = f"{name}: member {info.filename!r}"
        return jsonio.loads(data, where) if fields is None else jsonio.loads_fields(data, where, fields)
    except InputError:
        raise
    # Decompression (zstd, zlib, unsupported method, encrypted, truncated) and JSON errors alike.
    except (zstandard.ZstdError, zlib.error, zipfile.BadZipFile, ValueError, NotImplementedError, RuntimeError,
            EOFError, OSError, struct.error) as exc:
        raise InputError(f"{name}: member {quoted(info.filename)} of the Inspect log cannot be read ({exc})") from None


def _json_kind(value) -> str:
    """What a JSON value is, for a message that must not quote it (it may be anything, any size)."""
    return {str: "string", bool: "boolean", dict: "object", list: "list"}.get(type(value), type(value).__name__)


def _checked(header, samples: list, name: str) -> tuple[dict, list[dict]]:
    """The log's structure as the reader relies on it (a sample is an object, its scores and
    metadata objects), else one message naming the sample."""
    if not isinstance(header, dict):
        raise InputError(f"{name}: the Inspect log header is not a JSON object")
    for position, sample in enumerate(samples, start=1):
        _checked_sample(sample, position, name)
    return header, samples


def _checked_sample(sample, position: int, name: str) -> dict:
    if not isinstance(sample, dict):
        raise InputError(f"{name}: sample {position} of the Inspect log is not a JSON object")
    for part in ("scores", "metadata"):
        if not isinstance(sample.get(part) or {}, dict):
            raise InputError(f"{name}: sample {quoted(sample.get('id', position))}: {part} is not a JSON object")
    for scorer, entry in (sample.get("scores") or {}).items():
        if not isinstance(entry, dict):
            raise InputError(f"{name}: sample {quoted(sample.get('id', position))}: score {quoted(scorer)} is not a JSON object")
    return sample


def _eval_members(raw: bytes, name: str):
    """(archive, header member or None, sample members in write order) of a ``.eval`` zip archive."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
        infos = archive.infolist()
    except zipfile.BadZipFile as exc:
        raise InputError(f"{name}: a zip archive that cannot be read ({exc})") from None
    members = {i.filename: i for i in infos}
    samples = [i for i in infos if i.filename.startswith("samples/") and i.filename.endswith(".json")]
    if "header.json" not in members and "_journal/start.json" not in members and not samples:
        raise InputError(f"{name}: a zip archive, but not an Inspect AI log (no header.json or samples/ members)")
    return archive, members.get("header.json") or members.get("_journal/start.json"), samples


def iter_eval_archive(raw: bytes, name: str, full: bool = False):
    """(header, iterator over the samples in write order) of a ``.eval`` zip archive: each sample
    is decompressed and parsed when the iterator reaches it, so a reader that keeps only a few
    fields of each holds one sample at a time, not the whole log. A sample is its
    :data:`SAMPLE_FIELDS`; ``full``: every field, the transcript too."""
    archive, header_info, samples = _eval_members(raw, name)
    header = _json_member(archive, raw, header_info, name) if header_info else {}
    header, _ = _checked(header, [], name)
    fields = None if full else SAMPLE_FIELDS

    def each():
        import zstandard

        decompressor = zstandard.ZstdDecompressor()
        # One sample at a time: memory is bounded by the member limit, whatever the log's length.
        for position, info in enumerate(samples, start=1):
            yield _checked_sample(_json_member(archive, raw, info, name, fields=fields, decompressor=decompressor),
                                  position, name)
    return header, each()


# The last archive read, by content digest: a log's choices (its scorers and metadata keys) and its
# frame are read one after the other from the same bytes, and parsing is most of a log's read time.
# One entry bounds the memory held; callers only read what it returns.
_LAST_READ: dict[tuple[bytes, str, bool], tuple[dict, list[dict]]] = {}


def read_eval_archive(raw: bytes, name: str, full: bool = False) -> tuple[dict, list[dict]]:
    """(header, samples in write order) of a ``.eval`` zip archive, all held at once: refused when
    the members declare, or turn out to expand to, more than :data:`MAX_ARCHIVE_BYTES`. A sample
    is its :data:`SAMPLE_FIELDS`; ``full``: every field, the transcript too. The same bytes read
    again (under the same name) return the same objects, not a second parse."""
    key = (hashlib.blake2b(raw, digest_size=20).digest(), name, full)
    read = _LAST_READ.get(key)  # one lookup: another session's thread may replace the entry meanwhile
    if read is None:
        read = _read_eval_archive(raw, name, full)
        _LAST_READ.clear()
        _LAST_READ[key] = read
    return read


def _read_eval_archive(raw: bytes, name: str, full: bool = False) -> tuple[dict, list[dict]]:
    archive, header_info, samples = _eval_members(raw, name)
    declared = sum(i.file_size for i in samples) + (header_info.file_size if header_info else 0)
    if declared > MAX_ARCHIVE_BYTES:
        raise InputError(f"{name}: the Inspect log's members expand to {declared / 2**20:,.0f} MB, more than "
                         f"{MAX_ARCHIVE_BYTES // 2**20} MB")
    read = [0]
    header = _json_member(archive, raw, header_info, name, read) if header_info else {}
    import zstandard

    fields, decompressor = None if full else SAMPLE_FIELDS, zstandard.ZstdDecompressor()
    return _checked(header, [_json_member(archive, raw, i, name, read, fields, decompressor) for i in samples], name)


def read_json_log(document: dict, name: str) -> tuple[dict, list[dict]]:
    samples = document.get("samples")
    if not isinstance(samples, list):
        raise InputError(f"{name}: the Inspect log has no samples (was it written with log_samples off?)")
    return _checked(document, samples, name)


def inspect_value(value) -> float | None:
    """Inspect's value meaning: C/I/P/N, booleans as 1/0, numbers (and numeric text) as they are."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str):
        if value.strip().upper() in VALUE_MEANING:
            return VALUE_MEANING[value.strip().upper()]
        try:
            number = float(value)
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def _scorer_names(header: dict, samples: list[dict]) -> list[str]:
    spec = header.get("eval") if isinstance(header.get("eval"), dict) else {}
    listed = spec.get("scorers") if isinstance(spec.get("scorers"), list) else []
    names = [str(s["name"]) for s in listed if isinstance(s, dict) and s.get("name")]
    for sample in samples:
        for key in sample.get("scores") or {}:
            if key not in names:
                names.append(key)
    return names


def _choose_scorer(score: str | None, scorers: list[str], name: str) -> tuple[str, str | None]:
    """(scorer, key inside dict values or None) from ``score`` ('match' or 'match.key')."""
    if not scorers:
        raise InputError(f"{name}: no sample of the Inspect log has a score")
    if score is None:
        if len(scorers) > 1:
            raise InputError(f"{name}: the log has {len(scorers)} scorers ({listed(scorers)}); "
                             "choose one as the score")
        return scorers[0], None
    folded = {s.lower(): s for s in scorers}
    if score.lower() in folded:
        return folded[score.lower()], None
    scorer, _, key = score.partition(".")
    if key and scorer.lower() in folded:
        return folded[scorer.lower()], key
    raise InputError(f"{name}: score {quoted(score)}: no such scorer; the log's scorers are {listed(scorers)}")


def _sample_value(sample: dict, scorer: str, key: str | None, name: str) -> float | None:
    entry = (sample.get("scores") or {}).get(scorer)
    if entry is None:
        return None
    value = entry.get("value")
    if isinstance(value, dict):
        if key is None:
            raise InputError(f"{name}: scorer {quoted(scorer)} gives several values per sample "
                             f"({listed(value)}); choose one as the score, e.g. {quoted(f'{scorer}.{next(iter(value))}')}")
        value = value.get(key)
    elif key is not None:
        raise InputError(f"{name}: scorer {quoted(scorer)} gives one value per sample; choose it as {quoted(scorer)}, not {quoted(f'{scorer}.{key}')}")
    if value is None:
        return None
    number = inspect_value(value)
    if number is None:
        raise InputError(f"{name}: scorer {quoted(scorer)}, sample {quoted(sample.get('id'))} epoch {listed([sample.get('epoch')], 20)}: "
                         f"its value (a JSON {_json_kind(value)}) is not C/I/P/N, a boolean or a number")
    return number


def _last_edit(sample: dict, scorer: str) -> str | None:
    """ISO time of the last edit of the score with a provenance (a human edit), else None."""
    history = ((sample.get("scores") or {}).get(scorer) or {}).get("history") or []
    stamps = []
    for edit in history if isinstance(history, list) else []:
        provenance = edit.get("provenance") if isinstance(edit, dict) else None
        stamp = provenance.get("timestamp") if isinstance(provenance, dict) else None
        if isinstance(stamp, str):
            try:
                moment = pd.Timestamp(stamp)
                stamps.append((moment if moment.tzinfo else moment.tz_localize("UTC"), stamp))
            except ValueError:
                continue  # an unreadable edit time orders nothing; completed_at is used instead
    return max(stamps)[1] if stamps else None


def _metadata_columns(samples: list[dict], taken: tuple[str, ...] = ()) -> dict[str, str]:
    """column name -> metadata key; keys clashing with the reader's own columns (and ``taken``,
    e.g. the score column: a metadata key named like the scorer must not overwrite the score) get
    'metadata.'."""
    keys: list[str] = []
    for sample in samples:
        for key in sample.get("metadata") or {}:
            if key not in keys:
                keys.append(key)
    return {(f"metadata.{k}" if k in _RESERVED or k in taken else str(k)): k for k in keys}


def _metadata_text(value) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def sample_errored(sample: dict) -> bool:
    """Whether a sample ended in an error (Inspect writes its ``error``: message and traceback)."""
    return bool(sample.get("error"))


def error_reason(error) -> str:
    text = str(error.get("message", error) if isinstance(error, dict) else error).strip().splitlines()
    return text[0][:80] if text else "no message"


def run_status(header: dict) -> str:
    """The run's status as the log records it (``success``, ``error``, ``cancelled``, ``started``)."""
    status = header.get("status")
    return status if isinstance(status, str) and status else "unknown"


def run_status_warning(header: dict, name: str) -> str | None:
    """A warning for a run that did not end in success, None for one that did."""
    status = run_status(header)
    if status == "success":
        return None
    why = {"error": f"ended in an error ({error_reason(header['error'])})" if header.get("error") else "ended in an error",
           "cancelled": "was cancelled", "started": "had not finished when this log was written"}
    return (f"{name}: the run {why.get(status, 'has no final status')} (status {status!r}): only the samples it "
            "finished are read, so its rates are of those samples, not of the whole task")


def errored_warning(errored: list[dict], total: int) -> str:
    """How many samples errored and why (their first messages), left out of every rate."""
    reasons = Counter(error_reason(s.get("error")) for s in errored)
    shown = "; ".join(f"{count} x {message!r}" for message, count in reasons.most_common(3))
    more = f"; {len(reasons) - 3} other message(s)" if len(reasons) > 3 else ""
    return (f"{len(errored)} of {total} sample(s) errored ({shown}{more}): an error is not the model's answer, "
            "so they are left out of every rate")


def _unscored_note(missing: list[dict], scorer: str, total: int) -> str:
    shown = []
    for sample in missing[:_LISTED]:
        error = sample.get("error")
        reason = f"error: {str(error.get('message', error) if isinstance(error, dict) else error)[:60]}" if error else "no score"
        shown.append(f"{sample.get('id')}#{sample.get('epoch')} ({reason})")
    more = f" and {len(missing) - _LISTED} more" if len(missing) > _LISTED else ""
    return (f"{len(missing)} of {total} sample(s) have no {scorer!r} score and are not replayed: "
            f"{', '.join(shown)}{more}")


def inspect_frame(header: dict, samples: list[dict], score: str | None, name: str
                  ) -> tuple[pd.DataFrame, str, list[str], list[str]]:
    """(table of the scored samples that did not error, in log order, score column, notes, warnings)."""
    if not samples:
        raise InputError(f"{name}: the Inspect log has no samples")
    scorer, key = _choose_scorer(score, _scorer_names(header, samples), name)
    column = scorer if key is None else f"{scorer}.{key}"
    epochs = {s.get("epoch", 1) for s in samples}
    several = len(epochs) > 1
    meta = _metadata_columns(samples, taken=(column, "edited"))
    stopping = early_stopping_record(header)
    completion = {} if stopping is None else {(str(i), int(e)): k for k, (i, e, *_) in enumerate(stopping["order"])}
    rows, missing, errored = [], [], []
    for sample in samples:
        if sample_errored(sample):
            errored.append(sample)
            continue
        value = _sample_value(sample, scorer, key, name)
        if value is None:
            missing.append(sample)
            continue
        metadata = sample.get("metadata") or {}
        edited = _last_edit(sample, scorer)
        row = {"id": f"{sample.get('id')}#{sample.get('epoch', 1)}" if several else str(sample.get("id")),
               "sample_id": str(sample.get("id")), "epoch": sample.get("epoch", 1), column: value,
               "annotation_time": edited or sample.get("completed_at") or sample.get("started_at"),
               "completed_at": sample.get("completed_at"), "started_at": sample.get("started_at"),
               "edited": edited is not None,
               "completion": completion.get((str(sample.get("id")), int(sample.get("epoch", 1))))}
        row.update({c: _metadata_text(metadata.get(k)) for c, k in meta.items()})
        rows.append(row)
    task = header["eval"].get("task", "?") if isinstance(header.get("eval"), dict) else "?"
    notes = [(f"Inspect AI log: task {task!r}, status {run_status(header)}, "
              f"score = scorer {column!r} (C = 1, I = 0, P = 0.5, N = 0)")]
    if stopping is not None:
        notes.append(_stopped_note(header, stopping))
    warnings = [w for w in (run_status_warning(header, name),) if w]
    if errored:
        warnings.append(errored_warning(errored, len(samples)))
    if missing:
        notes.append(_unscored_note(missing, column, len(samples)))
    if not rows:
        why = f"; {warnings[-1]}" if errored else ""
        raise InputError(f"{name}: no sample has a {quoted(column)} score ({len(samples)} sample(s) in the log{why})")
    if several:
        notes.append(f"epochs: {len(epochs)}; each (sample, epoch) is one case with id 'sample#epoch', "
                     "not reduced to one value per sample")
    return pd.DataFrame(rows), column, notes, warnings


def early_stopping_record(header: dict) -> dict | None:
    """The record ``audit_core.inspect.early_stopping`` wrote into the log
    (``results.early_stopping.metadata["audit_core"]``), or None for a log without one."""
    results = header.get("results") if isinstance(header.get("results"), dict) else {}
    summary = results.get("early_stopping") if isinstance(results.get("early_stopping"), dict) else {}
    metadata = summary.get("metadata") if isinstance(summary.get("metadata"), dict) else {}
    record = metadata.get("audit_core")
    if not isinstance(record, dict) or not isinstance(record.get("order"), list) or not all(
            isinstance(entry, list) and len(entry) >= 2 for entry in record["order"]):
        return None
    return record


def _stopped_note(header: dict, record: dict) -> str:
    """'stopped early: X of N samples run, Y skipped', why, and the tokens the skipped ones did not cost."""
    total, run, skipped = record.get("samples"), record.get("run"), record.get("skipped")
    stop = record.get("stop") if isinstance(record.get("stop"), dict) else None
    if not skipped:
        return f"early stopping ({record.get('parameters', {}).get('score', '?')}): ran to the end, {run} of {total} samples run"
    note = f"{STOPPED_EARLY} {run} of {total} samples run, {skipped} skipped"
    if stop:
        note += f" ({stop.get('reason')} at case {stop.get('at')})"
    parameters = record.get("parameters") if isinstance(record.get("parameters"), dict) else {}
    audit = parameters.get("audit_params") if isinstance(parameters.get("audit_params"), dict) else {}
    if record.get("decision"):
        note += (f"; the manager's dual test ({parameters.get('model_process')} vs {parameters.get('auditor_process')}, "
                 f"q = {audit.get('q')}, alpha = {audit.get('alpha')}): {record['decision']}")
    usage = (header.get("stats") or {}).get("model_usage") if isinstance(header.get("stats"), dict) else None
    tokens = sum(u.get("total_tokens") or 0 for u in usage.values() if isinstance(u, dict)) if isinstance(usage, dict) else 0
    if tokens and run:
        note += f"; at this run's {tokens / run:,.0f} tokens a sample, about {tokens / run * skipped:,.0f} tokens not spent"
    return note


def _message_text(content) -> str:
    """The text of a chat message's content (a string, or a list of content parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) if isinstance(part, dict) else str(part) for part in content)
    return "" if content is None else str(content)


def _sample_input(sample: dict) -> str:
    """The sample's input as text: the string, or its last user message."""
    value = sample.get("input")
    if isinstance(value, list):
        users = [m for m in value if isinstance(m, dict) and m.get("role") == "user"] or \
            [m for m in value if isinstance(m, dict)]
        return _message_text(users[-1].get("content")) if users else ""
    return _message_text(value)


def _sample_output(sample: dict) -> str:
    """The model's answer: ``output.completion``, else the first choice's message."""
    output = sample.get("output") if isinstance(sample.get("output"), dict) else {}
    if output.get("completion"):
        return str(output["completion"])
    choices = output.get("choices") if isinstance(output.get("choices"), list) else []
    message = choices[0].get("message") if choices and isinstance(choices[0], dict) else None
    return _message_text(message.get("content")) if isinstance(message, dict) else ""


POOL_SCORE_PREFIX = "scorer."
# The note of a log stopped early (replay's verdict repeats it): "stopped early: X of N samples run, Y skipped ..."
STOPPED_EARLY = "stopped early:"


def inspect_pool_frame(header: dict, samples: list[dict], name: str) -> tuple[pd.DataFrame, list[str]]:
    """(pool table, notes) of an Inspect log whose model outputs are to be labelled by people.

    One row per (sample, epoch) that did not error (errored samples, with or without a partial
    output, are not the model's answers: left out and counted in the notes, with the run's status):
    ``id`` (as in :func:`inspect_frame`), ``input`` (text, or the last user message), ``target``,
    ``output`` (the completion), the metadata keys, and ``scorer.<name>`` with each automatic
    scorer's value (C/I/P/N as numbers; empty when unscored). The scorer columns are shown to
    no strategy: they are there to compare the people's labels with the scorer afterwards.
    """
    if not samples:
        raise InputError(f"{name}: the Inspect log has no samples")
    several = len({s.get("epoch", 1) for s in samples}) > 1
    meta = _metadata_columns(samples)
    scorers = _scorer_names(header, samples)
    rows, errored = [], []
    for sample in samples:
        if sample_errored(sample):
            errored.append(sample)
            continue
        row = {"id": f"{sample.get('id')}#{sample.get('epoch', 1)}" if several else str(sample.get("id")),
               "input": _sample_input(sample), "target": _metadata_text(sample.get("target")),
               "output": _sample_output(sample)}
        row.update({c: _metadata_text((sample.get("metadata") or {}).get(k)) for c, k in meta.items()})
        for scorer in scorers:
            entry = (sample.get("scores") or {}).get(scorer) or {}
            value = entry.get("value")
            row[f"{POOL_SCORE_PREFIX}{scorer}"] = inspect_value(value) if not isinstance(value, dict) else None
        rows.append(row)
    if not rows:
        why = f" ({errored_warning(errored, len(samples))})" if errored else ""
        raise InputError(f"{name}: no sample of the Inspect log has a model output to label{why}")
    task = header["eval"].get("task", "?") if isinstance(header.get("eval"), dict) else "?"
    notes = [f"Inspect AI log as a pool: task {task!r}, status {run_status(header)}, {len(rows)} model output(s) "
             "to label", *(w for w in (run_status_warning(header, name),) if w)]
    if errored:
        notes.append(errored_warning(errored, len(samples)))
    if several:
        notes.append("epochs: each (sample, epoch) is one case with id 'sample#epoch'")
    return pd.DataFrame(rows), notes


def _inspect_order(frame: pd.DataFrame, order, notes: list[str]):
    """The order column to pass to the loader (False = log order), per the module's rule."""
    if order is not None:
        return order
    if frame["completion"].notna().all() and not frame["edited"].any():
        notes.append("order: the order the early-stopping manager took the samples in (written into the log)")
        return "completion"
    stamps = frame["annotation_time"]
    if stamps.isna().any() or stamps.duplicated().any():
        notes.append("some samples lack a timestamp or share one: scores replayed in log order")
        return False
    edited = int(frame["edited"].sum())
    notes.append("order: time of the last human edit of the score" + (
        f" ({edited} of {len(frame)} samples; the others by completed_at)" if edited < len(frame) else "")
        if edited else "order: completed_at of each sample (started_at where missing)")
    return "annotation_time"


def _inspect_subgroups(frame: pd.DataFrame, subgroups, metadata_columns: list[str], notes: list[str]) -> tuple:
    chosen = _as_tuple(subgroups)
    if chosen is None:
        chosen = natural_subgroup({c: frame[c].tolist() for c in metadata_columns})
        others = [c for c in metadata_columns if c not in chosen and _normalise(c) in SUBGROUP_NAMES]
        notes.append((f"subgroup auto-detected from metadata: {chosen[0]!r} (one key"
                      + (f"; choose {', '.join(map(repr, others))} as well to cross them)" if others else ")"))
                     if chosen else
                     f"no subgroup metadata detected; the metadata keys are {', '.join(metadata_columns) or 'none'}")
        return chosen
    columns = set(frame.columns)
    return tuple(c[len("metadata."):] if c.startswith("metadata.") and c not in columns
                 and c[len("metadata."):] in metadata_columns else c for c in chosen)


def inspect_choices(header: dict, samples: list[dict]) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(scores, subgroup keys, default subgroups) a reader of this log can be given: every scorer
    (``scorer.key`` for each key of a scorer whose values are dicts), every metadata key, and the
    one key chosen when none is given (:func:`~audit_core.data.loader.natural_subgroup`)."""
    scores: list[str] = []
    for scorer in _scorer_names(header, samples):
        value = next((((s.get("scores") or {}).get(scorer) or {}).get("value") for s in samples
                      if (s.get("scores") or {}).get(scorer) is not None), None)
        scores += [f"{scorer}.{k}" for k in value] if isinstance(value, dict) else [scorer]
    meta = _metadata_columns(samples)
    values = {c: [_metadata_text((s.get("metadata") or {}).get(k)) for s in samples if not sample_errored(s)]
              for c, k in meta.items()}
    return tuple(scores), tuple(meta), natural_subgroup(values)


def load_inspect_log(header: dict, samples: list[dict], name: str, score: str | None = None, subgroups=None,
                     order=None, features=None) -> AuditData:
    """AuditData from a read Inspect log (see the module docstring for the mapping)."""
    frame, column, notes, warnings = inspect_frame(header, samples, score, name)
    metadata_columns = [c for c in frame.columns if c not in (*_RESERVED, column, "edited")]
    chosen_order = _inspect_order(frame, order, notes)
    chosen_subgroups = _inspect_subgroups(frame, subgroups, metadata_columns, notes)
    data = load_audit_frame(frame.drop(columns=["edited"]), name=name, score=column, subgroups=chosen_subgroups,
                            order=chosen_order, id="id", text=False, features=() if features is None else features)
    return replace(data, notes=tuple(notes) + data.notes, warnings=tuple(warnings) + data.warnings)
