"""Open-world signed-Horn theories (paper 000: "solver-grounded three-valued reasoning").

A *signed atom* (literal) is an atom ``p`` or its explicit negation ``-p``. A theory has facts
(literals), rules (a non-empty conjunction of literals as the body, one literal as the head) and a
query atom. Negation is explicit, not negation as failure, and rules are not contraposed: ``-p`` is
a letter of its own that only a fact or a rule head can establish. The machine-readable form is
``{"facts": [...], "rules": [{"if": [...], "then": "..."}], "query": "p"}``.

Atom names are lower-case identifiers (``[a-z][a-z0-9_]*``), so a literal is unambiguous in text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from audit_core.errors import InputError

NEGATION = "-"
ATOM_PATTERN = re.compile(r"[a-z][a-z0-9_]*\Z")


def parse_literal(value: Any, where: str) -> str:
    """A literal as written (``p`` or ``-p``, surrounding spaces dropped); InputError otherwise."""
    if not isinstance(value, str):
        raise InputError(f"{where}: literal {value!r} is not a string")
    text = value.strip()
    atom = text[1:] if text.startswith(NEGATION) else text
    if not ATOM_PATTERN.match(atom):
        raise InputError(f"{where}: literal {value!r} is not an atom name ([a-z][a-z0-9_]*) "
                         f"optionally preceded by '{NEGATION}'")
    return text


def atom_of(literal: str) -> str:
    return literal[1:] if literal.startswith(NEGATION) else literal


def is_negative(literal: str) -> bool:
    return literal.startswith(NEGATION)


def complement(literal: str) -> str:
    return literal[1:] if literal.startswith(NEGATION) else NEGATION + literal


@dataclass(frozen=True)
class Rule:
    """``body[0] ∧ body[1] ∧ ... → head``; the body is a non-empty tuple of literals."""

    body: tuple[str, ...]
    head: str

    def __repr__(self) -> str:
        return f"Rule({' & '.join(self.body)} -> {self.head})"

    def to_dict(self) -> dict[str, Any]:
        return {"if": list(self.body), "then": self.head}

    @classmethod
    def from_dict(cls, data: Any, where: str = "rule") -> Rule:
        if not isinstance(data, Mapping) or set(data) != {"if", "then"}:
            raise InputError(f"{where}: a rule must be an object with exactly the keys 'if' and 'then', "
                             f"got {data!r}")
        body = data["if"]
        if isinstance(body, str) or not isinstance(body, (list, tuple)) or not body:
            raise InputError(f"{where}: 'if' must be a non-empty list of literals, got {body!r}")
        return cls(tuple(parse_literal(x, f"{where} 'if'") for x in body),
                   parse_literal(data["then"], f"{where} 'then'"))

    def key(self) -> tuple:
        return (tuple(sorted(set(self.body))), self.head)


@dataclass(frozen=True)
class Theory:
    """Facts, rules and the query atom of one world (module docstring).

    Two theories have the same content (:meth:`same_content`) when their fact sets and rule
    multisets (bodies as sets) agree, whatever the order they are written in.
    """

    facts: tuple[str, ...]
    rules: tuple[Rule, ...]
    query: str

    def __repr__(self) -> str:
        return f"Theory({len(self.facts)} facts, {len(self.rules)} rules, query={self.query!r})"

    def to_dict(self) -> dict[str, Any]:
        return {"facts": list(self.facts), "rules": [r.to_dict() for r in self.rules], "query": self.query}

    @classmethod
    def from_dict(cls, data: Any, where: str = "theory") -> Theory:
        if not isinstance(data, Mapping):
            raise InputError(f"{where}: must be an object with 'facts', 'rules' and 'query', got {data!r}")
        missing = [k for k in ("facts", "rules", "query") if k not in data]
        if missing:
            raise InputError(f"{where}: missing key(s) {', '.join(repr(k) for k in missing)}")
        facts, rules = data["facts"], data["rules"]
        if isinstance(facts, str) or not isinstance(facts, (list, tuple)):
            raise InputError(f"{where}: 'facts' must be a list of literals, got {facts!r}")
        if isinstance(rules, str) or not isinstance(rules, (list, tuple)):
            raise InputError(f"{where}: 'rules' must be a list of rules, got {rules!r}")
        query = parse_literal(data["query"], f"{where} 'query'")
        if is_negative(query):
            raise InputError(f"{where}: 'query' must be an atom, not the negated literal {query!r}")
        return cls(tuple(parse_literal(f, f"{where} fact {i + 1}") for i, f in enumerate(facts)),
                   tuple(Rule.from_dict(r, f"{where} rule {i + 1}") for i, r in enumerate(rules)),
                   query)

    def content_key(self) -> tuple:
        return (tuple(sorted(set(self.facts))), tuple(sorted(r.key() for r in self.rules)), self.query)

    def same_content(self, other: Theory) -> bool:
        return self.content_key() == other.content_key()

    def atoms(self) -> tuple[str, ...]:
        """Every atom named anywhere in the theory (sorted)."""
        names = {atom_of(f) for f in self.facts} | {self.query}
        for r in self.rules:
            names.update(atom_of(x) for x in r.body)
            names.add(atom_of(r.head))
        return tuple(sorted(names))

    @property
    def size(self) -> int:
        """Facts plus body and head literals of every rule: the solver's running time is linear in it."""
        return len(self.facts) + sum(len(r.body) + 1 for r in self.rules)
