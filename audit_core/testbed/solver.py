"""Three-valued oracle of a signed-Horn theory by forward chaining (paper 000, the "solver").

The derivable literals are the least set that contains the facts and, for every rule whose body
literals are all in it, the rule's head (the least fixpoint of the immediate-consequence operator
T(S) = facts ∪ {head(r) : body(r) ⊆ S}). For the query atom ``q`` the oracle is

    TRUE if q is derivable, FALSE if -q is derivable, UNKNOWN if neither,

and INCONSISTENT when any atom ``a`` has both ``a`` and ``-a`` derivable (such a theory has no
consistent reading; the generator never emits one and ``testbed check`` rejects it).

:func:`solve` computes the fixpoint by counter-based unit propagation: each rule keeps the number
of its distinct body literals not yet derived; deriving a literal decrements the counters of the
rules that watch it, and a counter reaching 0 derives the head. Every body literal is visited once,
so the time is linear in :attr:`Theory.size`. :func:`naive_closure` iterates T until nothing
changes (O(depth x size)); it is the reference for tests and the benchmark's baseline.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from audit_core.testbed.theory import Theory, atom_of, complement, is_negative

TRUE, FALSE, UNKNOWN = "TRUE", "FALSE", "UNKNOWN"
INCONSISTENT = "INCONSISTENT"
LABELS = (TRUE, FALSE, UNKNOWN)


@dataclass(frozen=True)
class Solution:
    """The oracle of a theory: ``label`` (TRUE/FALSE/UNKNOWN, or INCONSISTENT), the derivable
    literals, and the atoms derived with both signs (empty unless INCONSISTENT)."""

    label: str
    query: str
    derived: frozenset[str]
    conflicts: tuple[str, ...]

    def __repr__(self) -> str:
        return f"Solution({self.query}: {self.label}, {len(self.derived)} derived literals)"

    @property
    def consistent(self) -> bool:
        return not self.conflicts

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "query": self.query, "derived": sorted(self.derived),
                "conflicts": list(self.conflicts)}


def label_of(query: str, derived: frozenset[str] | set[str]) -> tuple[str, tuple[str, ...]]:
    """(label, conflicting atoms) of a set of derivable literals (module docstring)."""
    conflicts = tuple(sorted(atom_of(x) for x in derived if is_negative(x) and complement(x) in derived))
    if conflicts:
        return INCONSISTENT, conflicts
    if query in derived:
        return TRUE, ()
    if complement(query) in derived:
        return FALSE, ()
    return UNKNOWN, ()


def _intern(theory: Theory) -> tuple[dict[str, int], list[int], list[list[int]], list[int]]:
    """Literal ids (first appearance order), fact ids, distinct body ids per rule, head ids."""
    ids: dict[str, int] = {}
    get = ids.setdefault  # get(literal, len(ids)) interns a new literal with the next id
    facts = [get(f, len(ids)) for f in theory.facts]
    bodies, heads = [], []
    for rule in theory.rules:
        body = [get(x, len(ids)) for x in rule.body]
        bodies.append(body if len(body) == 1 else list(dict.fromkeys(body)))
        heads.append(get(rule.head, len(ids)))
    return ids, facts, bodies, heads


def forward_chain(n_literals: int, facts: list[int], bodies: list[list[int]], heads: list[int]) -> bytearray:
    """Derived flag per literal id by counter-based unit propagation (linear in the input size).

    ``bodies[r]`` must list distinct literal ids (the counter starts at its length).
    """
    watchers: list[list[int]] = [[] for _ in range(n_literals)]
    remaining = list(map(len, bodies))
    for r, body in enumerate(bodies):
        for lit in body:
            watchers[lit].append(r)
    derived = bytearray(n_literals)
    stack = []
    for f in facts:
        if not derived[f]:
            derived[f] = 1
            stack.append(f)
    while stack:
        for r in watchers[stack.pop()]:
            remaining[r] -= 1
            if not remaining[r]:
                head = heads[r]
                if not derived[head]:
                    derived[head] = 1
                    stack.append(head)
    return derived


def derived_literals(theory: Theory) -> frozenset[str]:
    """All derivable literals of ``theory`` (forward chaining)."""
    ids, facts, bodies, heads = _intern(theory)
    flags = forward_chain(len(ids), facts, bodies, heads)
    return frozenset(lit for lit, i in ids.items() if flags[i])


def solve(theory: Theory) -> Solution:
    """The three-valued oracle of ``theory``'s query (module docstring)."""
    derived = derived_literals(theory)
    label, conflicts = label_of(theory.query, derived)
    return Solution(label, theory.query, derived, conflicts)


def oracle_label(theory: Theory) -> str:
    """TRUE, FALSE, UNKNOWN or INCONSISTENT for ``theory``'s query."""
    return solve(theory).label


def naive_closure(theory: Theory) -> frozenset[str]:
    """The least fixpoint by iterating S_{i+1} = T(S_i) = facts ∪ {head : body ⊆ S_i} from S_0 = ∅.

    One pass over all rules per round and as many rounds as the longest derivation: the reference
    definition (quadratic on chains), used by the tests and as the benchmark's baseline.
    """
    facts = frozenset(theory.facts)
    bodies = [(frozenset(r.body), r.head) for r in theory.rules]
    derived: frozenset[str] = frozenset()
    while True:
        step = facts | {head for body, head in bodies if body <= derived}
        if step == derived:
            return derived
        derived = step
