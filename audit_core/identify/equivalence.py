"""Observational equivalence, cross-estimand collisions and identification (paper 000, Theorem 1).

Two deterministic policies are equivalent on a support O when they give the same response in
every cell of O. τ is point-identified on O iff no two policies with different τ are equivalent.
Classes come from hashing rows in one pass: the support's columns of each row are viewed as one
``np.void`` scalar and a 1-D ``np.unique(return_inverse=True)`` labels them; the collision count
is Σ over classes of n(τ=0)·n(τ=1). Mixtures are compared by their per-cell response
distributions; the report gives the classes their components occupy, never their weights.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from audit_core.errors import InputError
from audit_core.identify.estimands import estimand_values
from audit_core.identify.policies import PolicyClass, support_cells

DEFAULT_MAX_PAIRS = 10_000


def row_classes(codes: np.ndarray) -> tuple[np.ndarray, int]:
    """Label equal rows of a 2-D integer array: ``(labels, n_classes)``.

    Labels are numbered by first appearance, so the output does not depend on byte order.
    One pass: each row is one ``np.void`` scalar, then a 1-D unique with inverse.
    """
    n = codes.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64), 0
    if codes.ndim != 2 or codes.shape[1] == 0:
        return np.zeros(n, dtype=np.int64), 1
    rows = np.ascontiguousarray(codes)
    keys = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    # Renumber classes by the first row that falls in them.
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    return rank[inverse.ravel()], int(first.size)


def collision_count(labels: np.ndarray, tau: np.ndarray, n_classes: int) -> int:
    """Σ over classes of n(τ=0)·n(τ=1): the number of cross-estimand collisions."""
    ones = np.bincount(labels, weights=tau.astype(np.float64), minlength=n_classes).astype(np.int64)
    sizes = np.bincount(labels, minlength=n_classes).astype(np.int64)
    return int(np.sum(ones * (sizes - ones)))


def collision_pairs(labels: np.ndarray, tau: np.ndarray, max_pairs: int | None = None) -> list[tuple[int, int]]:
    """Index pairs (τ=1 policy, τ=0 policy) equivalent on the support, sorted; at most ``max_pairs``.

    Walks the τ=1 policies in index order, so the first ``max_pairs`` pairs come out already
    sorted without building the (possibly huge) full list.
    """
    zeros_by_class: dict[int, np.ndarray] = {}
    zero_idx = np.flatnonzero(tau == 0)
    if zero_idx.size:
        order = np.argsort(labels[zero_idx], kind="stable")
        sorted_idx = zero_idx[order]
        bounds = np.flatnonzero(np.diff(labels[sorted_idx])) + 1
        for group in np.split(sorted_idx, bounds):
            zeros_by_class[int(labels[group[0]])] = group
    pairs: list[tuple[int, int]] = []
    limit = np.inf if max_pairs is None else max_pairs
    for a in np.flatnonzero(tau == 1):
        for b in zeros_by_class.get(int(labels[a]), ()):
            if len(pairs) >= limit:
                return pairs
            pairs.append((int(a), int(b)))
    return pairs


def resolve_support(
    pc: PolicyClass, components: Sequence[str] | None = None, cells: Sequence[str] | None = None
) -> tuple[tuple[str, ...] | None, tuple[str, ...]]:
    """``(components, cells)`` of the support asked for: explicit cells, or a component set."""
    if cells is not None:
        if components is not None:
            raise InputError("give either components or cells, not both")
        cells = tuple(dict.fromkeys(cells))
        order = pc.cell_index
        pc.columns(cells)  # raises for unknown ids
        return None, tuple(sorted(cells, key=order.__getitem__))
    chosen = pc.component_names if components is None else tuple(dict.fromkeys(components))
    return chosen, support_cells(pc, chosen)


@dataclass(frozen=True)
class MixtureReport:
    """What the support reveals about one mixture: its class signature, never its weights."""

    name: str
    weights: dict[str, float]
    component_classes: dict[str, int]
    signature: tuple[int, ...]
    equivalent_policies: tuple[str, ...]
    equivalent_mixtures: tuple[str, ...]
    statement: str
    weights_identified: bool = False

    def __repr__(self) -> str:
        return f"MixtureReport({self.name!r}, signature={self.signature})"

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "class_signature": list(self.signature),
            "component_classes": dict(self.component_classes),
            "equivalent_policies": list(self.equivalent_policies),
            "equivalent_mixtures": list(self.equivalent_mixtures),
            "weights_identified": self.weights_identified,
            "statement": self.statement,
        }


@dataclass(frozen=True)
class Identification:
    """Result of :func:`identify` on one support (0-based class indices in ``mixture_signatures``)."""

    estimand: str
    components: tuple[str, ...] | None
    cells: tuple[str, ...]
    n_classes: int
    classes: list[list[str]]
    n_collisions: int
    collisions: list[tuple[str, str]]
    separating_cells: dict[tuple[str, str], tuple[str, ...]]
    identified: bool
    mixture_signatures: dict[str, tuple[int, ...]]
    tau: dict[str, int] = field(default_factory=dict)
    mixtures: tuple[MixtureReport, ...] = ()
    collisions_truncated: bool = False

    def __repr__(self) -> str:
        return (
            f"Identification({len(self.cells)} cells, {self.n_classes} classes, "
            f"{self.n_collisions} collisions, identified={self.identified})"
        )

    def to_dict(self) -> dict:
        """CLI JSON shape (docs/cli.md) plus detail fields."""
        return {
            "cells": len(self.cells),
            "n_classes": self.n_classes,
            "classes": [list(c) for c in self.classes],
            "n_collisions": self.n_collisions,
            "collisions": [list(p) for p in self.collisions],
            "identified": self.identified,
            "estimand": self.estimand,
            "components": None if self.components is None else list(self.components),
            "cell_ids": list(self.cells),
            "tau": dict(self.tau),
            "collisions_truncated": self.collisions_truncated,
            "separating_cells": [
                {"pair": list(p), "cells": list(c)} for p, c in self.separating_cells.items()
            ],
            "mixtures": {m.name: m.to_dict() for m in self.mixtures},
        }


def _distribution_key(pc: PolicyClass, weights: dict[str, float], cols: np.ndarray) -> tuple:
    """Per-cell response distribution of a weighted set of policies, as a hashable key."""
    index = pc.policy_index
    key = []
    for col in cols:
        dist: dict[int, float] = {}
        for comp, w in weights.items():
            code = int(pc.responses[index[comp], col])
            dist[code] = dist.get(code, 0.0) + w
        # Rounded so that 0.1 + 0.2 and 0.3 count as the same probability.
        key.append(tuple(sorted((c, round(p, 9)) for c, p in dist.items())))
    return tuple(key)


def _mixture_reports(pc: PolicyClass, cols: np.ndarray, labels: np.ndarray, classes: list[list[str]]) -> tuple[MixtureReport, ...]:
    if not pc.mixtures:
        return ()
    index = pc.policy_index
    keys = {m: _distribution_key(pc, w, cols) for m, w in pc.mixtures.items()}
    reports = []
    for m, weights in pc.mixtures.items():
        comp_classes = {c: int(labels[index[c]]) for c in weights}
        signature = tuple(sorted(set(comp_classes.values())))
        equivalent = ()
        if len(signature) == 1:
            # A point mass on one class's responses: every member of that class looks the same.
            equivalent = tuple(classes[signature[0]])
        same_mix = tuple(o for o in pc.mixtures if o != m and keys[o] == keys[m])
        class_text = "; ".join(f"class {k + 1} ({', '.join(classes[k])})" for k in signature)
        weight_text = ", ".join(f"{c}={w:g}" for c, w in weights.items())
        statement = (
            f"{m} mixes {len(weights)} policies occupying {len(signature)} class(es): {class_text}. "
            f"The support reveals this class signature only; the weights ({weight_text}) are not identified"
        )
        if equivalent:
            statement += f", and {m} is observationally equivalent to {', '.join(equivalent)}"
        if same_mix:
            statement += f"; same per-cell response distributions as {', '.join(same_mix)}"
        reports.append(MixtureReport(m, dict(weights), comp_classes, signature, equivalent, same_mix, statement + "."))
    return tuple(reports)


def identify(
    pc: PolicyClass,
    components: Sequence[str] | None = None,
    estimand: str = "tau_full",
    cells: Sequence[str] | None = None,
    max_pairs: int = DEFAULT_MAX_PAIRS,
) -> Identification:
    """Equivalence classes, cross-estimand collisions and point identification of τ on a support.

    The support is ``cells`` if given, else the support of ``components`` (None = all = full).
    ``collisions`` lists at most ``max_pairs`` pairs (``n_collisions`` is always exact).
    """
    chosen, support = resolve_support(pc, components, cells)
    tau = estimand_values(pc, estimand)
    cols = pc.columns(support)
    labels, n_classes = row_classes(pc.responses[:, cols])
    members: list[list[str]] = [[] for _ in range(n_classes)]
    for name, lab in zip(pc.names, labels, strict=True):
        members[lab].append(name)
    n_coll = collision_count(labels, tau, n_classes)
    pairs = collision_pairs(labels, tau, max_pairs)
    named = [(pc.names[a], pc.names[b]) for a, b in pairs]
    mixtures = _mixture_reports(pc, cols, labels, members)
    separating: dict[tuple[str, str], tuple[str, ...]] = {}
    if pairs:
        a_idx = np.array([a for a, _ in pairs])
        b_idx = np.array([b for _, b in pairs])
        differ = pc.responses[a_idx] != pc.responses[b_idx]
        cells_arr = np.asarray(pc.cells, dtype=object)
        for pair, row in zip(named, differ, strict=True):
            separating[pair] = tuple(cells_arr[row])
    return Identification(
        estimand=estimand,
        components=chosen,
        cells=support,
        n_classes=n_classes,
        classes=members,
        n_collisions=n_coll,
        collisions=named,
        separating_cells=separating,
        identified=n_coll == 0,
        mixture_signatures={m.name: m.signature for m in mixtures},
        tau={n: int(t) for n, t in zip(pc.names, tau, strict=True)},
        mixtures=mixtures,
        collisions_truncated=len(pairs) < n_coll,
    )
