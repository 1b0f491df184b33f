"""Seeded clusters of the signed-Horn testbed: a base theory, a target edit, a sham edit.

A cluster of direction (b, t) has a base theory whose oracle is ``b``, a *target* edit after which
the oracle is ``t`` (≠ b), and a *sham* edit that really changes the theory but keeps the oracle
``b`` (paper 000: "the target world applies an edit that changes the solver oracle; the sham world
applies an edit that preserves it"). The six directions among TRUE, FALSE and UNKNOWN are assigned
to clusters in turn, so any selection of them is balanced (counts differ by at most one).

Construction (every cluster is re-checked with the solver before it is returned):

* a derivation chain of ``depth`` rules ``c0 → c1 → ... → c_{d-1} → ±q`` (some chain rules also
  need a distractor fact in their body); the fact ``c0`` is present when the base is TRUE or
  FALSE; the head is ``q`` for TRUE, ``-q`` for FALSE (for an UNKNOWN base, the sign the target
  needs);
* ``distractors`` rules over distractor atoms (bodies may also mention chain atoms, heads never
  touch the chain or the query), plus a few distractor facts. Each distractor atom has one sign for
  facts and heads, so no atom can ever be derived with both signs;
* target edit: UNKNOWN → TRUE/FALSE adds the fact ``c0``; TRUE/FALSE → UNKNOWN removes ``c0`` or
  one chain rule; TRUE ↔ FALSE replaces the last chain rule by the one with the opposite head;
* sham edit, drawn among what is possible: add an irrelevant fact (a distractor literal not yet a
  fact), add an irrelevant rule (its body holds a literal nothing derives), or remove a distractor
  rule that no derivation uses (the derivable set is the same without it).

Controls: ``depth`` (derivation depth of the query), ``distractors`` (number of distractor rules),
``vocabulary`` (the atom names drawn from). Cluster ``k`` of seed ``s`` depends only on (s, k).
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from audit_core.errors import InputError
from audit_core.testbed.solver import (
    LABELS,
    TRUE,
    UNKNOWN,
    derived_literals,
    solve,
)
from audit_core.testbed.theory import (
    ATOM_PATTERN,
    NEGATION,
    Rule,
    Theory,
    parse_literal,
)

if TYPE_CHECKING:
    import numpy as np

DIRECTIONS: tuple[tuple[str, str], ...] = tuple((a, b) for a in LABELS for b in LABELS if a != b)
ARROW = "→"
EDIT_KINDS = ("add_fact", "remove_fact", "add_rule", "remove_rule", "replace_rule")
DEFAULT_VOCABULARY = (
    "bright", "calm", "cold", "dark", "dry", "empty", "fast", "fragile", "full", "green", "hard",
    "heavy", "hollow", "hot", "large", "light", "loud", "metallic", "narrow", "old", "open", "quiet",
    "red", "round", "rough", "sharp", "shiny", "small", "smooth", "soft", "sticky", "strong", "sweet",
    "tall", "thin", "warm", "wet", "wide", "wooden", "young",
)


def direction_name(direction: tuple[str, str]) -> str:
    return f"{direction[0]}{ARROW}{direction[1]}"


def parse_direction(text: str) -> tuple[str, str]:
    """``TRUE→UNKNOWN``, ``TRUE-UNKNOWN``, ``TRUE>UNKNOWN`` or ``T-U`` (any case) -> (base, target)."""
    raw = str(text).strip().upper()
    for sep in (ARROW, "->", ">", "-", ":"):
        if sep in raw:
            parts = [p.strip() for p in raw.split(sep)]
            break
    else:
        parts = [raw]
    short = {label[0]: label for label in LABELS}
    labels = [short.get(p, p) for p in parts]
    if len(labels) != 2 or any(p not in LABELS for p in labels) or labels[0] == labels[1]:
        raise InputError(f"direction {text!r}: write BASE-TARGET with two different labels among "
                         f"{', '.join(LABELS)} (e.g. TRUE-UNKNOWN or T-U)")
    return labels[0], labels[1]


@dataclass(frozen=True)
class Edit:
    """One change to a theory: ``kind`` in EDIT_KINDS with its ``fact`` or ``rule`` (and, for
    ``replace_rule``, the ``new_rule`` that takes the place of ``rule``)."""

    kind: str
    fact: str | None = None
    rule: Rule | None = None
    new_rule: Rule | None = None

    def __repr__(self) -> str:
        what = self.fact if self.fact is not None else self.rule
        return f"Edit({self.kind} {what}{' -> ' + repr(self.new_rule) if self.new_rule else ''})"

    def apply(self, theory: Theory) -> Theory:
        """The edited theory; InputError when the edit does not fit (e.g. removes what is absent)."""
        if self.kind == "add_fact":
            return replace(theory, facts=theory.facts + (self.fact,))
        if self.kind == "remove_fact":
            if self.fact not in theory.facts:
                raise InputError(f"edit {self.kind}: fact {self.fact!r} is not in the theory")
            return replace(theory, facts=tuple(f for f in theory.facts if f != self.fact))
        if self.kind == "add_rule":
            return replace(theory, rules=theory.rules + (self.rule,))
        keys = [r.key() for r in theory.rules]
        if self.rule.key() not in keys:
            raise InputError(f"edit {self.kind}: rule {self.rule.to_dict()} is not in the theory")
        at = keys.index(self.rule.key())
        rest = theory.rules[:at] + ((self.new_rule,) if self.kind == "replace_rule" else ()) + theory.rules[at + 1:]
        return replace(theory, rules=rest)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        if self.fact is not None:
            out["fact"] = self.fact
        if self.rule is not None:
            out["rule"] = self.rule.to_dict()
        if self.new_rule is not None:
            out["new_rule"] = self.new_rule.to_dict()
        return out

    @classmethod
    def from_dict(cls, data: Any, where: str = "edit") -> Edit:
        if not isinstance(data, Mapping) or data.get("kind") not in EDIT_KINDS:
            raise InputError(f"{where}: must be an object whose 'kind' is one of {', '.join(EDIT_KINDS)}, got {data!r}")
        kind = data["kind"]
        needs = {"add_fact": ("fact",), "remove_fact": ("fact",), "add_rule": ("rule",),
                 "remove_rule": ("rule",), "replace_rule": ("rule", "new_rule")}[kind]
        if set(data) - {"kind"} != set(needs):
            raise InputError(f"{where}: edit {kind!r} needs exactly the key(s) {', '.join(needs)}")
        return cls(kind,
                   fact=parse_literal(data["fact"], f"{where} 'fact'") if "fact" in needs else None,
                   rule=Rule.from_dict(data["rule"], f"{where} 'rule'") if "rule" in needs else None,
                   new_rule=Rule.from_dict(data["new_rule"], f"{where} 'new_rule'") if "new_rule" in needs else None)


@dataclass(frozen=True)
class GeneratorParams:
    """Controls of the generator (module docstring); :meth:`validated` checks them."""

    depth: int = 3
    distractors: int = 6
    vocabulary: tuple[str, ...] = DEFAULT_VOCABULARY
    directions: tuple[tuple[str, str], ...] = DIRECTIONS

    def __repr__(self) -> str:
        return (f"GeneratorParams(depth={self.depth}, distractors={self.distractors}, "
                f"{len(self.vocabulary)} atoms, {len(self.directions)} directions)")

    @property
    def n_distractor_atoms(self) -> int:
        return min(len(self.vocabulary) - self.depth - 1, max(3, self.distractors))

    def validated(self) -> GeneratorParams:
        for name, low in (("depth", 1), ("distractors", 0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
                raise InputError(f"generator {name}: need an integer >= {low}, got {value!r}")
        vocab = tuple(str(v).strip() for v in self.vocabulary)
        bad = [v for v in vocab if not ATOM_PATTERN.match(v)]
        if bad:
            raise InputError(f"generator vocabulary: {bad[0]!r} is not an atom name ([a-z][a-z0-9_]*)")
        if len(set(vocab)) != len(vocab):
            raise InputError("generator vocabulary: an atom name is listed twice")
        need = self.depth + 1 + 3
        if len(vocab) < need:
            raise InputError(f"generator vocabulary: {len(vocab)} atom(s) given; depth {self.depth} needs "
                             f"at least {need} (chain, query and 3 distractor atoms)")
        directions = tuple(parse_direction(direction_name(d) if isinstance(d, tuple) else d) for d in self.directions)
        if not directions:
            raise InputError("generator directions: give at least one direction")
        return replace(self, vocabulary=vocab, directions=directions)

    def to_dict(self) -> dict[str, Any]:
        return {"depth": self.depth, "distractors": self.distractors, "vocabulary": list(self.vocabulary),
                "directions": [direction_name(d) for d in self.directions]}


@dataclass(frozen=True)
class Cluster:
    """A base theory and its two edits; ``labels`` are the oracle per world (base, target, sham)."""

    name: str
    direction: tuple[str, str]
    base: Theory
    target_edit: Edit
    sham_edit: Edit
    labels: tuple[str, str, str] = field(default=("", "", ""))

    def __repr__(self) -> str:
        return f"Cluster({self.name!r}, {direction_name(self.direction)}, {len(self.base.rules)} rules)"

    @property
    def target(self) -> Theory:
        return self.target_edit.apply(self.base)

    @property
    def sham(self) -> Theory:
        return self.sham_edit.apply(self.base)

    def world(self, name: str) -> Theory:
        return {"base": self.base, "target": self.target, "sham": self.sham}[name]

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "direction": direction_name(self.direction), "base": self.base.to_dict(),
                "target_edit": self.target_edit.to_dict(), "sham_edit": self.sham_edit.to_dict(),
                "labels": list(self.labels)}


def _literal(atom: str, negative: bool) -> str:
    return NEGATION + atom if negative else atom


def _base_theory(rng: np.random.Generator, direction: tuple[str, str], params: GeneratorParams):
    """Base theory plus what the edits need: chain facts/rules and distractor atoms with their sign."""
    import numpy as np  # here, not at module level: the CLI's parser reads GeneratorParams without numpy

    base_label, target_label = direction
    d = params.depth
    atoms = [str(a) for a in rng.choice(np.asarray(params.vocabulary, dtype=object),
                                        size=d + 1 + params.n_distractor_atoms, replace=False)]
    chain, query, extra = atoms[:d], atoms[d], atoms[d + 1:]
    sign = {a: bool(rng.random() < 0.4) for a in extra}  # the one sign of each distractor atom
    n_facts = max(1, len(extra) // 2)
    distractor_facts = [_literal(a, sign[a]) for a in extra[:n_facts]]
    head_positive = (base_label == TRUE) or (base_label == UNKNOWN and target_label == TRUE)
    links = chain + [query]
    chain_rules = []
    for i in range(d):
        head = links[i + 1] if i + 1 < d else _literal(query, not head_positive)
        body = (links[i],) + ((str(rng.choice(distractor_facts)),) if rng.random() < 0.4 else ())
        chain_rules.append(Rule(body, head))
    body_pool = [_literal(a, s) for a in extra for s in (False, True)] + chain
    distractor_rules = []
    seen = {r.key() for r in chain_rules}
    while len(distractor_rules) < params.distractors:
        head_atom = str(rng.choice(np.asarray(extra, dtype=object)))
        size = int(rng.integers(1, 3))
        body = tuple(str(x) for x in rng.choice(np.asarray(body_pool, dtype=object), size=size, replace=False))
        rule = Rule(body, _literal(head_atom, sign[head_atom]))
        if head_atom in {x.lstrip(NEGATION) for x in body} or rule.key() in seen:
            continue  # no rule mentions its own head atom in its body; no duplicates
        seen.add(rule.key())
        distractor_rules.append(rule)
    facts = ([chain[0]] if base_label != UNKNOWN else []) + distractor_facts
    order = rng.permutation(len(chain_rules) + len(distractor_rules))
    pool = chain_rules + distractor_rules
    theory = Theory(tuple(facts), tuple(pool[i] for i in order), query)
    return theory, chain, chain_rules, extra, sign, distractor_rules


def _target_edit(rng, direction, chain, chain_rules) -> Edit:
    base_label, target_label = direction
    if base_label == UNKNOWN:
        return Edit("add_fact", fact=chain[0])
    if target_label == UNKNOWN:
        if rng.random() < 0.5:
            return Edit("remove_fact", fact=chain[0])
        return Edit("remove_rule", rule=chain_rules[int(rng.integers(len(chain_rules)))])
    last = chain_rules[-1]
    flipped = last.head[1:] if last.head.startswith(NEGATION) else NEGATION + last.head
    return Edit("replace_rule", rule=last, new_rule=Rule(last.body, flipped))


def _sham_edit(rng, theory: Theory, chain, extra, sign, distractor_rules) -> Edit:
    import numpy as np  # here, not at module level: the CLI's parser reads GeneratorParams without numpy

    options: list[Edit] = []
    new_facts = [_literal(a, sign[a]) for a in extra if _literal(a, sign[a]) not in theory.facts]
    if new_facts:
        options.append(Edit("add_fact", fact=str(rng.choice(new_facts))))
    # A body literal nothing derives: the negation of a chain atom or the unused sign of a distractor.
    dead = [NEGATION + c for c in chain] + [_literal(a, not sign[a]) for a in extra]
    head_atom = str(rng.choice(np.asarray(extra, dtype=object)))
    live = [x for x in chain + [_literal(a, sign[a]) for a in extra] if x.lstrip(NEGATION) != head_atom]
    body = (str(rng.choice(dead)),) + ((str(rng.choice(live)),) if live and rng.random() < 0.5 else ())
    if head_atom not in {x.lstrip(NEGATION) for x in body}:
        candidate = Rule(body, _literal(head_atom, sign[head_atom]))
        if candidate.key() not in {r.key() for r in theory.rules}:
            options.append(Edit("add_rule", rule=candidate))
    derived = derived_literals(theory)
    for rule in distractor_rules:
        without = Edit("remove_rule", rule=rule).apply(theory)
        if derived_literals(without) == derived:
            options.append(Edit("remove_rule", rule=rule))
            break
    return options[int(rng.integers(len(options)))]


def generate_cluster(index: int, seed: int, params: GeneratorParams) -> Cluster:
    """Cluster ``index`` of ``seed`` (module docstring); the solver confirms all three labels."""
    import numpy as np  # here, not at module level: the CLI's parser reads GeneratorParams without numpy

    direction = params.directions[index % len(params.directions)]
    rng = np.random.default_rng([int(seed), int(index)])
    theory, chain, chain_rules, extra, sign, distractor_rules = _base_theory(rng, direction, params)
    target_edit = _target_edit(rng, direction, chain, chain_rules)
    sham_edit = _sham_edit(rng, theory, chain, extra, sign, distractor_rules)
    cluster = Cluster(f"k{index + 1:04d}", direction, theory, target_edit, sham_edit)
    labels = tuple(solve(cluster.world(w)).label for w in ("base", "target", "sham"))
    expected = (direction[0], direction[1], direction[0])
    if labels != expected or cluster.sham.same_content(theory):
        # The construction guarantees both; reaching this is a bug in this module, not bad input.
        raise RuntimeError(f"testbed generator: cluster {index} of seed {seed} came out {labels}, "
                           f"expected {expected}")
    return replace(cluster, labels=labels)


# One items file: 10,080 items (280 clusters) are 17.9 MB and take about 3 s to generate or check;
# 100,000 items ran past 90 s with everything held in memory (issue 27 item 8).
MAX_CLUSTERS = 1_000


def generate_clusters(n_clusters: int, seed: int = 0, params: GeneratorParams | None = None) -> tuple[Cluster, ...]:
    """``n_clusters`` seeded clusters, directions assigned in turn from ``params.directions``."""
    if isinstance(n_clusters, bool) or not isinstance(n_clusters, numbers.Integral) or n_clusters < 1:
        raise InputError(f"number of clusters: need an integer >= 1, got {n_clusters!r}")
    if n_clusters > MAX_CLUSTERS:
        raise InputError(f"number of clusters: at most {MAX_CLUSTERS:,} ({MAX_CLUSTERS * 36:,} items, about 65 MB and "
                         f"15 s) per items file, got {n_clusters:,}; generate several files with different seeds "
                         "(docs/limits.md)")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise InputError(f"seed: need an integer >= 0, got {seed!r}")
    params = (params or GeneratorParams()).validated()
    return tuple(generate_cluster(k, seed, params) for k in range(int(n_clusters)))
