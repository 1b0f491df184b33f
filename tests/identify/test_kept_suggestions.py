"""The explorer's suggestions for a bundled class are kept on disk at their first solve (issue 30,
audit_core/results_cache.py): what is read back is the solver's answer, it is read only for the
very class, estimand, support and time limit it was solved for, and the cache itself ignores a
corrupt, foreign or unwritable entry and keeps nothing with ``AUDIT_CACHE_DIR=off``."""

from __future__ import annotations

import dataclasses
import json

import pytest

from audit_core import analyses, results_cache
from audit_core.analyses import suggestions as kept
from audit_core.identify import identify, policy_class_to_json


@pytest.fixture
def cache(monkeypatch, tmp_path):
    monkeypatch.setenv(results_cache.ENV, str(tmp_path))
    return tmp_path


@pytest.fixture
def solves(monkeypatch):
    calls = []
    real = kept.solve_suggestions
    monkeypatch.setattr(kept, "solve_suggestions", lambda *a, **k: calls.append(a[1]) or real(*a, **k))
    return calls


def _fields(result) -> dict | None:
    """Every field of a Synthesis (as read back, ``seconds`` included: the kept solve's)."""
    return None if result is None else dataclasses.asdict(result)


@pytest.mark.parametrize("chosen", [None, ("target",), ()])
def test_a_kept_suggestion_is_the_solvers_answer(cache, solves, chosen):
    pc = analyses.policy_source().value
    ident = identify(pc, components=None if chosen is None else list(chosen), estimand="tau_full")
    solved = kept.suggestions(pc, "tau_full", ident, bundled=True)
    read = kept.suggestions(pc, "tau_full", ident, bundled=True)
    assert len(solves) == 1
    assert [_fields(r) for r in read] == [_fields(r) for r in solved]
    assert (read[0] is None) == (not ident.identified)


def test_kept_for_the_bundled_class_only_and_for_its_exact_inputs(cache, solves):
    bundled = analyses.policy_source()
    views = [analyses.explore_support(bundled, chosen, estimand)
             for estimand in ("tau_full", "static_correctness") for chosen in (None, ("target",), ())]
    assert len(solves) == 6 and len(list((cache / "suggestions").glob("*.json"))) == 6
    assert [analyses.explore_support(bundled, chosen, estimand).verdict
            for estimand in ("tau_full", "static_correctness") for chosen in (None, ("target",), ())] == \
        [v.verdict for v in views]
    assert len(solves) == 6                                               # read back: no solve
    uploaded = analyses.policy_source(json.dumps(policy_class_to_json(bundled.value)).encode(), "same.json")
    again = analyses.explore_support(uploaded, ("target",), "tau_full")
    assert len(solves) == 7 and again.verdict == views[1].verdict         # solved, same answer, not kept
    assert len(list((cache / "suggestions").glob("*.json"))) == 6
    pc = analyses.remove_policy(bundled, "fixed_label").value             # another class, even called as bundled
    kept.suggestions(pc, "tau_full", identify(pc, components=["target"], estimand="tau_full"), bundled=True)
    assert len(solves) == 8
    kept.suggestions(bundled.value, "tau_full", identify(bundled.value, components=["target"]), bundled=True,
                     time_limit=5.0)                                      # another time limit: solved
    assert len(solves) == 9


def test_the_cache_ignores_what_it_cannot_trust(cache):
    calls = []

    def compute():
        calls.append(1)
        return {"n": len(calls)}

    assert results_cache.cached("k", {"a": 1}, compute) == {"n": 1}
    assert results_cache.cached("k", {"a": 1}, compute) == {"n": 1} and len(calls) == 1
    assert results_cache.cached("k", {"a": 2}, compute) == {"n": 2}      # other inputs: another entry
    (entry,) = [p for p in (cache / "k").glob("*.json") if json.loads(p.read_text())["value"] == {"n": 1}]
    entry.write_text("{not json")                                         # corrupt: computed again, rewritten
    assert results_cache.cached("k", {"a": 1}, compute) == {"n": 3}
    assert results_cache.cached("k", {"a": 1}, compute) == {"n": 3}
    data = json.loads(entry.read_text())
    entry.write_text(json.dumps({**data, "kind": "other"}))               # foreign: computed again
    assert results_cache.cached("k", {"a": 1}, compute) == {"n": 4}

    def refuse(value):
        raise TypeError("not mine")
    assert results_cache.cached("k", {"a": 1}, compute, decode=refuse) == {"n": 5}   # refused by its reader
    assert not list((cache / "k").glob(".tmp-*"))                         # no temporary file left


def test_a_new_folder_is_its_owners_only(monkeypatch, tmp_path):
    monkeypatch.setenv(results_cache.ENV, str(tmp_path / "new"))
    results_cache.cached("k", 1, lambda: 1)
    assert (tmp_path / "new").stat().st_mode & 0o777 == 0o700
    assert (tmp_path / "new" / "k").stat().st_mode & 0o777 == 0o700


def test_off_or_an_unwritable_folder_means_computing_every_time(monkeypatch, tmp_path):
    monkeypatch.setenv(results_cache.ENV, "off")
    assert results_cache.folder() is None
    assert results_cache.cached("k", 1, lambda: 7) == 7
    blocked = tmp_path / "file"
    blocked.write_text("a file, not a folder")
    monkeypatch.setenv(results_cache.ENV, str(blocked))
    assert results_cache.cached("k", 1, lambda: 8) == 8 and results_cache.cached("k", 1, lambda: 9) == 9
    monkeypatch.delenv(results_cache.ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert results_cache.folder() == tmp_path / "xdg" / "audit-workbench"
