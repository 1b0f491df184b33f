"""``testbed check``: re-derive every label and every edit's effect of an items file.

Per item: the cell's axes match its id; the solver's label of the item's theory is the stated
oracle (an inconsistent theory is a mismatch); the correct letter is the oracle's letter under the
mapping; the options and the prompt are those the theory and the cell render to; the item's
oracles of the worlds give its own world's oracle. Per cluster: every cell the file covers (all 36,
or the cells of the support the items were made for) present once; one theory and one edit per world; the base world has no edit; applying the
target (sham) edit to the base theory gives the target (sham) theory; the target label differs from
the base label and the sham label equals it; the sham really changes the theory, by an addition
or by removing a rule that no derivation uses (the derivable set is unchanged without it); the
stated direction is (base label, target label). A cluster of a reduced support without items of
every world is checked on the oracles of the worlds its items carry (target differs, sham keeps).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from audit_core.identify import parse_cell_id
from audit_core.identify.policies import letter
from audit_core.testbed.generator import ARROW, parse_direction
from audit_core.testbed.items import Item, frozen_layout, options_of, render_prompt
from audit_core.testbed.solver import INCONSISTENT, derived_literals, solve
from audit_core.testbed.theory import Theory

SHAM_KINDS = ("add_fact", "add_rule", "remove_rule")
MAX_LISTED = 50


@dataclass(frozen=True)
class CheckReport:
    """Outcome of :func:`check_items`: counts and the first ``MAX_LISTED`` mismatch messages."""

    n_items: int
    n_clusters: int
    n_mismatches: int
    mismatches: tuple[str, ...]

    def __repr__(self) -> str:
        return f"CheckReport({self.n_items} items, {self.n_clusters} clusters, {self.n_mismatches} mismatches)"

    @property
    def ok(self) -> bool:
        return self.n_mismatches == 0

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "n_items": self.n_items, "n_clusters": self.n_clusters,
                "n_mismatches": self.n_mismatches, "mismatches": list(self.mismatches)}


class _Labels:
    """Solver labels cached by theory content (the 12 items of a world share one theory)."""

    def __init__(self) -> None:
        self.cache: dict[tuple, str] = {}

    def __call__(self, theory: Theory) -> str:
        key = theory.content_key()
        if key not in self.cache:
            self.cache[key] = solve(theory).label
        return self.cache[key]


def _item_problems(item: Item, label: str, axes) -> list[str]:
    where = f"{item.cluster} {item.cell}"
    parts = parse_cell_id(item.cell, axes)
    out = [f"{where}: field {axis!r} is {getattr(item, axis)!r} but the cell says {value!r}"
           for axis, value in parts.items() if getattr(item, axis) != value]
    if label == INCONSISTENT:
        return out + [f"{where}: the theory is inconsistent (an atom is derived with both signs)"]
    if item.oracle != label:
        out.append(f"{where}: oracle is {item.oracle!r} but the solver derives {label}")
    if item.oracles and item.world_oracles.get(item.world) != label:
        out.append(f"{where}: the oracles of the worlds give {item.world_oracles.get(item.world)!r} in world "
                   f"{item.world!r} but the solver derives {label}")
    if item.correct != letter(parts["mapping"], label):
        out.append(f"{where}: correct letter is {item.correct!r} but {label} is "
                   f"{letter(parts['mapping'], label)!r} under mapping {parts['mapping']}")
    if item.options != options_of(parts["mapping"]):
        out.append(f"{where}: options {dict(item.options)} do not follow mapping {parts['mapping']}")
    if item.prompt != render_prompt(item.theory, parts["mapping"], parts["readout"]):
        out.append(f"{where}: the prompt is not the rendering of the item's theory and cell")
    return out


def _one(values: Iterable, what: str, where: str, out: list[str]):
    distinct = {json.dumps(v, sort_keys=True): v for v in values}
    if len(distinct) > 1:
        out.append(f"{where}: the items disagree on the {what}")
    return next(iter(distinct.values()))


def _cluster_problems(name: str, items: list[Item], labels: _Labels, cells) -> list[str]:
    out: list[str] = []
    seen = [i.cell for i in items]
    missing = [c for c in cells if c not in seen]
    if missing:
        out.append(f"{name}: {len(missing)} of {len(cells)} cells missing (first {missing[0]})")
    repeated = sorted({c for c in seen if seen.count(c) > 1})
    if repeated:
        out.append(f"{name}: cell {repeated[0]} appears more than once")
    by_world = defaultdict(list)
    for item in items:
        by_world[item.world].append(item)
    if set(by_world) != {"base", "target", "sham"}:
        # Items of a reduced support: the worlds' oracles travel with every item instead.
        oracles = {json.dumps(i.world_oracles, sort_keys=True) for i in items}
        if not all(i.oracles for i in items):
            return out + [f"{name}: needs items of the worlds base, target and sham (or the oracles of all "
                          "three worlds on every item)"]
        if len(oracles) > 1:
            return out + [f"{name}: the items disagree on the oracles of the worlds"]
        lab = items[0].world_oracles
        direction = parse_direction(_one([i.direction for i in items], "direction", name, out))
        if lab["target"] == lab["base"] or lab["sham"] != lab["base"]:
            out.append(f"{name}: the oracles {lab} do not have a target edit that changes the label and a sham "
                       "that keeps it")
        if direction != (lab["base"], lab["target"]):
            out.append(f"{name}: direction {direction[0]}{ARROW}{direction[1]} but the oracles give "
                       f"{lab['base']}{ARROW}{lab['target']}")
        return out
    theory, edit = {}, {}
    for world, group in by_world.items():
        theory[world] = Theory.from_dict(_one([i.theory.to_dict() for i in group], f"{world} theory", name, out))
        raw_edit = _one([None if i.edit is None else i.edit.to_dict() for i in group], f"{world} edit", name, out)
        edit[world] = next(i.edit for i in group if (None if i.edit is None else i.edit.to_dict()) == raw_edit)
    direction = parse_direction(_one([i.direction for i in items], "direction", name, out))
    if edit["base"] is not None:
        out.append(f"{name}: the base world carries an edit")
    lab = {w: labels(theory[w]) for w in theory}
    for world in ("target", "sham"):
        if edit[world] is None:
            out.append(f"{name}: the {world} world has no edit")
            continue
        try:
            edited = edit[world].apply(theory["base"])
        except ValueError as exc:
            out.append(f"{name}: the {world} edit does not apply to the base theory ({exc})")
            continue
        if not edited.same_content(theory[world]):
            out.append(f"{name}: applying the {world} edit to the base theory does not give the {world} theory")
    if lab["target"] == lab["base"]:
        out.append(f"{name}: the target edit keeps the oracle {lab['base']}")
    if lab["sham"] != lab["base"]:
        out.append(f"{name}: the sham edit changes the oracle {lab['base']} to {lab['sham']}")
    if theory["sham"].same_content(theory["base"]):
        out.append(f"{name}: the sham theory is the base theory (no real change)")
    sham_edit = edit["sham"]
    if sham_edit is not None and sham_edit.kind not in SHAM_KINDS:
        out.append(f"{name}: sham edit {sham_edit.kind!r} is none of {', '.join(SHAM_KINDS)}")
    if sham_edit is not None and sham_edit.kind == "remove_rule" and \
            derived_literals(theory["sham"]) != derived_literals(theory["base"]):
        out.append(f"{name}: the sham removes a rule that a derivation uses")
    if direction != (lab["base"], lab["target"]):
        out.append(f"{name}: direction {direction[0]}{ARROW}{direction[1]} but the solver gives "
                   f"{lab['base']}{ARROW}{lab['target']}")
    return out


def check_items(items: Iterable[Item]) -> CheckReport:
    """Re-derive everything an items file states (module docstring)."""
    items = list(items)
    axes, cells = frozen_layout()
    labels = _Labels()
    problems: list[str] = []
    clusters: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        problems += _item_problems(item, labels(item.theory), axes)
        clusters[item.cluster].append(item)
    covered = {i.cell for i in items}
    support = tuple(c for c in cells if c in covered)  # the items of a reduced support cover fewer cells
    for name, group in clusters.items():
        problems += _cluster_problems(name, group, labels, support)
    return CheckReport(len(items), len(clusters), len(problems), tuple(problems[:MAX_LISTED]))
