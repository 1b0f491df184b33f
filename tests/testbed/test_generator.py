"""Generated clusters: target changes the oracle, sham keeps it and really changes the theory."""

from collections import Counter

import pytest

from audit_core.errors import InputError
from audit_core.testbed import (
    DIRECTIONS,
    Edit,
    GeneratorParams,
    Rule,
    Theory,
    derived_literals,
    direction_name,
    generate_clusters,
    parse_direction,
    solve,
)


def naive_rounds_until(theory, literal):
    """Rounds of S_{i+1} = T(S_i) from S_0 = ∅ until ``literal`` appears (derivation depth + 1)."""
    derived, rounds = frozenset(), 0
    bodies = [(frozenset(r.body), r.head) for r in theory.rules]
    while literal not in derived:
        step = frozenset(theory.facts) | {h for b, h in bodies if b <= derived}
        assert step != derived, "literal never derived"
        derived, rounds = step, rounds + 1
    return rounds


@pytest.mark.parametrize("depth, distractors", [(1, 0), (2, 3), (3, 6), (5, 12), (8, 2)])
def test_every_cluster_target_changes_and_sham_keeps_the_oracle(depth, distractors):
    params = GeneratorParams(depth=depth, distractors=distractors)
    for seed in (0, 1, 2):
        for c in generate_clusters(30, seed, params):
            base, target, sham = (solve(c.world(w)) for w in ("base", "target", "sham"))
            assert all(s.consistent for s in (base, target, sham))
            assert (base.label, target.label) == c.direction and target.label != base.label
            assert sham.label == base.label and not c.sham.same_content(c.base)
            assert c.labels == (base.label, target.label, sham.label)
            assert c.sham_edit.kind in ("add_fact", "add_rule", "remove_rule")
            if c.sham_edit.kind == "remove_rule":  # the removed rule takes part in no derivation
                assert derived_literals(c.sham) == derived_literals(c.base)
            assert len(c.base.rules) == depth + distractors
            assert set(c.base.atoms()) <= set(params.vocabulary)


def test_depth_control_is_the_derivation_depth_of_the_query():
    for depth in (1, 4, 7):
        for c in generate_clusters(12, 5, GeneratorParams(depth=depth, distractors=4)):
            world = c.base if c.labels[0] != "UNKNOWN" else c.target
            literal = world.query if solve(world).label == "TRUE" else "-" + world.query
            assert naive_rounds_until(world, literal) == depth + 1


def test_all_six_directions_balanced_and_selectable():
    clusters = generate_clusters(45, 3)
    counts = Counter(c.direction for c in clusters)
    assert set(counts) == set(DIRECTIONS) and max(counts.values()) - min(counts.values()) <= 1
    chosen = (("TRUE", "UNKNOWN"), ("FALSE", "TRUE"))
    picked = generate_clusters(7, 3, GeneratorParams(directions=chosen))
    assert Counter(c.direction for c in picked) == {chosen[0]: 4, chosen[1]: 3}
    # Every kind of target edit occurs over the six directions.
    kinds = Counter(c.target_edit.kind for c in generate_clusters(60, 0))
    assert set(kinds) == {"add_fact", "remove_fact", "remove_rule", "replace_rule"}
    shams = Counter(c.sham_edit.kind for c in generate_clusters(60, 0))
    assert set(shams) == {"add_fact", "add_rule", "remove_rule"}


def test_determinism_and_cluster_independence():
    a = [c.to_dict() for c in generate_clusters(10, 42)]
    b = [c.to_dict() for c in generate_clusters(10, 42)]
    assert a == b
    assert [c.to_dict() for c in generate_clusters(4, 42)] == a[:4]  # cluster k depends on (seed, k) only
    assert [c.to_dict() for c in generate_clusters(10, 43)] != a


def test_vocabulary_control():
    words = tuple(f"w{i}" for i in range(9))
    for c in generate_clusters(12, 1, GeneratorParams(depth=3, distractors=5, vocabulary=words)):
        assert set(c.base.atoms()) | set(c.target.atoms()) | set(c.sham.atoms()) <= set(words)


@pytest.mark.parametrize("kwargs, message", [
    ({"depth": 0}, "generator depth: need an integer >= 1"),
    ({"distractors": -1}, "generator distractors"),
    ({"vocabulary": ("a", "b", "c")}, "needs at least"),
    ({"vocabulary": ("a", "B", "c", "d", "e", "f", "g")}, "'B' is not an atom name"),
    ({"vocabulary": ("a",) * 10}, "listed twice"),
    ({"directions": ()}, "at least one direction"),
])
def test_bad_params(kwargs, message):
    with pytest.raises(InputError, match=message):
        generate_clusters(2, 0, GeneratorParams(**kwargs))
    with pytest.raises(InputError, match="number of clusters"):
        generate_clusters(0, 0)
    with pytest.raises(InputError, match="seed"):
        generate_clusters(1, -1)


def test_parse_direction_and_edits():
    assert parse_direction("t-u") == ("TRUE", "UNKNOWN") == parse_direction("TRUE→UNKNOWN")
    assert parse_direction("FALSE>TRUE") == ("FALSE", "TRUE") and direction_name(("FALSE", "TRUE")) == "FALSE→TRUE"
    for bad in ("T-T", "TRUE", "X-U", "T-U-F"):
        with pytest.raises(InputError):
            parse_direction(bad)
    t = Theory(("p",), (Rule(("p",), "q"),), "q")
    assert Edit("replace_rule", rule=Rule(("p",), "q"), new_rule=Rule(("p",), "-q")).apply(t).rules == (Rule(("p",), "-q"),)
    with pytest.raises(InputError, match="not in the theory"):
        Edit("remove_fact", fact="z").apply(t)
    with pytest.raises(InputError, match="not in the theory"):
        Edit("remove_rule", rule=Rule(("z",), "q")).apply(t)
    e = Edit("add_rule", rule=Rule(("p", "-z"), "r"))
    assert Edit.from_dict(e.to_dict()) == e
    with pytest.raises(InputError, match="needs exactly"):
        Edit.from_dict({"kind": "add_fact", "rule": {"if": ["p"], "then": "q"}})
