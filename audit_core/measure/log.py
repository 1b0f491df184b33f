"""Model response logs (long CSV): one row per observed cell of one model on one cluster.

Columns (names matched case-insensitively; other columns are ignored and listed in the notes):

* ``model``, ``cluster``: who answered and which problem cluster (non-blank text).
* ``cell``: the cell id ``world:mapping:readout`` (or the axes of a given policy class), parsed by
  :func:`audit_core.identify.parse_cell_id`.
* ``response``: what the model answered, compared with the correct response exactly after
  trimming spaces (``a`` is not ``A``); ``INVALID`` (any case) is a non-answer (DESIGN.md
  section 5). A blank field is an error, because it cannot tell "not asked" from "no answer":
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
    """A loaded response log as arrays over units (model, cluster) x full-support cells.

    ``codes[u, c]`` indexes :attr:`codebook` (-1 = cell not observed); ``expected[k, c]`` is the
    code of the correct response of cluster ``k`` in cell ``c`` (it may be a code no unit gave).
    Unit ``u`` is model ``u // n_clusters`` on cluster ``u % n_clusters``.
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
    notes: tuple[str, ...] = field(default=())

    def __repr__(self) -> str:
        return (f"ResponseLog({len(self.models)} models x {len(self.clusters)} clusters x "
                f"{len(self.cells)} cells, {int(self.observed.sum())} observed, source={self.source!r})")

    @property
    def cells(self) -> tuple[str, ...]:
        return self.layout.cells

    @property
    def worlds(self) -> tuple[str, ...]:
        return self.layout.axes[next(iter(self.layout.axes))]

    @property
    def n_units(self) -> int:
        return len(self.models) * len(self.clusters)

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
        cluster = np.arange(self.n_units) % len(self.clusters)
        return self.observed & (self.codes == self.expected[cluster])

    def unit_model(self) -> np.ndarray:
        return np.repeat(np.arange(len(self.models)), len(self.clusters))

    def unit_cluster(self) -> np.ndarray:
        return np.tile(np.arange(len(self.clusters)), len(self.models))

    def response_strings(self, unit: int) -> list[str | None]:
        """Responses of one unit per cell (None where not observed)."""
        return [self.codebook[c] if c >= 0 else None for c in self.codes[unit]]


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
            raise InputError(f"{where}: oracle {raw!r} is not one of {', '.join(LABELS)}")
        return label
    if is_non_answer(value):
        raise InputError(f"{where}: oracle {raw!r} is blank or INVALID; give the correct response")
    return value


def load_response_log(source: CsvSource, name: str | None = None,
                      policy_class: PolicyClass | None = None) -> ResponseLog:
    """Read and check a long-format response log (module docstring); InputError for bad input.

    ``policy_class`` supplies the cell layout (axes); default: the frozen class's 36 cells.
    """
    frame = read_csv_frame(source, name)
    name = name or (source if isinstance(source, str) else getattr(source, "name", None)) or "response log"
    name = str(name)
    layout = policy_class or frozen_policy_class()
    world_axis = next(iter(layout.axes))
    worlds = layout.axes[world_axis]
    cols = _column_map(frame, name)
    missing = [c for c in REQUIRED_COLUMNS if c not in cols]
    if missing:
        raise InputError(f"{name}: missing column(s) {', '.join(repr(c) for c in missing)} "
                         f"(found: {', '.join(frame.columns)}); a response log needs "
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
    notes: list[str] = []
    ignored = [c for c in frame.columns if c not in used]
    if ignored:
        notes.append(f"ignored column(s): {', '.join(ignored)}")

    # Each column is factorized once and only its distinct values are stripped (fast on 10^6 rows).
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

    # Cell ids: parse each distinct id once with the identify engine's parser.
    cell_index = layout.cell_index
    col_of = np.empty(len(distinct["cell"]), dtype=np.int64)
    for i, cell in enumerate(distinct["cell"]):
        if cell not in cell_index:
            first = np.flatnonzero(row_codes["cell"] == i)
            try:
                parse_cell_id(cell, layout.axes)
            except InputError as exc:
                raise InputError(f"{name}: column {cols['cell']!r}, {_rows(first)}: {exc}") from None
            raise InputError(f"{name}: column {cols['cell']!r}, {_rows(first)}: cell {cell!r} is "
                             "outside the full support")
        col_of[i] = cell_index[cell]
    cell_col = col_of[row_codes["cell"]]

    models, clusters = tuple(distinct["model"]), tuple(distinct["cluster"])
    model_idx, cluster_idx = row_codes["model"], row_codes["cluster"]
    n_cells, n_clusters = len(layout.cells), len(clusters)
    key = (model_idx * n_clusters + cluster_idx) * n_cells + cell_col

    # Response codes in sorted string order, so the codebook does not depend on row order.
    codebook_list = sorted(distinct["response"])
    rank = np.argsort(np.argsort(np.array(distinct["response"], dtype=object), kind="stable"), kind="stable")
    response_code = rank[row_codes["response"]]

    # Duplicate rows of one (model, cluster, cell): same response merged, different response an error.
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    dup = np.flatnonzero(sorted_key[1:] == sorted_key[:-1])
    if dup.size:
        clash = dup[response_code[order[dup]] != response_code[order[dup + 1]]]
        if clash.size:
            a, b = sorted(order[[clash[0], clash[0] + 1]])
            raise InputError(
                f"{name}: data rows {a + 1} and {b + 1} both give model {models[model_idx[a]]!r}, "
                f"cluster {clusters[cluster_idx[a]]!r}, cell {layout.cells[cell_col[a]]!r} but with different "
                f"responses ({codebook_list[response_code[a]]!r} vs {codebook_list[response_code[b]]!r})")
        notes.append(f"{dup.size} duplicate row(s) repeat a (model, cluster, cell) with the same response; "
                     f"each was counted once (first at {_rows(np.sort(order[dup + 1]))})")

    codes = np.full(len(models) * n_clusters * n_cells, -1, dtype=np.int64)
    codes[key] = response_code
    codes = codes.reshape(len(models) * n_clusters, n_cells)

    # Oracle label per (cluster, world).
    labelled = mapping_axis(layout) is not None
    world_names = [c.split(":")[0] for c in layout.cells]
    world_pos = {w: i for i, w in enumerate(worlds)}
    cell_world = np.array([world_pos[w] for w in world_names], dtype=np.int64)
    oracle = np.full((n_clusters, len(worlds)), None, dtype=object)
    first_row = np.full((n_clusters, len(worlds)), -1, dtype=np.int64)
    where_col = cols["oracle"] if has_oracle else None
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
        clash = np.flatnonzero(norm != norm[first_pos][inverse])
        if clash.size:
            r = int(clash[0])
            pos = int(first_pos[inverse[r]])
            k, w = divmod(int(pair[r]), len(worlds))
            raise InputError(
                f"{name}: column {column!r}: cluster {clusters[k]!r} world {worlds[w]!r} has oracle "
                f"{raw[pos].strip()!r} at data row {pos + 1} but {raw[r].strip()!r} at data row {r + 1}; "
                "the oracle must be the same on every row of a cluster and world")
        for p, pos in zip(distinct_pairs, first_pos):
            k, w = divmod(int(p), len(worlds))
            oracle[k, w] = _oracle_value(raw[pos], labelled, f"{name}: column {column!r}, data row {pos + 1}")
            first_row[k, w] = pos
    # With an 'oracle' column every world of every cluster needs at least one row to know its label.
    unknown = np.argwhere(first_row < 0)
    if unknown.size:
        k, w = unknown[0]
        raise InputError(f"{name}: column {where_col!r}: cluster {clusters[k]!r} has no row in world "
                         f"{worlds[w]!r}, so its oracle there is unknown")

    # Correct response per (cluster, cell): the letter of the label under the cell's mapping.
    axes = list(layout.axes)
    map_pos = axes.index("mapping") if labelled else None
    expected_text = np.empty((n_clusters, n_cells), dtype=object)
    for c, cell in enumerate(layout.cells):
        parts = cell.split(":")
        for k in range(n_clusters):
            label = oracle[k, cell_world[c]]
            expected_text[k, c] = letter(parts[map_pos], label) if labelled else label
    extra = sorted(set(expected_text.ravel()) - set(codebook_list))
    full_codebook = tuple(codebook_list + extra)
    full_code = {s: i for i, s in enumerate(full_codebook)}
    expected = np.vectorize(full_code.__getitem__, otypes=[np.int64])(expected_text)

    observed = codes >= 0
    per_unit = observed.sum(axis=1)
    empty_units = np.flatnonzero(per_unit == 0)
    if empty_units.size:
        shown = ", ".join(f"{models[u // n_clusters]}/{clusters[u % n_clusters]}" for u in empty_units[:5])
        notes.append(f"{empty_units.size} (model, cluster) pair(s) have no rows at all: {shown}"
                     + (" ..." if empty_units.size > 5 else ""))
    partial = np.flatnonzero((per_unit > 0) & (per_unit < n_cells))
    if partial.size:
        u = partial[0]
        first_missing = layout.cells[int(np.flatnonzero(~observed[u])[0])]
        notes.append(f"{partial.size} (model, cluster) unit(s) miss some of the {n_cells} cells "
                     f"({int((~observed[partial]).sum())} cells in all; e.g. {models[u // n_clusters]}/"
                     f"{clusters[u % n_clusters]} has no {first_missing!r})")
    return ResponseLog(
        source=name, layout=layout, models=models, clusters=clusters, codes=codes, expected=expected,
        codebook=full_codebook, oracle_labels=tuple(tuple(row) for row in oracle), n_rows=len(frame),
        notes=tuple(notes))

