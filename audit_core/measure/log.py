"""Model response logs (long CSV): one row per observed cell of one model on one cluster.

Columns (names matched case-insensitively; other columns are ignored and listed in the notes):

* ``model``, ``cluster``: who answered and which problem cluster (non-blank text).
* ``cell``: the cell id ``world:mapping:readout`` (or the axes of a given policy class), parsed by
  :func:`audit_core.identify.parse_cell_id`.
* ``response``: what the model answered, compared with the correct response exactly after
  trimming spaces (``a`` is not ``A``); ``INVALID`` (any case) is a non-answer (docs/formats.md,
  "Response log CSV"). A blank field is an error, because it cannot tell "not asked" from "no answer":
  write ``INVALID`` for a non-answer and leave out rows of cells that were not observed.
* the oracle of the cluster, per world, either as an ``oracle`` column (the label of the row's
  world, the same on every row of that cluster and world) or as per-cluster columns
  ``oracle_<world>`` for every world (``oracle_base, oracle_target, oracle_sham``), the same on
  every row of a cluster. With a ``mapping`` axis whose values spell the letters given to
  ``TRUE, FALSE, UNKNOWN`` (the frozen layout) the oracle is such a label and the correct response
  in a cell is the letter the cell's mapping gives it; otherwise the oracle is the correct
  response itself.

The first axis of the layout is the world axis (as for the identify engine's ``local_response``).
Units are all (model, cluster) pairs of the log; a pair without rows, and every cell a unit has no
row for, is reported in :attr:`ResponseLog.notes`, never dropped silently. Rows repeating the same
(model, cluster, cell) with the same response are merged (and counted in the notes); with
different responses they are an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from audit_core.data.csvio import CsvSource, read_csv_frame
from audit_core.errors import InputError
from audit_core.identify import PolicyClass, frozen_policy_class, parse_cell_id
from audit_core.identify.policies import LABELS, letter

REQUIRED_COLUMNS = ("model", "cluster", "cell", "response")
NON_ANSWER = "INVALID"


def is_non_answer(response: str) -> bool:
    """``INVALID`` (any case) or blank: the model gave no answer under the contract."""
    return response.strip().upper() in ("", NON_ANSWER)


def _rows(positions: np.ndarray, limit: int = 3) -> str:
    """'data rows 3, 8, 9 (and 4 more)' for 0-based row positions (data row 1 = first below header)."""
    shown = ", ".join(str(int(p) + 1) for p in positions[:limit])
    more = f" (and {len(positions) - limit} more)" if len(positions) > limit else ""
    return f"data row{'s' if len(positions) > 1 else ''} {shown}{more}"


def stripped_codes(values, upper: bool = False) -> tuple[np.ndarray, list[str]]:
    """Per row, the code of its whitespace-stripped (optionally upper-cased) value; codes follow
    first appearance. Only the distinct values are stripped, so 10^6 rows cost one factorize."""
    raw_codes, raw_distinct = pd.factorize(np.asarray(values, dtype=object), sort=False)
    cleaned = pd.Index(raw_distinct, dtype=object).str.strip()
    if upper:
        cleaned = cleaned.str.upper()
    codes, distinct = pd.factorize(cleaned, sort=False)
    return codes[raw_codes].astype(np.int64), [str(v) for v in distinct]


def mapping_axis(layout: PolicyClass) -> str | None:
    """The axis whose values are label mappings (one letter per TRUE, FALSE, UNKNOWN), if any."""
    values = layout.axes.get("mapping")
    if values and all(len(v) == len(LABELS) and len(set(v)) == len(LABELS) for v in values):
        return "mapping"
    return None


@dataclass(frozen=True, eq=False)
class ResponseLog:
    """A loaded response log as arrays over units x full-support cells.

    Units are the (model, cluster) pairs that have at least one row: unit ``u`` is model
    ``unit_models[u]`` on cluster ``unit_clusters[u]`` (sorted by model, then cluster), so memory
    follows the rows of the file, never models x clusters. ``codes[u, c]`` indexes
    :attr:`codebook` (-1 = cell not observed); ``expected[k, c]`` is the code of the correct
    response of cluster ``k`` in cell ``c`` (it may be a code no unit gave).
    """

    source: str
    layout: PolicyClass
    models: tuple[str, ...]
    clusters: tuple[str, ...]
    codes: np.ndarray
    expected: np.ndarray
    codebook: tuple[str, ...]
    oracle_labels: tuple[tuple[str, ...], ...]
    n_rows: int
    unit_models: np.ndarray = field(repr=False)
    unit_clusters: np.ndarray = field(repr=False)
    notes: tuple[str, ...] = field(default=())

    def __repr__(self) -> str:
        return (f"ResponseLog({len(self.models)} models, {len(self.clusters)} clusters, {self.n_units} units x "
                f"{len(self.cells)} cells, {int(self.observed.sum())} observed, source={self.source!r})")

    @property
    def cells(self) -> tuple[str, ...]:
        return self.layout.cells

    @property
    def worlds(self) -> tuple[str, ...]:
        return self.layout.axes[next(iter(self.layout.axes))]

    @property
    def n_units(self) -> int:
        return int(self.unit_models.size)

    @cached_property
    def observed(self) -> np.ndarray:
        return self.codes >= 0

    @cached_property
    def non_answer(self) -> np.ndarray:
        """Observed cells whose response is a non-answer (``INVALID`` or blank)."""
        flags = np.array([is_non_answer(s) for s in self.codebook] + [False], dtype=bool)
        return flags[self.codes]  # code -1 picks the trailing False

    @cached_property
    def correct(self) -> np.ndarray:
        """Observed cells whose response equals the cluster's oracle response."""
        return self.observed & (self.codes == self.expected[self.unit_clusters])

    def unit_cluster(self) -> np.ndarray:
        return self.unit_clusters


MAX_LISTED = 12  # names listed in a note before "and N more"


def listed(names, limit: int = MAX_LISTED) -> str:
    """'a, b, c (and 40 more)': a note never runs to the length of a 10^4-column header."""
    names = list(names)
    shown = ", ".join(str(n) for n in names[:limit])
    return shown + (f" (and {len(names) - limit} more)" if len(names) > limit else "")


def _column_map(frame: pd.DataFrame, name: str) -> dict[str, str]:
    """lower-case name -> actual header name; two headers differing only in case are an error."""
    out: dict[str, str] = {}
    for col in frame.columns:
        key = col.strip().lower()
        if key in out:
            raise InputError(f"{name}: columns {out[key]!r} and {col!r} differ only in letter case")
        out[key] = col
    return out


def _oracle_value(raw: str, labelled: bool, where: str) -> str:
    value = raw.strip()
    if labelled:
        label = value.upper()
        if label not in LABELS:
            raise InputError(f"{where}: the oracle is not one of {', '.join(LABELS)}")
        return label
    if is_non_answer(value):
        raise InputError(f"{where}: the oracle is blank or INVALID; give the correct response")
    return value


def _check_columns(frame: pd.DataFrame, name: str, worlds) -> tuple[dict, dict, bool, list[str]]:
    """(column map, per-world oracle columns, has an 'oracle' column, notes); InputError when a
    required or oracle column is missing or both oracle forms are given."""
    cols = _column_map(frame, name)
    missing = [c for c in REQUIRED_COLUMNS if c not in cols]
    if missing:
        raise InputError(f"{name}: missing column(s) {', '.join(repr(c) for c in missing)} "
                         f"(found: {listed(frame.columns)}); a response log needs "
                         f"{', '.join(REQUIRED_COLUMNS)} and an oracle")
    per_world_cols = {w: cols.get(f"oracle_{w.lower()}") for w in worlds}
    has_oracle = "oracle" in cols
    has_per_cluster = any(per_world_cols.values())
    if has_oracle and has_per_cluster:
        raise InputError(f"{name}: give the oracle either as column 'oracle' or as columns "
                         f"{', '.join('oracle_' + w for w in worlds)}, not both")
    if not has_oracle and not has_per_cluster:
        raise InputError(f"{name}: no oracle: add a column 'oracle' (label of the row's world) or "
                         f"per-cluster columns {', '.join('oracle_' + w for w in worlds)}")
    if has_per_cluster:
        absent = [f"oracle_{w}" for w, c in per_world_cols.items() if c is None]
        if absent:
            raise InputError(f"{name}: per-cluster oracle columns are incomplete: missing {', '.join(absent)}")
    used = {cols[c] for c in REQUIRED_COLUMNS} | ({cols["oracle"]} if has_oracle else set(per_world_cols.values()))
    ignored = [c for c in frame.columns if c not in used]
    notes = [f"ignored column(s): {listed(ignored)}"] if ignored else []
    return cols, per_world_cols, has_oracle, notes


def _required_codes(frame: pd.DataFrame, cols: dict, name: str) -> tuple[dict, dict]:
    """Per required column, (row codes, distinct stripped values); InputError for a blank field.
    Each column is factorized once and only its distinct values are stripped (fast on 10^6 rows)."""
    row_codes, distinct = {}, {}
    for c in REQUIRED_COLUMNS:
        row_codes[c], distinct[c] = stripped_codes(frame[cols[c]])
    for c in ("model", "cluster", "cell"):
        if "" in distinct[c]:
            blank = np.flatnonzero(row_codes[c] == distinct[c].index(""))
            raise InputError(f"{name}: column {cols[c]!r} is blank at {_rows(blank)}")
    if "" in distinct["response"]:
        blank = np.flatnonzero(row_codes["response"] == distinct["response"].index(""))
        raise InputError(f"{name}: column {cols['response']!r} is blank at {_rows(blank)}: write "
                         f"{NON_ANSWER} for a non-answer, or leave out the row of a cell that was not observed")
    return row_codes, distinct


def _cell_columns(layout: PolicyClass, cell_codes: np.ndarray, distinct_cells, column: str, name: str) -> np.ndarray:
    """Per row, the layout column of its cell; each distinct id is checked once with the identify
    engine's parser."""
    cell_index = layout.cell_index
    col_of = np.empty(len(distinct_cells), dtype=np.int64)
    for i, cell in enumerate(distinct_cells):
        if cell not in cell_index:
            first = np.flatnonzero(cell_codes == i)
            try:
                parse_cell_id(cell, layout.axes)
            except InputError as exc:
                raise InputError(f"{name}: column {column!r}, {_rows(first)}: {exc}") from None
            raise InputError(f"{name}: column {column!r}, {_rows(first)}: cell {cell!r} is "
                             "outside the full support")
        col_of[i] = cell_index[cell]
    return col_of[cell_codes]


def _units(model_idx: np.ndarray, cluster_idx: np.ndarray, n_clusters: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(unit of each row, model of each unit, cluster of each unit) over the pairs that occur."""
    pair = model_idx * n_clusters + cluster_idx  # < models x clusters, which fits in int64
    pairs, unit_of_row = np.unique(pair, return_inverse=True)
    return unit_of_row.reshape(-1), pairs // n_clusters, pairs % n_clusters


def _unit_codes(unit_of_row, cell_col, response_code, n_units: int, n_cells: int, labels, name: str,
                notes: list[str]) -> np.ndarray:
    """units x cells response codes (-1 = not observed). Rows repeating a (model, cluster, cell)
    with the same response are merged (noted); with different responses they are an error.
    ``labels(row)`` names a row's model, cluster and cell for the message."""
    key = unit_of_row * n_cells + cell_col
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    dup = np.flatnonzero(sorted_key[1:] == sorted_key[:-1])
    if dup.size:
        clash = dup[response_code[order[dup]] != response_code[order[dup + 1]]]
        if clash.size:
            a, b = sorted(order[[clash[0], clash[0] + 1]])
            raise InputError(f"{name}: data rows {a + 1} and {b + 1} both give {labels(a)} but with different "
                             f"responses ({labels.response(a)!r} vs {labels.response(b)!r})")
        notes.append(f"{dup.size} duplicate row(s) repeat a (model, cluster, cell) with the same response; "
                     f"each was counted once (first at {_rows(np.sort(order[dup + 1]))})")
    codes = np.full(n_units * n_cells, -1, dtype=np.int64)
    codes[key] = response_code
    return codes.reshape(n_units, n_cells)


class _RowLabels:
    """Names of a row's model, cluster, cell and response, for messages."""

    def __init__(self, models, clusters, cells, codebook, model_idx, cluster_idx, cell_col, response_code):
        self.models, self.clusters, self.cells, self.codebook = models, clusters, cells, codebook
        self.model_idx, self.cluster_idx, self.cell_col, self.response_code = (
            model_idx, cluster_idx, cell_col, response_code)

    def __call__(self, row: int) -> str:
        return (f"model {self.models[self.model_idx[row]]!r}, cluster {self.clusters[self.cluster_idx[row]]!r}, "
                f"cell {self.cells[self.cell_col[row]]!r}")

    def response(self, row: int) -> str:
        return self.codebook[self.response_code[row]]


def _oracle_labels(frame, layout, cols, per_world_cols, has_oracle, cluster_idx, cell_col, clusters, name):
    """Oracle value per (cluster, world) (module docstring); InputError when it differs between
    rows of one cluster and world, or a world of a cluster has no row to give it."""
    worlds = layout.axes[next(iter(layout.axes))]
    labelled = mapping_axis(layout) is not None
    world_pos = {w: i for i, w in enumerate(worlds)}
    cell_world = _cell_world(layout)
    n_clusters = len(clusters)
    oracle = np.full((n_clusters, len(worlds)), None, dtype=object)
    first_row = np.full((n_clusters, len(worlds)), -1, dtype=np.int64)
    if has_oracle:
        raw = frame[cols["oracle"]].to_numpy(dtype=object)  # strings: read_csv_frame keeps no NA
        targets = [(cell_world[cell_col], raw, cols["oracle"])]
    else:
        targets = [(np.full(len(frame), world_pos[w]), frame[per_world_cols[w]].to_numpy(dtype=object),
                    per_world_cols[w]) for w in worlds]
    for world_of_row, raw, column in targets:
        norm, _ = stripped_codes(raw, upper=labelled)
        pair = cluster_idx * len(worlds) + world_of_row
        distinct_pairs, first_pos, inverse = np.unique(pair, return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
        clash = np.flatnonzero(norm != norm[first_pos][inverse])
        if clash.size:
            r = int(clash[0])
            pos = int(first_pos[inverse[r]])
            k, w = divmod(int(pair[r]), len(worlds))
            raise InputError(
                f"{name}: column {column!r}: cluster {clusters[k]!r} world {worlds[w]!r} has oracle "
                f"{raw[pos].strip()!r} at data row {pos + 1} but {raw[r].strip()!r} at data row {r + 1}; "
                "the oracle must be the same on every row of a cluster and world")
        for p, pos in zip(distinct_pairs, first_pos, strict=True):
            k, w = divmod(int(p), len(worlds))
            oracle[k, w] = _oracle_value(raw[pos], labelled, f"{name}: column {column!r}, data row {pos + 1}")
            first_row[k, w] = pos
    # With an 'oracle' column every world of every cluster needs at least one row to know its label.
    unknown = np.argwhere(first_row < 0)
    if unknown.size:
        k, w = unknown[0]
        raise InputError(f"{name}: column {cols['oracle']!r}: cluster {clusters[k]!r} has no row in world "
                         f"{worlds[w]!r}, so its oracle there is unknown")
    return oracle


def _cell_world(layout: PolicyClass) -> np.ndarray:
    """Per layout cell, the position of its world (first axis) value, via the cell parser."""
    world_axis = next(iter(layout.axes))
    world_pos = {w: i for i, w in enumerate(layout.axes[world_axis])}
    return np.array([world_pos[parse_cell_id(c, layout.axes)[world_axis]] for c in layout.cells], dtype=np.int64)


def _expected_codes(layout: PolicyClass, oracle: np.ndarray, codebook_list: list[str]) -> tuple[np.ndarray, tuple]:
    """(clusters x cells codes of the correct response, full codebook): the letter of the label
    under the cell's mapping with a mapping axis, else the oracle value itself. Computed once per
    distinct oracle row, so 10^5 clusters sharing a few oracles cost a few rows."""
    labelled = mapping_axis(layout) is not None
    cell_world = _cell_world(layout)
    mappings = [parse_cell_id(c, layout.axes)["mapping"] for c in layout.cells] if labelled else None
    rows, inverse = np.unique(oracle.astype(str), axis=0, return_inverse=True)
    text = np.empty((len(rows), len(layout.cells)), dtype=object)
    for r, row in enumerate(rows):
        for c, w in enumerate(cell_world):
            text[r, c] = letter(mappings[c], row[w]) if labelled else row[w]
    extra = sorted(set(text.ravel()) - set(codebook_list))
    full_codebook = tuple(codebook_list + extra)
    full_code = {s: i for i, s in enumerate(full_codebook)}
    codes = np.vectorize(full_code.__getitem__, otypes=[np.int64])(text) if text.size else \
        np.zeros(text.shape, dtype=np.int64)
    return codes[inverse.reshape(-1)], full_codebook


def _coverage_notes(observed, unit_models, unit_clusters, models, clusters, cells) -> list[str]:
    """Notes on (model, cluster) pairs without rows and units missing cells; no dense pair array."""
    notes = []
    n_pairs = len(models) * len(clusters)
    if unit_models.size < n_pairs:
        present = set((unit_models * len(clusters) + unit_clusters).tolist())
        examples = []
        for pair in range(n_pairs):  # at most units + 5 steps: stops at the fifth absent pair
            if pair not in present:
                m, k = divmod(pair, len(clusters))
                examples.append(f"{models[m]}/{clusters[k]}")
                if len(examples) == 5:
                    break
        absent = n_pairs - unit_models.size
        notes.append(f"{absent} (model, cluster) pair(s) have no rows at all: {', '.join(examples)}"
                     + (" ..." if absent > 5 else ""))
    per_unit = observed.sum(axis=1)
    partial = np.flatnonzero(per_unit < len(cells))
    if partial.size:
        u = partial[0]
        first_missing = cells[int(np.flatnonzero(~observed[u])[0])]
        notes.append(f"{partial.size} (model, cluster) unit(s) miss some of the {len(cells)} cells "
                     f"({int((~observed[partial]).sum())} cells in all; e.g. {models[unit_models[u]]}/"
                     f"{clusters[unit_clusters[u]]} has no {first_missing!r})")
    return notes


def load_response_log(source: CsvSource, name: str | None = None,
                      policy_class: PolicyClass | None = None) -> ResponseLog:
    """Read and check a long-format response log (module docstring); InputError for bad input.

    ``policy_class`` supplies the cell layout (axes); default: the frozen class's 36 cells.
    Memory is O(rows + units x cells + clusters x cells) with units <= rows.
    """
    frame = read_csv_frame(source, name)
    name = str(name or (source if isinstance(source, str) else getattr(source, "name", None)) or "response log")
    return response_log_from_frame(frame, name, policy_class)


def response_log_from_frame(frame: pd.DataFrame, name: str, policy_class: PolicyClass | None = None,
                            notes: list[str] | tuple[str, ...] = ()) -> ResponseLog:
    """The checks and arrays of :func:`load_response_log` on a table of text columns (a CSV as
    read, or the rows an evaluation log gives, :mod:`audit_core.measure.eval_logs`); ``notes``
    come first in the log's notes."""
    layout = policy_class or frozen_policy_class()
    cols, per_world_cols, has_oracle, column_notes = _check_columns(frame, name, layout.axes[next(iter(layout.axes))])
    notes = list(notes) + column_notes
    row_codes, distinct = _required_codes(frame, cols, name)
    cell_col = _cell_columns(layout, row_codes["cell"], distinct["cell"], cols["cell"], name)
    models, clusters = tuple(distinct["model"]), tuple(distinct["cluster"])
    model_idx, cluster_idx = row_codes["model"], row_codes["cluster"]
    unit_of_row, unit_models, unit_clusters = _units(model_idx, cluster_idx, len(clusters))

    # Response codes in sorted string order, so the codebook does not depend on row order.
    codebook_list = sorted(distinct["response"])
    rank = np.argsort(np.argsort(np.array(distinct["response"], dtype=object), kind="stable"), kind="stable")
    response_code = rank[row_codes["response"]]
    labels = _RowLabels(models, clusters, layout.cells, codebook_list, model_idx, cluster_idx, cell_col,
                        response_code)
    codes = _unit_codes(unit_of_row, cell_col, response_code, unit_models.size, len(layout.cells), labels,
                        name, notes)
    oracle = _oracle_labels(frame, layout, cols, per_world_cols, has_oracle, cluster_idx, cell_col, clusters, name)
    expected, full_codebook = _expected_codes(layout, oracle, codebook_list)
    notes += _coverage_notes(codes >= 0, unit_models, unit_clusters, models, clusters, layout.cells)
    return ResponseLog(
        source=name, layout=layout, models=models, clusters=clusters, codes=codes, expected=expected,
        codebook=full_codebook, oracle_labels=tuple(tuple(row) for row in oracle), n_rows=len(frame),
        unit_models=unit_models, unit_clusters=unit_clusters, notes=tuple(notes))
