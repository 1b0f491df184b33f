"""Finite policy classes: responses of deterministic policies per cell, τ, mixtures, oracle.

A :class:`PolicyClass` stores the responses of its deterministic policies on the full support as
an ``n_policies x n_cells`` array of small integer codes (``codebook[code]`` is the response
string). Every construction path (the frozen class, JSON, long CSV) goes through
:func:`build_policy_class`, which validates everything and raises :class:`InputError`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from audit_core.errors import InputError
from audit_core.identify.cells import (
    parse_cell_id,
    split_cell_id,
    support_cells_of,
    validate_layout,
)

WEIGHT_TOLERANCE = 1e-6
# Bounds on a class a file or a link may carry, by the work it implies (issue 18): every page on
# a class runs identify over policies x cells and the repair search over pairs of policies.
# 4,096 policies keep the explorer's first page within a few seconds on a shared server, and
# 1,000,000 responses (policies x full-support cells) keep the class near 10 MB. docs/limits.md.
MAX_POLICIES = 4_096
MAX_RESPONSES = 1_000_000


@dataclass(frozen=True, eq=False)
class PolicyClass:
    """A finite policy class H with its observation layout (docs/formats.md).

    ``oracle`` (optional) is the correct response per full-support cell; it defines the built-in
    estimands (τ_full = agree with the oracle on every cell). ``tau`` is τ as given in the file.
    """

    axes: dict[str, tuple[str, ...]]
    base: dict[str, tuple[str, ...]]
    components: dict[str, dict[str, tuple[str, ...]]]
    cells: tuple[str, ...]
    names: tuple[str, ...]
    responses: np.ndarray
    codebook: tuple[str, ...]
    tau: np.ndarray | None = None
    mixtures: dict[str, dict[str, float]] = field(default_factory=dict)
    oracle: tuple[str, ...] | None = None
    descriptions: dict[str, str] = field(default_factory=dict)
    source: str = "policy class"

    def __repr__(self) -> str:
        return (
            f"PolicyClass({len(self.names)} policies x {len(self.cells)} cells, "
            f"components={list(self.components)}, mixtures={list(self.mixtures)}, "
            f"source={self.source!r})"
        )

    @property
    def component_names(self) -> tuple[str, ...]:
        return tuple(self.components)

    @cached_property
    def cell_index(self) -> dict[str, int]:
        return {c: i for i, c in enumerate(self.cells)}

    @cached_property
    def policy_index(self) -> dict[str, int]:
        return {n: i for i, n in enumerate(self.names)}

    def label(self, name: str) -> str:
        """Human description of a policy (falls back to its name)."""
        return self.descriptions.get(name) or name

    def response(self, name: str, cell: str) -> str:
        """The response string of deterministic policy ``name`` in ``cell``."""
        try:
            row = self.names.index(name)
        except ValueError:
            raise InputError(f"unknown policy {name!r}") from None
        col = self.cell_index.get(cell)
        if col is None:
            raise InputError(f"unknown cell id {cell!r}")
        return self.codebook[int(self.responses[row, col])]

    def support(self, components: Sequence[str] | None = None) -> tuple[str, ...]:
        """Cells of the support of ``components`` (all components when None)."""
        return support_cells(self, components)

    def columns(self, cells: Sequence[str]) -> np.ndarray:
        """Column indices of ``cells`` in :attr:`responses` (InputError for unknown ids)."""
        index = self.cell_index
        out = []
        for c in cells:
            if c not in index:
                raise InputError(f"unknown cell id {c!r} (not in the full support of {self.source})")
            out.append(index[c])
        return np.asarray(out, dtype=np.intp)


def support_cells(pc: PolicyClass, components: Sequence[str] | None = None) -> tuple[str, ...]:
    """Cell ids of the support spanned by ``components`` (None = all = full support)."""
    chosen = pc.component_names if components is None else tuple(components)
    return support_cells_of(pc.axes, pc.base, pc.components, chosen)


def _code_dtype(n_codes: int) -> np.dtype:
    return np.dtype(np.uint8 if n_codes <= 256 else np.uint16 if n_codes <= 65536 else np.uint32)


def _check_cell(cell: str, owner: str, cell_set: set[str], axes: Mapping[str, Sequence[str]], where: str) -> None:
    """InputError unless ``cell`` is a full-support cell id (the message says which part is wrong)."""
    if cell not in cell_set:
        try:
            parse_cell_id(cell, axes)
        except InputError as exc:
            raise InputError(f"{where}: {owner}: {exc}") from None
        raise InputError(f"{where}: {owner}: cell {cell!r} is outside the full support")


def _check_names(names: Sequence[Any], mixtures: Mapping[str, Any], where: str) -> None:
    """Policy and mixture names: non-empty strings, no name used by both."""
    for name in list(names) + list(mixtures):
        if not isinstance(name, str) or not name.strip():
            raise InputError(f"{where}: policy name {name!r} must be a non-empty string")
    clash = set(names) & set(mixtures)
    if clash:
        raise InputError(f"{where}: policy name {sorted(clash)[0]!r} is used twice")


def _encode_responses(policies: Mapping[str, Mapping[str, str]], cells: tuple[str, ...], axes, where: str):
    """(policy x cell codes, codebook) with codes in sorted response order (file order irrelevant)."""
    cell_set = set(cells)
    codebook: dict[str, int] = {}
    rows = []
    for name, answers in policies.items():
        if not isinstance(answers, Mapping):
            raise InputError(f"{where}: policy {name!r}: 'responses' must be an object cell -> response")
        for cell in answers:
            _check_cell(cell, f"policy {name!r}", cell_set, axes, where)
        missing = [c for c in cells if c not in answers]
        if missing:
            raise InputError(
                f"{where}: policy {name!r} has no response for {len(missing)} cell(s), "
                f"first {missing[0]!r}; every policy must answer all {len(cells)} cells"
            )
        row = []
        for c in cells:
            value = answers[c]
            if not isinstance(value, str):
                raise InputError(f"{where}: policy {name!r} cell {c!r}: response {value!r} is not a string")
            row.append(codebook.setdefault(value, len(codebook)))
        rows.append(row)
    order = sorted(codebook)
    rank = {text: i for i, text in enumerate(order)}  # a dict: list.index here was quadratic
    remap = np.array([rank[s] for s in codebook], dtype=np.int64)
    responses = remap[np.asarray(rows, dtype=np.int64)].astype(_code_dtype(len(order)))
    return responses, tuple(order)


def _oracle_row(oracle: Mapping[str, str] | None, cells: tuple[str, ...], axes, where: str) -> tuple[str, ...] | None:
    """The oracle's correct response per full-support cell, in cell order (None when not given)."""
    if oracle is None:
        return None
    if not isinstance(oracle, Mapping):
        raise InputError(f"{where}: 'oracle' must be an object cell -> correct response")
    cell_set = set(cells)
    for cell in oracle:
        _check_cell(cell, "oracle", cell_set, axes, where)
    missing = [c for c in cells if c not in oracle]
    if missing:
        raise InputError(f"{where}: 'oracle' has no response for cell {missing[0]!r}")
    for c in cells:
        if not isinstance(oracle[c], str):
            raise InputError(f"{where}: oracle cell {c!r}: {oracle[c]!r} is not a string")
    return tuple(oracle[c] for c in cells)


def _tau_array(tau: Mapping[str, Any] | None, policies: Mapping[str, Any], names: tuple[str, ...],
               where: str) -> np.ndarray | None:
    """τ as 0/1 int8 per deterministic policy, given for every policy or for none."""
    if not tau:
        return None
    given = {n: v for n, v in tau.items() if v is not None}
    unknown = [n for n in given if n not in policies]
    if unknown:
        raise InputError(f"{where}: τ given for unknown or mixture policy {unknown[0]!r}")
    if not given:
        return None
    absent = [n for n in names if n not in given]
    if absent:
        raise InputError(f"{where}: policy {absent[0]!r} has no τ (give τ for every policy or none)")
    values = []
    for n in names:
        v = given[n]
        if isinstance(v, bool) or v not in (0, 1) or (isinstance(v, float) and not v.is_integer()):
            raise InputError(f"{where}: policy {n!r}: τ must be 0 or 1, got {v!r}")
        values.append(int(v))
    return np.asarray(values, dtype=np.int8)


def _clean_mixtures(mixtures: Mapping[str, Mapping[str, Any]], policies: Mapping[str, Any],
                    where: str) -> dict[str, dict[str, float]]:
    """Mixtures over deterministic policies with positive weights summing to 1 (within tolerance)."""
    clean_mixtures: dict[str, dict[str, float]] = {}
    for mname, weights in mixtures.items():
        if not isinstance(weights, Mapping) or not weights:
            raise InputError(f"{where}: mixture {mname!r} must map component policies to weights")
        clean: dict[str, float] = {}
        for comp, w in weights.items():
            if comp not in policies:
                kind = "another mixture" if comp in mixtures else "an unknown policy"
                raise InputError(f"{where}: mixture {mname!r} names {kind} {comp!r}")
            if isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w) or w <= 0:
                raise InputError(f"{where}: mixture {mname!r}: weight of {comp!r} must be a positive number, got {w!r}")
            clean[comp] = float(w)
        total = sum(clean.values())
        if abs(total - 1.0) > WEIGHT_TOLERANCE:
            raise InputError(f"{where}: mixture {mname!r}: weights sum to {total:g}, not 1")
        clean_mixtures[mname] = clean
    return clean_mixtures


def build_policy_class(
    axes: Mapping[str, Sequence[str]],
    base: Mapping[str, Sequence[str]],
    components: Mapping[str, Mapping[str, Sequence[str]]],
    policies: Mapping[str, Mapping[str, str]],
    tau: Mapping[str, Any] | None = None,
    mixtures: Mapping[str, Mapping[str, Any]] | None = None,
    oracle: Mapping[str, str] | None = None,
    descriptions: Mapping[str, str] | None = None,
    source: str = "policy class",
) -> PolicyClass:
    """Validate a class given as plain mappings and encode its responses.

    ``policies``: name -> {cell id: response}, each answering every full-support cell.
    ``tau``: name -> 0/1, either for every deterministic policy or for none.
    ``mixtures``: name -> {deterministic policy: weight}, weights > 0 summing to 1.
    """
    where = source
    axes, base, components = validate_layout(axes, base, components, where)
    cells = support_cells_of(axes, base, components, list(components))
    if not policies:
        raise InputError(f"{where}: no deterministic policy given")
    names = tuple(policies)
    if len(names) > MAX_POLICIES or len(names) * len(cells) > MAX_RESPONSES:
        raise InputError(f"{where}: {len(names):,} policies x {len(cells):,} cells; a class may hold at most "
                         f"{MAX_POLICIES:,} policies and {MAX_RESPONSES:,} responses (policies x cells)")
    mixtures = dict(mixtures or {})
    _check_names(names, mixtures, where)
    responses, codebook = _encode_responses(policies, cells, axes, where)
    oracle_row = _oracle_row(oracle, cells, axes, where)
    tau_arr = _tau_array(tau, policies, names, where)
    clean_mixtures = _clean_mixtures(mixtures, policies, where)
    descriptions = {k: str(v) for k, v in (descriptions or {}).items() if v}
    return PolicyClass(
        axes=axes, base=base, components=components, cells=cells, names=names,
        responses=responses, codebook=codebook, tau=tau_arr, mixtures=clean_mixtures,
        oracle=oracle_row, descriptions=descriptions, source=source,
    )


# --------------------------------------------------------------------------------------------
# The frozen reference class of paper 000 (docs/identification.md)

LABELS = ("TRUE", "FALSE", "UNKNOWN")
MAPPINGS = ("ABC", "ACB", "BAC", "BCA", "CAB", "CBA")
CANONICAL_MAPPING = "ABC"
FROZEN_AXES = {"world": ("base", "target", "sham"), "mapping": MAPPINGS, "readout": ("generated", "scoring")}
FROZEN_BASE = {"world": ("base",), "mapping": (CANONICAL_MAPPING,), "readout": ("generated",)}
FROZEN_COMPONENTS = {
    "target": {"world": ("target",)},
    "sham": {"world": ("sham",)},
    "readout": {"readout": ("scoring",)},
    "mapping": {"mapping": tuple(m for m in MAPPINGS if m != CANONICAL_MAPPING)},
}
# Solver oracle of the reference cluster: the target edit changes the label, the sham keeps it.
ORACLE_LABEL = {"base": "TRUE", "target": "UNKNOWN", "sham": "TRUE"}


def letter(mapping: str, label: str) -> str:
    """The letter a mapping gives to a semantic label (mapping letters are for TRUE, FALSE, UNKNOWN)."""
    return mapping[LABELS.index(label)]


def _ideal(world: str, mapping: str, readout: str) -> str:
    return letter(mapping, ORACLE_LABEL[world])


def _inertia(world: str, mapping: str, readout: str) -> str:
    return letter(mapping, ORACLE_LABEL["base"])


def _reactor(world: str, mapping: str, readout: str) -> str:
    return letter(mapping, ORACLE_LABEL["base"] if world == "base" else ORACLE_LABEL["target"])


def _fixed_label(world: str, mapping: str, readout: str) -> str:
    # The letter itself is fixed: whatever the mapping, it answers what ABC gives the base answer.
    return letter(CANONICAL_MAPPING, ORACLE_LABEL["base"])


def _mapping_shortcut(world: str, mapping: str, readout: str) -> str:
    return _ideal(world, mapping, readout) if mapping == CANONICAL_MAPPING else _inertia(world, mapping, readout)


def _generated_only_failure(world: str, mapping: str, readout: str) -> str:
    if readout == "generated" or world == "base":
        return _ideal(world, mapping, readout)
    return letter(mapping, "FALSE")


def _scoring_only_success(world: str, mapping: str, readout: str) -> str:
    return _ideal(world, mapping, readout) if readout == "scoring" else _inertia(world, mapping, readout)


FROZEN_POLICIES = (
    ("ideal", "ideal semantic updater", _ideal),
    ("target_inertia", "target inertia", _inertia),
    ("any_edit_reactor", "any-edit reactor", _reactor),
    ("fixed_label", "fixed-label responder", _fixed_label),
    ("mapping_shortcut", "mapping-conditional shortcut", _mapping_shortcut),
    ("generated_only_failure", "generated-only failure", _generated_only_failure),
    ("scoring_only_success", "scoring-only success", _scoring_only_success),
)
FROZEN_MIXTURES = {"half_inert": {"ideal": 0.5, "target_inertia": 0.5}}


def frozen_policy_class() -> PolicyClass:
    """The seven frozen deterministic policies + one mixture of paper 000, built from behaviour.

    τ is τ_full computed from the oracle (agreement on all 36 cells), so only ``ideal`` has τ = 1.
    """
    cells = support_cells_of(FROZEN_AXES, FROZEN_BASE, FROZEN_COMPONENTS, list(FROZEN_COMPONENTS))
    split = [split_cell_id(c) for c in cells]
    policies = {name: {c: fn(*parts) for c, parts in zip(cells, split, strict=True)} for name, _, fn in FROZEN_POLICIES}
    oracle = {c: _ideal(*parts) for c, parts in zip(cells, split, strict=True)}
    tau = {name: int(all(policies[name][c] == oracle[c] for c in cells)) for name in policies}
    return build_policy_class(
        FROZEN_AXES, FROZEN_BASE, FROZEN_COMPONENTS, policies, tau=tau, mixtures=FROZEN_MIXTURES,
        oracle=oracle, descriptions={name: text for name, text, _ in FROZEN_POLICIES},
        source="frozen policy class",
    )
