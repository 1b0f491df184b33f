"""The forward-chaining oracle equals brute-force definitions on small random theories."""

import itertools

import numpy as np
import pytest

from audit_core.errors import InputError
from audit_core.testbed import (
    INCONSISTENT,
    Rule,
    Theory,
    derived_literals,
    naive_closure,
    solve,
)
from audit_core.testbed.solver import label_of
from audit_core.testbed.theory import complement


def random_theory(rng, n_atoms):
    atoms = [f"a{i}" for i in range(n_atoms)]
    literals = atoms + ["-" + a for a in atoms]
    facts = tuple(rng.choice(literals, size=int(rng.integers(0, 4)), replace=True))
    rules = tuple(Rule(tuple(rng.choice(literals, size=int(rng.integers(1, 4)), replace=True)),
                       str(rng.choice(literals))) for _ in range(int(rng.integers(0, 9))))
    return Theory(tuple(str(f) for f in facts), rules, str(rng.choice(atoms))), literals


def least_model_by_enumeration(theory, literals):
    """Model-theoretic: the intersection of every literal set that holds the facts and is closed
    under every rule (the full literal set is one, so the intersection is over a non-empty family)."""
    least = set(literals)
    for bits in itertools.product((0, 1), repeat=len(literals)):
        model = {x for x, b in zip(literals, bits, strict=False) if b}
        if not set(theory.facts) <= model:
            continue
        if all(r.head in model or not set(r.body) <= model for r in theory.rules):
            least &= model
    return frozenset(least)


def provable(theory, literal, path=frozenset()):
    """Enumerating derivations: a proof tree by backward chaining, no literal repeated on a path."""
    if literal in theory.facts:
        return True
    if literal in path:
        return False
    return any(all(provable(theory, b, path | {literal}) for b in r.body)
               for r in theory.rules if r.head == literal)


def brute_label(theory, literals, derived):
    conflicts = [x for x in derived if complement(x) in derived]
    if conflicts:
        return INCONSISTENT
    return "TRUE" if theory.query in derived else "FALSE" if "-" + theory.query in derived else "UNKNOWN"


def test_forward_chaining_equals_three_brute_force_definitions():
    rng = np.random.default_rng(20261201)
    labels = []
    for trial in range(1500):
        theory, literals = random_theory(rng, int(rng.integers(1, 5)))
        fast = derived_literals(theory)
        least = least_model_by_enumeration(theory, literals)
        assert fast == least, (trial, theory.to_dict())
        assert fast == naive_closure(theory)
        assert fast == {x for x in literals if provable(theory, x)}
        label = solve(theory).label
        assert label == brute_label(theory, literals, least)
        labels.append(label)
    # The random family exercises all four outcomes, each many times.
    counts = {v: labels.count(v) for v in ("TRUE", "FALSE", "UNKNOWN", INCONSISTENT)}
    assert min(counts.values()) >= 100, counts


def test_explicit_negation_is_not_contraposed_and_conflicts_are_named():
    # p -> q with -q: classical logic would give -p; signed Horn does not.
    t = Theory(("-q",), (Rule(("p",), "q"),), "p")
    assert solve(t).label == "UNKNOWN" and "-p" not in solve(t).derived
    # Both signs of r derived: inconsistent whatever the query's own status.
    t = Theory(("s",), (Rule(("s",), "r"), Rule(("s",), "-r"), Rule(("s",), "q")), "q")
    sol = solve(t)
    assert sol.label == INCONSISTENT and sol.conflicts == ("r",) and not sol.consistent
    assert label_of("q", {"q"}) == ("TRUE", ())


def test_repeated_body_literal_and_chain():
    chain = tuple(Rule((f"c{i}", f"c{i}"), f"c{i + 1}") for i in range(50))
    t = Theory(("c0",), chain[::-1], "c50")
    assert solve(t).label == "TRUE"
    assert solve(Theory((), chain, "c50")).label == "UNKNOWN"


@pytest.mark.parametrize("data, message", [
    ({"facts": ["p"], "rules": [], "query": "-p"}, "must be an atom"),
    ({"facts": ["P"], "rules": [], "query": "p"}, "is not an atom name"),
    ({"facts": [], "rules": [{"if": [], "then": "p"}], "query": "p"}, "non-empty list"),
    ({"facts": [], "rules": [{"if": ["p"]}], "query": "p"}, "exactly the keys"),
    ({"facts": "p", "rules": [], "query": "p"}, "'facts' must be a list"),
    ({"rules": [], "query": "p"}, "missing key(s) 'facts'"),
])
def test_malformed_theories_raise_input_error(data, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Theory.from_dict(data)


def test_json_round_trip_and_content_equality():
    t = Theory(("p", "-r"), (Rule(("p", "q"), "s"), Rule(("s",), "-q")), "s")
    again = Theory.from_dict(t.to_dict())
    assert again == t and again.same_content(Theory(("-r", "p"), (Rule(("s",), "-q"), Rule(("q", "p"), "s")), "s"))
    assert not t.same_content(Theory(("p",), t.rules, "s"))
    assert t.size == 2 + 3 + 2 and t.atoms() == ("p", "q", "r", "s")


def test_forward_chaining_equals_naive_fixpoint_on_larger_theories():
    # Beyond enumeration size: 40 atoms, up to 200 rules (5 to 73 derived literals, 22 on average).
    rng = np.random.default_rng(7)
    for _ in range(100):
        theory, _ = random_theory_sized(rng, n_atoms=40, n_rules=int(rng.integers(20, 200)))
        assert derived_literals(theory) == naive_closure(theory)


def random_theory_sized(rng, n_atoms, n_rules):
    atoms = [f"a{i}" for i in range(n_atoms)]
    literals = atoms + ["-" + a for a in atoms]
    facts = tuple(str(x) for x in rng.choice(literals, size=5, replace=False))
    rules = tuple(Rule(tuple(str(x) for x in rng.choice(literals, size=int(rng.integers(1, 3)))), str(rng.choice(literals)))
                  for _ in range(n_rules))
    return Theory(facts, rules, atoms[0]), literals
