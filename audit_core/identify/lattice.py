"""The lattice of component subsets and the leave-one-out audit (paper 000).

Every one of the 2^k subsets of the k components is a support; for each we report classes and
collisions. Leave-one-out removes one component from the full support: its witnesses are the
collisions that appear; its exclusive witnesses are those the full support separates (so the
removed component is what separated them). Corollaries are sentences built from those witnesses.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from audit_core.errors import InputError
from audit_core.identify.equivalence import identify
from audit_core.identify.policies import PolicyClass

MAX_LATTICE_COMPONENTS = 12
# The lattice runs ``identify`` on each of the 2^k supports, each over every policy, and keeps every
# support's classes and collisions: time and memory grow with 2^k x policies (issue 18: 12
# components x 512 policies took 59 s and 4 GB in the explorer). 32,768 keeps one lattice under
# about a second and a few tens of MB (e.g. 12 components x 8 policies, 8 x 128, 4 x 2,048).
MAX_LATTICE_WORK = 16_384


@dataclass(frozen=True)
class LatticeNode:
    """One support of the lattice; ``cells`` are the cell ids (``to_dict`` gives their count)."""

    components: tuple[str, ...]
    cells: tuple[str, ...]
    n_classes: int
    n_collisions: int
    identified: bool
    classes: tuple[tuple[str, ...], ...] = ()
    collisions: tuple[tuple[str, str], ...] = ()

    def __repr__(self) -> str:
        return f"LatticeNode({'+'.join(self.components) or 'base'}: {self.n_classes} classes, {self.n_collisions} collisions)"

    def to_dict(self) -> dict:
        return {
            "components": list(self.components),
            "cells": len(self.cells),
            "n_classes": self.n_classes,
            "n_collisions": self.n_collisions,
            "identified": self.identified,
            "classes": [list(c) for c in self.classes],
            "collisions": [list(p) for p in self.collisions],
        }


@dataclass(frozen=True)
class LeaveOneOut:
    """Full support minus one component: the collisions that appear and what they show."""

    removed: str
    cells: tuple[str, ...]
    n_collisions: int
    witnesses: tuple[tuple[str, str], ...]
    exclusive_witnesses: tuple[tuple[str, str], ...]
    corollary: str

    def __repr__(self) -> str:
        return f"LeaveOneOut(-{self.removed}: {self.n_collisions} collisions)"

    @property
    def necessary(self) -> bool:
        """The component separates at least one pair that nothing else separates."""
        return bool(self.exclusive_witnesses)

    def to_dict(self) -> dict:
        return {
            "removed": self.removed,
            "cells": len(self.cells),
            "n_collisions": self.n_collisions,
            "witnesses": [list(p) for p in self.witnesses],
            "exclusive_witnesses": [list(p) for p in self.exclusive_witnesses],
            "necessary": self.necessary,
            "corollary": self.corollary,
        }


@dataclass(frozen=True)
class Lattice:
    estimand: str
    supports: tuple[LatticeNode, ...]
    leave_one_out: tuple[LeaveOneOut, ...]

    def __repr__(self) -> str:
        return f"Lattice({len(self.supports)} supports, estimand={self.estimand!r})"

    def node(self, components) -> LatticeNode:
        """The node whose component set equals ``components`` (any order)."""
        wanted = set(components)
        for n in self.supports:
            if set(n.components) == wanted:
                return n
        raise InputError(f"no lattice node for components {sorted(wanted)}")

    def to_dict(self) -> dict:
        return {
            "estimand": self.estimand,
            "supports": [n.to_dict() for n in self.supports],
            "leave_one_out": [loo.to_dict() for loo in self.leave_one_out],
        }


def _join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _named(pc: PolicyClass, name: str, tau: dict[str, int]) -> str:
    """A policy in a sentence: its name, with its description when it has one. Descriptions are
    the user's words (a noun phrase or a clause), so they are quoted, never spliced into the grammar."""
    description = pc.descriptions.get(name)
    return f"{name} (“{description}”, τ={tau[name]})" if description else f"{name} (τ={tau[name]})"


def corollary_text(pc: PolicyClass, removed: str, n_remaining: int, exclusive: list[tuple[str, str]],
                   separating: dict[tuple[str, str], tuple[str, ...]], tau: dict[str, int]) -> str:
    """An insufficiency statement built from the exclusive witnesses of one removed component."""
    if not exclusive:
        return (
            f"{removed} is not necessary: without it ({n_remaining} of {len(pc.cells)} cells) no pair "
            "that the full support separates becomes equivalent."
        )
    by_first: dict[str, list[str]] = {}
    for a, b in exclusive:
        by_first.setdefault(a, []).append(b)
    parts = []
    for a, bs in by_first.items():
        others = _join([_named(pc, b, tau) for b in bs])
        parts.append(f"{_named(pc, a, tau)} with {others}")
    first_pair = exclusive[0]
    cells = separating.get(first_pair, ())
    where = (
        f"; {first_pair[0]} and {first_pair[1]} differ only on {len(cells)} cell(s) that {removed} adds, "
        f"e.g. {cells[0]}" if cells else ""
    )
    return (
        f"{removed.capitalize()} insufficiency: without {removed} ({n_remaining} of {len(pc.cells)} cells) "
        f"the support equates {'; '.join(parts)}{where}."
    )


class LatticeTooLarge(InputError):
    """More components than :data:`MAX_LATTICE_COMPONENTS`, or 2^k supports x policies above
    :data:`MAX_LATTICE_WORK`: the supports are not enumerated."""


def lattice(pc: PolicyClass, estimand: str = "tau_full") -> Lattice:
    """All 2^k component subsets (by rank, then component listing order) and leave-one-out."""
    names = pc.component_names
    if len(names) > MAX_LATTICE_COMPONENTS:
        raise LatticeTooLarge(
            f"{pc.source}: {len(names)} components give 2^{len(names)} supports; the lattice is limited "
            f"to {MAX_LATTICE_COMPONENTS} components"
        )
    work = (1 << len(names)) * len(pc.names)
    if work > MAX_LATTICE_WORK:
        raise LatticeTooLarge(
            f"{pc.source}: 2^{len(names)} supports x {len(pc.names):,} policies = {work:,}; the lattice is limited "
            f"to {MAX_LATTICE_WORK:,} (supports x policies)"
        )
    nodes = []
    for rank in range(len(names) + 1):
        for combo in itertools.combinations(names, rank):
            r = identify(pc, combo, estimand)
            nodes.append(LatticeNode(
                combo, r.cells, r.n_classes, r.n_collisions, r.identified,
                tuple(tuple(c) for c in r.classes), tuple(r.collisions),
            ))
    full = identify(pc, None, estimand)
    unseparated = set(full.collisions)
    loo = []
    for removed in names:
        r = identify(pc, [c for c in names if c != removed], estimand, max_pairs=None)
        exclusive = [p for p in r.collisions if p not in unseparated]
        text = corollary_text(pc, removed, len(r.cells), exclusive, r.separating_cells, r.tau)
        loo.append(LeaveOneOut(removed, r.cells, r.n_collisions, tuple(r.collisions), tuple(exclusive), text))
    return Lattice(estimand, tuple(nodes), tuple(loo))
