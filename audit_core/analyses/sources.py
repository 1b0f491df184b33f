"""Inputs as :class:`Source` objects: the bundled example of each kind, or the user's own file.

One call per kind loads a source from bytes, a path or a bundled key, checks it (InputError for a
bad file, with one clear message) and gives it a content key, so the pages can cache by content
and keep the user's last good source, and the CLI reads files exactly as the pages do.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from audit_core.data.bundled import BUNDLED, BUNDLED_RUN_SETS
from audit_core.data.csvio import COMPACTED, compact_frame, expand_frame, read_bytes, read_csv_frame
from audit_core.data.files import DATA_DIR_ENV, MAX_FOLLOW_BYTES, FileAccess, file_access, read_file
from audit_core.data.labels import score_labels
from audit_core.data.loader import ColumnGuess, detect_columns, load_audit_frame
from audit_core.errors import InputError
from audit_core.presets import BUNDLED_POOLS, DEFAULT_STYLE, EXAMPLE_RESPONSE_LOG

CSV = "csv"
FROZEN_CLASS = "frozen"
FROZEN_DESCRIPTION = "frozen seven-policy class of paper 000 (data/frozen_policies.json)"
EXAMPLE_LOG_DESCRIPTION = ("bundled SYNTHETIC response log: two made-up models x 24 clusters x 36 cells "
                           "(data/example_response_log.csv)")

SourceData = bytes | str | Path


@dataclass(frozen=True)
class Source:
    """A loaded input and where it came from.

    Attributes
    ----------
    kind : "policy_class", "response_log", "run" (a labelled run) or "pool".
    key : content key, ``bundled:<key>`` for bundled data, else 16 hex digits of the SHA-256 of the
        bytes: the same file always gets the same key.
    name : display name (a file name; bundled data say they are synthetic).
    description : one line saying what the source is, for captions and report sections.
    value : the engine object (PolicyClass, ResponseLog, :class:`RunTable`, Pool).
    bundled : True for the bundled example data.
    edited_from : for a policy class edited in the workbench, the name of the class it was made
        from (the frozen class, a file, "a link"); None for data read as given.
    """

    kind: str
    key: str
    name: str
    description: str
    value: Any = field(repr=False, compare=False)
    bundled: bool = False
    edited_from: str | None = None

    def __repr__(self) -> str:
        return f"Source({self.kind}, {self.name!r}, key={self.key})"

    def content_hash(self) -> str:
        """SHA-256 of what the source is: its kind, content key (the bytes and name it was read
        from, and any layout class), name, description and origin; the same file read twice gets
        the same hash, two different inputs never do (a cache keys a source by it)."""
        text = json.dumps([self.kind, self.key, self.name, self.description, self.bundled, self.edited_from])
        return hashlib.sha256(text.encode()).hexdigest()


def content_key(data: bytes, name: str = "") -> str:
    """The content key of a file: 16 hex digits of the SHA-256 of its bytes and its name (results
    show the name, so two uploads of the same bytes under two names are two sources)."""
    return hashlib.sha256(data + b"\0" + name.encode("utf-8")).hexdigest()[:16]


def _read(data: SourceData, name: str | None) -> tuple[bytes, str]:
    raw, display = read_bytes(data, name)
    return raw, display


# ------------------------------------------------------------------------------ policy classes

def policy_source(data: SourceData | None = None, name: str | None = None, edited_from: str | None = None) -> Source:
    """The frozen seven-policy class (``data=None``) or a policy-class file (JSON or long CSV).
    ``edited_from``: the file is a class edited in the workbench from the class of that name."""
    from audit_core.identify import frozen_policy_class, load_policy_class
    if data is None:
        return Source("policy_class", f"bundled:{FROZEN_CLASS}", "frozen seven-policy class", FROZEN_DESCRIPTION,
                      frozen_policy_class(), bundled=True)
    raw, display = _read(data, name)
    pc = load_policy_class(raw, name=display)
    if edited_from is not None:
        return edited_class_source(pc, raw, edited_from)
    return Source("policy_class", content_key(raw, display), display, f"policy-class file {display}", pc)


EDITED_CLASS_FILE = "edited class.json"


def edited_class_source(pc, data: bytes, edited_from: str) -> Source:
    """A class edited in the workbench, described by what it was made from (never as an upload)."""
    return Source("policy_class", content_key(data, EDITED_CLASS_FILE), EDITED_CLASS_FILE,
                  f"edited class ({len(pc.names)} policies, made here from the {edited_from})", pc,
                  edited_from=edited_from)


# ------------------------------------------------------------------------------- response logs

def response_log_source(data: SourceData | None = None, name: str | None = None,
                        policy: Source | None = None, labels: Sequence[str] | None = None) -> Source:
    """The bundled synthetic response log (``data=None`` or ``"example"``), a response-log CSV, or
    evaluation logs of the testbed's tasks: an Inspect AI ``.eval``/``.json`` log, lm-eval samples
    file(s) or output folder, or a list of logs (:mod:`audit_core.measure.eval_logs`, kind read
    from the content); ``policy`` (a policy-class source) supplies the cell layout, default the
    frozen 36 cells."""
    from audit_core.measure import load_response_log
    from audit_core.measure.eval_logs import load_response_source
    from audit_core.measure.example import EXAMPLE_PATH
    layout = None if policy is None or policy.bundled else policy.value
    if data is None or (isinstance(data, str) and data == EXAMPLE_RESPONSE_LOG):
        display = "example_response_log.csv (synthetic)"
        log = load_response_log(EXAMPLE_PATH.read_bytes(), name=display, policy_class=layout)
        return Source("response_log", f"bundled:{EXAMPLE_RESPONSE_LOG}", display, EXAMPLE_LOG_DESCRIPTION, log,
                      bundled=True)
    if isinstance(data, (list, tuple)) or (isinstance(data, (str, Path)) and Path(data).is_dir()):
        # Evaluation logs by path (several files, a folder) keyed by their paths; uploads, as
        # (name, bytes) pairs, by their content.
        items = list(data) if isinstance(data, (list, tuple)) else [data]
        log = load_response_source(items if isinstance(data, (list, tuple)) else data, name, layout, labels)
        key = "+".join(content_key(bytes(d[1]), str(d[0])) for d in items) if all(isinstance(d, tuple) for d in items) \
            else "path:" + "|".join(map(str, items))
        key += f"+labels:{'|'.join(labels)}" if labels else ""
        key = key if policy is None or policy.bundled else f"{key}+{policy.key}"
        return Source("response_log", key, log.source, f"response log {log.source}", log)
    raw, display = _read(data, name)
    log = load_response_source(raw, name=display, policy_class=layout, labels=labels)
    key = content_key(raw, display) if policy is None or policy.bundled else f"{content_key(raw, display)}+{policy.key}"
    return Source("response_log", key, display, f"response log {display}", log)


# -------------------------------------------------------------------------------- labelled runs

@dataclass(frozen=True)
class ColumnRoles:
    """Which column plays which role in a labelled run (None / () where none)."""

    score: str | None
    subgroups: tuple[str, ...]
    order: str | None

    def to_dict(self) -> dict:
        return {"score column": self.score, "subgroup columns": list(self.subgroups), "order column": self.order}


@dataclass(frozen=True)
class RunTable:
    """A labelled run as read (text columns), with the roles to offer by default.

    ``defaults`` are the bundled dataset's roles, or the roles :func:`detect_columns` found;
    ``detected`` is the detection itself; ``style`` the parameter style to start from.
    The table is kept compact (:func:`~audit_core.data.csvio.compact_frame`: a server holds it for
    every session using the file, ~11 MB instead of 91 MB for a 10 MB CSV); ``frame`` gives it
    back as read, one fresh copy per call, for the call that types it.
    """

    stored: pd.DataFrame = field(repr=False)
    defaults: ColumnRoles
    detected: ColumnGuess
    style: str
    kind: str = CSV  # or an evaluation log: "inspect-eval", "inspect-json", "lmeval-samples", "lmeval-dir"
    log: Any = field(default=None, repr=False)  # a log's bytes or path(s), read again with the chosen roles
    pending: str = ""  # a log that needs a choice before it can be read (which scorer, which filter)
    choices: Any = field(default=None, repr=False)  # a log's LogChoices: its scorers/metrics and subgroup keys
    labels: tuple[str, ...] | None = None  # several runs: the user's name for each (the run column)

    def __post_init__(self) -> None:
        if COMPACTED not in self.stored.attrs:
            object.__setattr__(self, "stored", compact_frame(self.stored))

    @property
    def frame(self) -> pd.DataFrame:
        """The table as read (text columns of Python strings)."""
        return expand_frame(self.stored)

    def column(self, name: str) -> pd.Series:
        """One column as read (without expanding the others)."""
        column = self.stored[name]
        return column.astype(object) if name in self.stored.attrs[COMPACTED] else column

    @property
    def rows(self) -> int:
        return len(self.stored)

    @property
    def is_log(self) -> bool:
        return self.kind != CSV

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(str(c) for c in self.stored.columns)

    def __repr__(self) -> str:
        return f"RunTable({len(self.stored)} rows, columns={len(self.stored.columns)}, defaults={self.defaults})"


def _log_source(data, name: str | None, check: bool, labels: Sequence[str] | None = None) -> Source | None:
    """An evaluation log as a run source, or None when ``data`` is a CSV."""
    from audit_core.data.sources import RUNS, detect_kind, load_audit_source, log_choices, runs_kind
    if isinstance(data, (list, tuple)) or (isinstance(data, (str, Path)) and Path(data).is_dir()):
        # several runs (a run column) or lm-eval output (one run, a file per task)
        kind, raw, display = runs_kind(data), data, name or (
            ", ".join(str(d[0]) if isinstance(d, tuple) else str(d) for d in data) if isinstance(data, (list, tuple))
            else str(data))
    else:
        raw, display = _read(data, name)
        kind, _ = detect_kind(raw, display)
        if kind == CSV:
            return None
    frame, roles, pending = pd.DataFrame(), ColumnRoles(None, (), None), ""
    if check:  # read once with the log's own defaults: a bad log is refused now
        try:
            data_read = load_audit_source(raw, display, labels=labels)
        except InputError as exc:
            if CHOICE_NEEDED not in str(exc):
                raise
            pending = str(exc)  # a readable log that needs a choice (e.g. which of its scorers)
        else:
            frame, roles = data_read.frame, ColumnRoles(data_read.score, tuple(data_read.subgroups), data_read.order)
    if isinstance(raw, bytes):
        key = content_key(raw, str(display))
    elif isinstance(raw, (list, tuple)) and all(isinstance(d, tuple) for d in raw):  # uploads: their content
        key = "+".join(content_key(bytes(d[1]), str(d[0])) for d in raw)
    else:
        key = f"path:{display}"
    key += f"+labels:{'|'.join(labels)}" if labels else ""
    table = RunTable(frame, roles, detect_columns(frame) if len(frame.columns) else _NO_GUESS, DEFAULT_STYLE,
                     kind=kind, log=raw, pending=pending, choices=log_choices(raw, display),
                     labels=None if labels is None else tuple(labels))
    if isinstance(data, (list, tuple)):  # several runs: each file's own name
        shown = ", ".join(Path(str(d[0] if isinstance(d, tuple) else d)).name for d in data)
    else:
        shown = Path(display).name if isinstance(display, str) else str(display)
    what = f"{len(data)} runs" if kind == RUNS and isinstance(data, (list, tuple)) else f"{kind.replace('-', ' ')} log"
    return Source("run", key, shown, f"{what} {display}", table)


_NO_GUESS = ColumnGuess(None, (), None, None, None, ())
# The readers' words when a log is fine but a role must be chosen (several scorers, metrics, filters).
CHOICE_NEEDED = "choose one"


def follow_access(server_address: str | None, request_headers: Mapping[str, str] | None = None) -> FileAccess:
    """Whether a server listening on ``server_address`` offers *Follow a file on this machine* to
    the request with ``request_headers`` (its Host and any proxy's forwarding headers), and under
    which folder: the environment variable ``AUDIT_DATA_DIR``
    (:func:`audit_core.data.files.file_access`; docs/deploy.md)."""
    return file_access(os.environ.get(DATA_DIR_ENV), server_address, request_headers)


def file_bytes(path: str | Path, access: FileAccess, max_bytes: int = MAX_FOLLOW_BYTES) -> bytes:
    """The bytes of a file on this machine that a visitor asked to follow (a run still being
    annotated, read again on request): only a regular file under the server's data folder, at
    most ``max_bytes`` (:func:`audit_core.data.files.read_file`)."""
    if not access.allowed:
        raise InputError(f"file path: {access.reason}")
    return read_file(path, access.folder, max_bytes)


def run_source(data: SourceData, name: str | None = None, check: bool = True,
               labels: Sequence[str] | None = None) -> Source:
    """A labelled run: a bundled key (``recorded_run``, ``sdoh``, ``gpqa:large``, ...), a labelled
    CSV, an Inspect AI log (``.eval`` or ``.json``), lm-eval samples file(s) or an lm-eval output
    folder (the kind is read from the content).

    The table is read once; roles are chosen later (:func:`audit_core.analyses.replay_run`).
    ``check``: when a score column is detected, type the file with the detected roles now, so a
    bad file is refused before it replaces a good one. Several files (a list, or a folder of
    Inspect logs; ``(name, bytes)`` pairs for uploads) are several runs with a ``run`` column,
    named by ``labels`` (one per run) or by their logs (:func:`audit_core.data.sources.load_runs`).
    """
    if isinstance(data, str) and (data in BUNDLED or data in BUNDLED_RUN_SETS):
        dataset = BUNDLED.get(data) or BUNDLED_RUN_SETS[data]
        frame = read_csv_frame(str(dataset.path), name=dataset.path.name)
        roles = ColumnRoles(dataset.score, tuple(dataset.subgroups), dataset.order)
        table = RunTable(frame, roles, detect_columns(frame), dataset.style)
        return Source("run", f"bundled:{data}", dataset.path.name, f"bundled {data}: {dataset.title}", table,
                      bundled=True)
    log = _log_source(data, name, check, labels)
    if log is not None:
        return log
    if labels is not None:
        raise InputError("labels: several runs need several files; one file is one run")
    raw, display = _read(data, name)
    frame = read_csv_frame(raw, name=display, decimal_comma=True)   # a run's scores may be written 0,5
    guess = detect_columns(frame)
    if check and guess.score is not None and not _labels_to_map(frame, guess.score):
        # A file whose detected columns do not load is refused now, while the last good file is
        # still there; without a detectable score column the user picks the columns, and a score
        # column of text labels (pass/fail, correct/incorrect, ratings) is mapped to scores first.
        load_audit_frame(frame, name=display, drop_missing=True)  # rows without a score: a choice, later
    table = RunTable(frame, ColumnRoles(guess.score, tuple(guess.subgroups), guess.order), guess, DEFAULT_STYLE)
    return Source("run", content_key(raw, display), display, f"file {display}", table)


def _labels_to_map(frame: pd.DataFrame, column: str) -> bool:
    """Is ``column`` a column of text labels that a value mapping turns into scores? Yes when the
    built-in vocabulary reads every label (pass/fail, ratings), or when no label is a number
    (the user's own words); a number column with a stray word ("1", "maybe") is a bad file."""
    labels = score_labels(frame[column], column)
    if not labels.needs_mapping or labels.too_many:
        return False
    return all(label in labels.suggested for label in labels.labels) or not any(
        _is_number(label) for label in labels.labels)


def _is_number(text: str) -> bool:
    try:
        float(text.replace(",", "."))
    except ValueError:
        return False
    return True


# --------------------------------------------------------------------------------------- pools

def pool_source(spec: SourceData, score: str | None = None, subgroups: Sequence[str] | None = None,
                features: Sequence[str] | None = None, suspects: Sequence[str] | None = None) -> Source:
    """A simulation pool: a bundled key (``gpqa:large`` ... ``sdoh``) or a labelled CSV."""
    from audit_core.auditing import load_pool
    if isinstance(spec, str) and spec in BUNDLED_POOLS:
        pool = load_pool(spec, suspects=suspects)
        dataset = BUNDLED[spec]
        return Source("pool", f"bundled:{spec}", dataset.title, f"bundled pool {spec}: {dataset.description}",
                      pool, bundled=True)
    if isinstance(spec, bytes):
        raise InputError("pool: give a bundled key or a file path")
    pool = load_pool(spec, score=score, subgroups=subgroups, features=features, suspects=suspects)
    raw, display = _read(spec, None)
    return Source("pool", content_key(raw, display), display, f"pool file {display}", pool)
