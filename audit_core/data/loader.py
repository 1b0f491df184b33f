"""Labelled audit data (docs/formats.md): one row per annotated case, typed and checked.

Built on :func:`audit_core.data.csvio.read_csv_frame` (encoding, delimiter, shape checks live
there). This module gives the columns their roles and types:

* ``score`` (required): a number in [0, 1] (0/1 correctness, or a fractional agreement score);
  ``true/false`` and ``yes/no`` are read as 1/0. Empty, non-numeric and out-of-range values are
  errors naming the column and data row (the first data row below the header is row 1).
* ``order``: annotation order of a recorded run; unique numbers or ISO-8601 timestamps (ordered by
  their instant, naive ones read as UTC); rows are sorted by it.
* ``subgroups``, ``id``, ``text``: kept as strings; ``features``: numeric columns for learners.

Any role not given is auto-detected (by column name; features also by name, ``f01`` / ``x1`` /
``emb_3`` style, else every remaining all-numeric column), and every detection, reordering,
blank value, duplicate id or unused column is written to ``notes``: nothing happens silently.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from audit_core.data.csvio import DECIMAL_COMMA_COLUMNS, CsvSource, read_csv_frame, table_limit
from audit_core.errors import InputError

# Normalised names (lower case, letters and digits only) that suggest a role, best first.
SCORE_NAMES = ("score", "correct", "iscorrect", "correctness", "label", "agreement", "agree", "match",
               "accuracy", "outcome", "result", "passed", "pass", "success", "y")
ORDER_NAMES = ("order", "annotationorder", "step", "sequence", "seq", "position", "timestep", "t", "timestamp",
               "annotatedat", "completedat", "time")
ID_NAMES = ("id", "caseid", "questionid", "itemid", "exampleid", "uid", "noteid", "key")
TEXT_NAMES = ("text", "question", "prompt", "query", "input", "content", "passage", "note",
              "definition", "description")
SUBGROUP_NAMES = ("subgroup", "group", "category", "domain", "level", "stratum", "strata", "subject",
                  "topic", "section", "difficulty", "task", "cluster")
# An evaluation log's default subgroup: the first of its keys named like one, in this order, that
# splits the cases into 2 to MAX_DEFAULT_SUBGROUPS groups; one key, never all of them crossed (a
# crossing of two keys gave 16 cells of n = 14-20 and a verdict listing all 16). The user crosses more.
NATURAL_SUBGROUP_ORDER = ("subgroup", "group", "category", "domain", "subject", "topic", "task", "section",
                          "level", "difficulty", "stratum", "strata", "cluster")
MAX_DEFAULT_SUBGROUPS = 30


def natural_subgroup(values_of: dict[str, list]) -> tuple[str, ...]:
    """The one default subgroup key of a log (``key -> its values, one per case``), or none."""
    for wanted in NATURAL_SUBGROUP_ORDER:
        for key, values in values_of.items():
            if _normalise(key) == wanted and 2 <= len(set(values)) <= MAX_DEFAULT_SUBGROUPS:
                return (key,)
    return ()


FEATURE_PATTERN = re.compile(r"^(f|x|feat|feature|emb|embedding|e|z)[_\-]?\d+$", re.IGNORECASE)

_ID_SUFFIX = re.compile(r"(?:^|[_\-\s.])(?:id|Id|ID)$|[a-z](?:Id|ID)$")
_TRUE_WORDS = {"true": 1.0, "yes": 1.0, "false": 0.0, "no": 0.0}
_MAX_ROWS_LISTED = 5
# Everything after loading is computed per subgroup (streams, tables, charts): 350,000 distinct
# subgroups in a 6.3 MB run took 67 s to replay, 20,000 about 5 s (docs/limits.md). A pool has at
# most 20,000 cases, so no more subgroups either.
MAX_SUBGROUPS = 20_000
MAX_SUBGROUPS_ENV = "AUDIT_MAX_SUBGROUPS"


def _normalise(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", str(name).lower())


@dataclass(frozen=True)
class ColumnGuess:
    """Column roles found by :func:`detect_columns` (None / empty where nothing fits)."""

    score: str | None
    subgroups: tuple[str, ...]
    order: str | None
    id: str | None
    text: str | None
    features: tuple[str, ...]

    def to_dict(self) -> dict:
        return {"score": self.score, "subgroups": list(self.subgroups), "order": self.order, "id": self.id,
                "text": self.text, "features": list(self.features)}


@dataclass(frozen=True, eq=False)
class AuditData:
    """A loaded labelled-audit table; ``frame`` is typed and in annotation order."""

    frame: pd.DataFrame
    score: str
    subgroups: tuple[str, ...]
    order: str | None
    id: str | None
    text: str | None
    features: tuple[str, ...]
    notes: tuple[str, ...]
    name: str = "data"
    # What changes the meaning of every rate, shown before them (not folded in the notes): rows
    # left out and why (errored samples, missing scores), a run that did not finish.
    warnings: tuple[str, ...] = ()

    @property
    def scores(self) -> np.ndarray:
        return self.frame[self.score].to_numpy(dtype=float)

    @property
    def n(self) -> int:
        return len(self.frame)

    @property
    def feature_matrix(self) -> np.ndarray:
        """n x len(features) float matrix (n x 0 without features)."""
        if not self.features:
            return np.empty((self.n, 0))
        return self.frame[list(self.features)].to_numpy(dtype=float)

    @property
    def subgroup_frame(self) -> pd.DataFrame | None:
        return self.frame[list(self.subgroups)] if self.subgroups else None

    def to_dict(self) -> dict:
        """Roles, size and notes (not the rows)."""
        return {"name": self.name, "n": self.n, "score": self.score, "subgroups": list(self.subgroups),
                "order": self.order, "id": self.id, "text": self.text, "features": list(self.features),
                "notes": list(self.notes), "warnings": list(self.warnings)}

    def __repr__(self) -> str:
        return (f"AuditData({self.name!r}, n={self.n}, score={self.score!r}, subgroups={self.subgroups}, "
                f"order={self.order!r}, features={len(self.features)})")


# ----------------------------------------------------------------------------------------------
# Value parsing


def _rows(mask: np.ndarray) -> str:
    """'data rows 3, 8, 9 (and 4 more)' for a boolean mask over rows."""
    where = np.flatnonzero(mask) + 1
    shown = ", ".join(str(r) for r in where[:_MAX_ROWS_LISTED])
    more = f" (and {len(where) - _MAX_ROWS_LISTED} more)" if len(where) > _MAX_ROWS_LISTED else ""
    return f"data row{'s' if len(where) > 1 else ''} {shown}{more}"


def _as_text(series: pd.Series) -> pd.Series:
    """Values as strings without surrounding blanks; stripped once per distinct value (fast on
    low-cardinality subgroup columns)."""
    codes, uniques = pd.factorize(series.astype(str) if series.dtype != object else series, use_na_sentinel=False)
    stripped = np.array([str(u).strip() for u in uniques], dtype=object)
    return pd.Series(stripped[codes], index=series.index, name=series.name)


def _fast_numbers(series: pd.Series, cache: dict | None = None) -> np.ndarray | None:
    """All values as finite floats, or None if any is empty, non-numeric or not finite.

    numpy's string-to-float cast is several times faster than ``pd.to_numeric`` on 10^6 rows; the
    slow, diagnosing path runs only when this fails.
    """
    if cache is not None and series.name in cache:
        return cache[series.name]
    try:
        values = series.to_numpy().astype(float)
        if not np.isfinite(values).all():
            values = None
    except (ValueError, TypeError):
        values = None
    if cache is not None:
        cache[series.name] = values
    return values


def _parse_numbers(series: pd.Series, column: str, name: str, allow_words: bool = False,
                   cache: dict | None = None) -> tuple[np.ndarray, int]:
    """Floats from a column; empty or non-numeric values are errors naming the rows.

    Returns (values, number of true/false words read as 1/0).
    """
    if pd.api.types.is_bool_dtype(series):
        return series.to_numpy(dtype=float), 0
    values = _fast_numbers(series, cache)
    if values is not None:
        return values, 0
    if pd.api.types.is_numeric_dtype(series):
        values = series.to_numpy(dtype=float)
        bad = ~np.isfinite(values)
        raise InputError(f"{name}: column {column!r} has {int(bad.sum())} empty or infinite value(s) at {_rows(bad)}")
    text = _as_text(series)
    empty = (text == "").to_numpy()
    if empty.any():
        raise InputError(
            f"{name}: column {column!r} is empty at {_rows(empty)} ({int(empty.sum())} empty value(s) in total); "
            "every case needs a value"
        )
    values = pd.to_numeric(text, errors="coerce").to_numpy(dtype=float, copy=True)  # written to below
    values[np.isinf(values)] = np.nan
    words = 0
    bad = np.isnan(values)
    if bad.any() and allow_words:
        mapped = text[bad].str.lower().map(_TRUE_WORDS)
        values[bad] = mapped.to_numpy(dtype=float)
        words = int(mapped.notna().sum())
        bad = np.isnan(values)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"{name}: column {column!r}, data row {first + 1}: not a finite number "
            f"({int(bad.sum())} such value(s), at {_rows(bad)})"
        )
    return values, words


def _parse_scores(series: pd.Series, column: str, name: str, cache: dict | None = None) -> tuple[np.ndarray, int]:
    values, words = _parse_numbers(series, column, name, allow_words=True, cache=cache)
    outside = ~((values >= 0.0) & (values <= 1.0))
    if outside.any():
        first = int(np.flatnonzero(outside)[0])
        raise InputError(
            f"{name}: column {column!r}, data row {first + 1}: score {values[first]:g} is outside [0, 1] "
            f"({int(outside.sum())} such value(s), at {_rows(outside)}); scores must be 0/1 or a number in [0, 1]"
        )
    return values, words


def _is_unit_scores(series: pd.Series, cache: dict | None = None) -> bool:
    """Does the column parse as numbers (or true/false words) all within [0, 1]?"""
    try:
        values, _ = _parse_scores(series, "", "", cache)
    except InputError:
        return False
    return len(values) > 0


def _is_numeric(series: pd.Series, cache: dict | None = None) -> bool:
    return not pd.api.types.is_bool_dtype(series) and _fast_numbers(series, cache) is not None


# ----------------------------------------------------------------------------------------------
# Detection


def _by_name(columns: Sequence[str], names: Iterable[str], exclude: set[str]) -> str | None:
    normalised = {c: _normalise(c) for c in columns if c not in exclude}
    for wanted in names:
        for column, norm in normalised.items():
            if norm == wanted:
                return column
    return None


def detect_columns(frame: pd.DataFrame) -> ColumnGuess:
    """Guess column roles from names (and, for score and features, values)."""
    return _detect(frame, {})


def _detect(frame: pd.DataFrame, cache: dict) -> ColumnGuess:
    """:func:`detect_columns` with a cache of parsed numeric columns shared with the loader."""
    columns = [str(c) for c in frame.columns]
    taken: set[str] = set()

    named = [c for wanted in SCORE_NAMES for c in columns if _normalise(c) == wanted]
    score = next((c for c in named if _is_unit_scores(frame[c], cache)), None)
    if score is None and named:
        score = named[0]  # a score-named column with bad values: loading it reports the bad row
    if score is None:  # no telling name: a single all-0/1 column (not an id or order) is the score
        binary = []
        for c in columns:
            if _normalise(c) in ID_NAMES + ORDER_NAMES or _ID_SUFFIX.search(c):
                continue
            values = None if pd.api.types.is_bool_dtype(frame[c]) else _fast_numbers(frame[c], cache)
            if values is not None and ((values == 0.0) | (values == 1.0)).all():
                binary.append(c)
        if len(binary) == 1:
            score = binary[0]
    if score:
        taken.add(score)

    order = _by_name(columns, ORDER_NAMES, taken)
    if order:
        taken.add(order)
    identifier = _by_name(columns, ID_NAMES, taken)
    if identifier is None:
        identifier = next((c for c in columns if c not in taken and _ID_SUFFIX.search(c)), None)
    if identifier:
        taken.add(identifier)
    text = _by_name(columns, TEXT_NAMES, taken)
    if text:
        taken.add(text)
    subgroups = tuple(c for c in columns if c not in taken and _normalise(c) in SUBGROUP_NAMES)
    taken.update(subgroups)
    named_features = tuple(c for c in columns
                           if c not in taken and FEATURE_PATTERN.match(c) and _is_numeric(frame[c], cache))
    return ColumnGuess(score=score, subgroups=subgroups, order=order, id=identifier, text=text,
                       features=named_features)


# ----------------------------------------------------------------------------------------------
# Loading


def _resolve(frame: pd.DataFrame, column: str, role: str, name: str, notes: list[str]) -> str:
    """The frame's column for a user-given name (exact, else a unique case-insensitive match)."""
    columns = [str(c) for c in frame.columns]
    if column in columns:
        return column
    folded = [c for c in columns if c.strip().lower() == str(column).strip().lower()]
    if len(folded) == 1:
        notes.append(f"{role} column {column!r} matched {folded[0]!r} (case ignored)")
        return folded[0]
    listing = ", ".join(repr(c) for c in columns[:12]) + (" ..." if len(columns) > 12 else "")
    raise InputError(f"{name}: {role} column {column!r} not found; the columns are {listing}{_delimiter_hint(columns)}")


def _delimiter_hint(columns: Sequence[str]) -> str:
    """A single header column holding other punctuation usually means an unsupported delimiter."""
    if len(columns) == 1 and re.search(r"[:/ .]", columns[0]):
        return "; the header was read as a single column: the delimiter must be one of , ; TAB |"
    return ""


def _as_tuple(value) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return tuple(v.strip() for v in value.split(",") if v.strip())
    return tuple(value)


def missing_scores(series: pd.Series) -> np.ndarray:
    """Rows with no score: an empty (or blank) cell, or a missing value of a typed column."""
    if pd.api.types.is_bool_dtype(series):
        return np.zeros(len(series), dtype=bool)
    if pd.api.types.is_numeric_dtype(series):
        return series.isna().to_numpy()
    return (series.isna() | (_as_text(series.fillna("")) == "")).to_numpy()


def _rows_with_scores(frame: pd.DataFrame, score: str, missing: np.ndarray, name: str,
                      drop_missing: bool) -> tuple[pd.DataFrame, str]:
    """(the rows that have a score, the warning saying how many were left out); without
    ``drop_missing`` one message saying how many rows have none and what to do."""
    k, n = int(missing.sum()), len(frame)
    counted = f"{k:,} of {n:,} rows ({k / n:.1%}) have no score in column {score!r} ({_rows(missing)})"
    if not drop_missing or k == n:
        what = "no row is left" if k == n else "leave out the rows without a score, or fill them in"
        raise InputError(f"{name}: {counted}; {what}")
    return (frame.loc[~missing].reset_index(drop=True),
            f"{counted}: left out, so every rate is of the other {n - k:,} rows")


def load_audit_frame(frame: pd.DataFrame, name: str = "data", score: str | None = None, subgroups=None,
                     order: str | bool | None = None, id: str | bool | None = None, text: str | bool | None = None,
                     features=None, drop_missing: bool = False) -> AuditData:
    """Type and check an already-read table (strings from csvio, or typed columns).

    ``None`` for a role means auto-detect; ``subgroups=()`` / ``features=()`` mean none,
    ``order=False`` means keep file order even if an order column exists, ``id=False`` /
    ``text=False`` mean no such column. Rows without a score are refused with one message saying
    how many; ``drop_missing`` leaves them out instead, and the warnings say how many.
    """
    if len(frame) == 0:
        raise InputError(f"{name}: the table has no rows")
    notes: list[str] = [f"column {c!r}: decimal commas read as decimal points (0,5 = 0.5)"
                        for c in frame.attrs.get(DECIMAL_COMMA_COLUMNS, ())]
    cache: dict = {}  # column -> parsed floats (or None), shared by detection and typing
    guess = _detect(frame, cache)
    score = _choose_score(frame, score, guess, name, notes)
    warnings: list[str] = []
    missing = missing_scores(frame[score])
    if missing.any():
        frame, warning = _rows_with_scores(frame, score, missing, name, drop_missing)
        warnings.append(warning)
        cache = {}  # the parsed columns were of every row
        guess = _detect(frame, cache)
    order = None if order is False else _choose_role(frame, order, guess.order, "order", (score,), name, notes)
    id = _choose_role(frame, id, guess.id, "id", (score, order), name, notes)
    text = _choose_role(frame, text, guess.text, "text", (score, order, id), name, notes)
    chosen_subgroups = _choose_subgroups(frame, subgroups, guess, (score, order, id, text), name, notes)
    chosen_features = _choose_features(frame, features, guess, (score, order, id, text, *chosen_subgroups),
                                       name, notes, cache)
    assigned = _one_role_per_column(name, score=(score,), order=(order,), id=(id,), text=(text,),
                                    subgroup=chosen_subgroups, feature=chosen_features)
    check_subgroup_count(frame, chosen_subgroups, name)
    typed = _typed_columns(frame, score, chosen_subgroups, chosen_features, id, text, name, notes, cache)
    typed = _sort_by_order(frame, typed, order, name, notes, cache)
    unused = [str(c) for c in frame.columns if c not in assigned]
    if unused:
        notes.append(f"column(s) not used: {', '.join(unused[:10])}{' ...' if len(unused) > 10 else ''}")
    return AuditData(frame=pd.DataFrame(typed, copy=False), score=score, subgroups=chosen_subgroups, order=order,
                     id=id, text=text, features=chosen_features, notes=tuple(notes), name=name,
                     warnings=tuple(warnings))


def check_subgroup_count(frame: pd.DataFrame, subgroups: tuple[str, ...], name: str) -> None:
    """InputError naming the limit and how to raise it when the ``subgroups`` columns of ``frame``
    hold more than :data:`MAX_SUBGROUPS` distinct subgroups (combinations of their values), before
    anything is computed per subgroup."""
    if not subgroups:
        return
    limit = table_limit(MAX_SUBGROUPS, MAX_SUBGROUPS_ENV)
    columns = [frame[c] for c in subgroups]
    head = pd.DataFrame({i: c.iloc[: limit + 1] for i, c in enumerate(columns)})
    if len(head) <= limit:   # fewer rows than the limit: nothing to count
        return
    distinct = (columns[0].nunique(dropna=False) if len(columns) == 1
                else len(pd.DataFrame({i: c for i, c in enumerate(columns)}).drop_duplicates()))
    if distinct > limit:
        listed = ", ".join(repr(str(c)) for c in subgroups[:5]) + (" ..." if len(subgroups) > 5 else "")
        raise InputError(f"{name}: {distinct:,} distinct subgroups in column(s) {listed}, more than the limit of "
                         f"{limit:,} subgroups (choose coarser subgroup columns, or set the environment variable "
                         f"{MAX_SUBGROUPS_ENV} to raise the limit; on a server, its operator does; docs/limits.md)")


def _choose_score(frame: pd.DataFrame, score: str | None, guess: ColumnGuess, name: str, notes: list[str]) -> str:
    if score is not None:
        return _resolve(frame, score, "score", name, notes)
    if guess.score is None:
        raise InputError(
            f"{name}: no score column found (looked for a 0/1 or [0, 1] column named like "
            f"{', '.join(SCORE_NAMES[:6])}, ...); choose one as the score"
            f"{_delimiter_hint([str(c) for c in frame.columns])}"
        )
    notes.append(f"score column auto-detected: {guess.score!r}")
    return guess.score


def _choose_role(frame: pd.DataFrame, given: str | None, guessed: str | None, role: str, taken: tuple,
                 name: str, notes: list[str]) -> str | None:
    """A single-column role: the user's column, else the detected one unless another role has it."""
    if given is False:  # explicitly none
        return None
    if given is not None:
        return _resolve(frame, given, role, name, notes)
    if guessed is None or guessed in taken:
        return None
    notes.append(f"{role} column auto-detected: {guessed!r}")
    return guessed


def _choose_subgroups(frame: pd.DataFrame, subgroups, guess: ColumnGuess, taken: tuple, name: str,
                      notes: list[str]) -> tuple[str, ...]:
    chosen = _as_tuple(subgroups)
    if chosen is not None:
        return tuple(_resolve(frame, c, "subgroup", name, notes) for c in chosen)
    chosen = tuple(c for c in guess.subgroups if c not in taken)
    notes.append(f"subgroup column(s) auto-detected: {', '.join(map(repr, chosen))}"
                 if chosen else "no subgroup column detected (choose the subgroup columns)")
    return chosen


def _choose_features(frame: pd.DataFrame, features, guess: ColumnGuess, taken: tuple, name: str,
                     notes: list[str], cache: dict) -> tuple[str, ...]:
    chosen = _as_tuple(features)
    if chosen is not None:
        return tuple(_resolve(frame, c, "feature", name, notes) for c in chosen)
    chosen = tuple(c for c in guess.features if c not in taken)
    if not chosen:
        chosen = tuple(str(c) for c in frame.columns if c not in taken and _is_numeric(frame[c], cache))
    if chosen:
        notes.append(f"{len(chosen)} numeric feature column(s) auto-detected: "
                     f"{', '.join(chosen[:8])}{' ...' if len(chosen) > 8 else ''}")
    return chosen


def _one_role_per_column(name: str, **roles: tuple) -> dict[str, str]:
    """column -> role; a column chosen for two roles (or twice for one) is an error."""
    assigned: dict[str, str] = {}
    for role, cols in roles.items():
        for c in cols:
            if c is None:
                continue
            if c in assigned:
                what = f"twice as {role}" if assigned[c] == role else f"both as {assigned[c]} and as {role}"
                raise InputError(f"{name}: column {c!r} is chosen {what}; give each column one role")
            assigned[c] = role
    return assigned


def _typed_columns(frame: pd.DataFrame, score: str, subgroups: tuple, features: tuple, id: str | None,
                   text: str | None, name: str, notes: list[str], cache: dict) -> dict[str, np.ndarray]:
    """Every column as an array, the role columns typed (the frame is built once: fast at 10^6 rows)."""
    typed: dict[str, np.ndarray] = {str(c): frame[c].to_numpy() for c in frame.columns}
    typed[score], words = _parse_scores(frame[score], score, name, cache)
    if words:
        notes.append(f"column {score!r}: {words} true/false or yes/no value(s) read as 1/0")
    for c in features:
        typed[c], _ = _parse_numbers(frame[c], c, name, cache=cache)
    for c in subgroups:
        typed[c] = _as_text(frame[c]).to_numpy()
        blank = typed[c] == ""
        if blank.any():
            notes.append(f"column {c!r}: {int(blank.sum())} blank value(s) at {_rows(blank)}, kept as their own "
                         "subgroup ''")
    if id is not None:
        typed[id] = frame[id].astype(str).to_numpy()
        duplicated = pd.Series(typed[id]).duplicated(keep=False).to_numpy()
        if duplicated.any():
            notes.append(f"column {id!r}: {int(duplicated.sum())} row(s) share an id with another row "
                         f"({_rows(duplicated)}); all are kept")
    if text is not None:
        typed[text] = frame[text].astype(str).to_numpy()  # free text kept exactly as written
    return typed


_ZONE = r"(?:Z|[+-]\d{2}(?::?\d{2})?)$"  # an ISO-8601 time's zone designator: Z, +02, +02:00, -0530
_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})")


def _order_positions(series: pd.Series, column: str, name: str, cache: dict) -> tuple[np.ndarray, bool]:
    """(sort keys, are they timestamps): numbers, else ISO-8601 timestamps (as UTC nanoseconds).

    Times with a zone (``Z``, ``+02:00``) are ordered by their instant in UTC. Times without one
    are ordered as written; a column mixing the two is refused (a naive time has no instant to
    compare with an aware one, and guessing its zone would reorder the run silently)."""
    try:
        return _parse_numbers(series, column, name, cache=cache)[0], False
    except InputError as numeric_error:
        if pd.api.types.is_datetime64_any_dtype(series):
            stamps = pd.to_datetime(series, utc=True)
        else:
            text = _as_text(series).str.strip()
            if (text == "").any() or not text.str.contains(r"^\d{4}-\d{2}-\d{2}", regex=True).all():
                raise numeric_error from None
            aware = text.str.contains(_ZONE, regex=True).to_numpy()
            if aware.any() and not aware.all():
                raise InputError(
                    f"{name}: column {column!r} mixes times with a time zone (Z or an offset, {_rows(aware)}) "
                    f"and without one ({_rows(~aware)}); give every time a zone, or none") from None
            stamps = pd.to_datetime(text, format="ISO8601", utc=True, errors="coerce")
            bad = stamps.isna().to_numpy()
            if bad.any():
                raise InputError(f"{name}: column {column!r}, {_rows(bad)}: {_impossible(text.iloc[int(np.flatnonzero(bad)[0])])}"
                                 "; order values must be numbers or ISO-8601 times") from None
        if stamps.isna().any():
            raise numeric_error from None
        return stamps.astype("int64").to_numpy().astype(float), True


def _impossible(value: str) -> str:
    """Why a time that looks ISO-8601 is not one: an impossible date is named as such."""
    import datetime as dt
    match = _DATE.match(value)
    if match:
        year, month, day = map(int, match.groups())
        try:
            dt.date(year, month, day)
        except ValueError:
            return f"impossible date (day {day} of month {month} of {year} does not exist)"
    return "not an ISO-8601 time"


def _sort_by_order(frame: pd.DataFrame, typed: dict, order: str | None, name: str, notes: list[str],
                   cache: dict) -> dict[str, np.ndarray]:
    """Rows sorted by the order column (unique numbers or ISO-8601 timestamps), or kept as read."""
    if order is None:
        notes.append("no order column: scores replayed in file order")
        return typed
    positions, timestamps = _order_positions(frame[order], order, name, cache)
    permutation = np.argsort(positions, kind="stable")
    ranked = positions[permutation]
    tie = np.flatnonzero(ranked[1:] == ranked[:-1])
    if len(tie):
        twins = np.flatnonzero(positions == ranked[tie[0]]) + 1
        involved = int(pd.Series(positions).duplicated(keep=False).sum())
        raise InputError(
            f"{name}: column {order!r}: {'the same instant' if timestamps else 'the same value'} at data rows "
            f"{', '.join(map(str, twins[:_MAX_ROWS_LISTED]))}; annotation order values must be unique "
            f"({involved} row(s) involved)"
        )
    if timestamps:
        typed[order] = _as_text(frame[order]).to_numpy()  # the timestamps as written; sorted by their instant
        notes.append(f"column {order!r}: ISO-8601 timestamps, ordered by their instant (UTC)")
    else:
        typed[order] = positions
    if np.any(permutation != np.arange(len(positions))):
        notes.append(f"rows sorted by {order!r} (annotation order); the file listed them in another order")
        return {c: v[permutation] for c, v in typed.items()}
    notes.append(f"rows already in {order!r} order")
    return typed


def load_audit_csv(source: CsvSource, name: str | None = None, score: str | None = None, subgroups=None,
                   order: str | bool | None = None, id: str | None = None, text: str | None = None,
                   features=None) -> AuditData:
    """Read a labelled audit CSV (path, bytes or binary file) and type it; see the module doc."""
    display = name or (str(source) if isinstance(source, (str,)) or hasattr(source, "__fspath__") else None)
    frame = read_csv_frame(source, name=display, decimal_comma=True)
    return load_audit_frame(frame, name=display or "uploaded file", score=score, subgroups=subgroups,
                            order=order, id=id, text=text, features=features)
