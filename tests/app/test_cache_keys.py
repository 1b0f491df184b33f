"""pages/_cache.py keys every cached call by its inputs themselves (issue 30): a source and a
parameter set are hashed by their content hash (``HASH_FUNCS``), so no key travels beside its
object. Two different sources never share an entry; two reads of the same content do."""

from __future__ import annotations

import json

from audit_core import analyses
from audit_core.identify import policy_class_to_json
from pages import _cache


def _class_file(pc) -> bytes:
    return json.dumps(policy_class_to_json(pc)).encode()


def test_two_different_sources_never_share_an_entry_and_the_same_content_does():
    bundled = analyses.policy_source()
    data = _class_file(bundled.value)
    one, again = analyses.policy_source(data, "class.json"), analyses.policy_source(data, "class.json")
    assert one is not again and one.content_hash() == again.content_hash()
    smaller = analyses.remove_policy(one, "fixed_label")                         # another class
    renamed = analyses.policy_source(data, "other.json")                         # the same bytes, another name
    lattice = _cache.support_lattice(one, "tau_full")
    assert _cache.support_lattice(again, "tau_full") is lattice                  # same content: one entry
    assert _cache.support_lattice(bundled, "tau_full") is not lattice
    assert _cache.support_lattice(renamed, "tau_full") is not lattice
    other = _cache.support_lattice(smaller, "tau_full")
    assert other is not lattice and len(other.supports[0].cells) == len(lattice.supports[0].cells)
    hashes = {s.content_hash() for s in (bundled, one, smaller, renamed)}
    assert len(hashes) == 4
    # cache_data hands out copies: the answer itself says whose class it is
    full = tuple(one.value.component_names)
    assert len(_cache.explore_support(smaller, full, "tau_full", None).tau) == len(one.value.names) - 1
    assert len(_cache.explore_support(one, full, "tau_full", None).tau) == len(one.value.names)


def test_parameters_are_keyed_by_every_field():
    params = analyses.AuditParams.for_style("sdoh")
    same = analyses.AuditParams.for_style("sdoh")
    assert params is not same and params.content_hash() == same.content_hash()
    assert params.replace(alpha=0.01).content_hash() != params.content_hash()
    assert params.replace(budget=params.budget + 1).content_hash() != params.content_hash()
    assert set(_cache.HASH_FUNCS) == {analyses.Source, analyses.AuditParams}
