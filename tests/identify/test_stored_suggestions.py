"""The explorer's suggestions for the bundled class are stored (issue 24): each stored answer is the
solver's own, every support and estimand of the bundled class is covered, the store is used only
for that very class, and the explorer's first view of it solves nothing (no scipy.optimize).

On a starved machine the solver skips a reduction near its time limit (``reductions`` says which),
and may then return another support of the same minimum cost; the comparison field by field is
made whenever the solve ran as the stored one did, and every stored support is checked to identify τ."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from audit_core import analyses
from audit_core.analyses import suggestions as stored
from audit_core.identify import available_estimands, identify, policy_class_to_json

ROOT = Path(__file__).resolve().parents[2]


def _answer(result) -> dict | None:
    """What a suggestion says: its status, cost and size, and what makes τ unidentifiable."""
    if result is None:
        return None
    return {"status": result.status, "cost": result.cost, "size": result.size, "identifies": result.identifies,
            "unseparable": result.unseparable_pairs, "mandatory": result.mandatory_cells,
            "estimand": result.estimand}


def _fields(result) -> dict | None:
    """Every field of a Synthesis but ``seconds`` (the solve's wall time)."""
    return None if result is None else {k: v for k, v in dataclasses.asdict(result).items() if k != "seconds"}


def test_every_stored_suggestion_is_the_solvers_and_every_support_is_covered():
    table = json.loads(stored.STORED_FILE.read_text(encoding="utf-8"))
    pc = analyses.policy_source().value
    assert table["fingerprint"] == stored.fingerprint(pc), \
        "the bundled class changed: rebuild the table with python -m audit_core.analyses.suggestions"
    assert table["time_limit"] == stored.SUGGESTION_TIME_LIMIT and table["solver"] == stored.solver_fingerprint(), \
        "the solver changed: rebuild the table with python -m audit_core.analyses.suggestions"
    keys = set()
    for estimand in available_estimands(pc):
        for mask in range(2 ** len(pc.component_names)):
            chosen = [c for i, c in enumerate(pc.component_names) if mask >> i & 1]
            ident = identify(pc, components=chosen, estimand=estimand)
            used = stored.suggestions(pc, estimand, ident, bundled=True)
            solved = stored.solve_suggestions(pc, estimand, ident)
            assert [_answer(r) for r in used] == [_answer(r) for r in solved], (estimand, chosen)
            assert (used[0] is None) == (not ident.identified)
            for mine, theirs in zip(used, solved, strict=True):
                if mine is None:
                    continue
                support = set(mine.supports[0])      # identifies τ, inside the support or containing it
                assert identify(pc, estimand=estimand, cells=sorted(support)).identified
                assert support <= set(ident.cells) if ident.identified else support >= set(ident.cells)
                if mine.reductions == theirs.reductions:   # the same solve: the same answer, field by field
                    assert _fields(mine) == _fields(theirs), (estimand, chosen)
            keys.add(stored._key(estimand, ident.cells))
    assert keys == set(table["entries"]) and len(keys) == len(available_estimands(pc)) * 2 ** len(pc.component_names)


def test_the_store_is_used_for_the_bundled_class_only(monkeypatch):
    calls = []
    real = stored.solve_suggestions
    monkeypatch.setattr(stored, "solve_suggestions", lambda *a, **k: calls.append(a[1]) or real(*a, **k))
    bundled = analyses.policy_source()
    views = [analyses.explore_support(bundled, chosen, estimand)
             for estimand in ("tau_full", "static_correctness") for chosen in (None, ("target",), ())]
    assert calls == []                                                   # no solve at all
    assert views[0].inside is not None and views[1].repair is not None   # suggestions still there
    uploaded = analyses.policy_source(json.dumps(policy_class_to_json(bundled.value)).encode(), "same.json")
    assert not uploaded.bundled
    again = analyses.explore_support(uploaded, ("target",), "tau_full")
    assert calls == ["tau_full"] and again.verdict == views[1].verdict    # solved, same answer
    edited = analyses.remove_policy(bundled, "fixed_label")
    pc = edited.value
    # even when called as bundled, another class (here one policy fewer) is never read from the store
    stored.suggestions(pc, "tau_full", identify(pc, components=["target"], estimand="tau_full"), bundled=True)
    assert calls == ["tau_full", "tau_full"]
    stored.suggestions(bundled.value, "tau_full", identify(bundled.value, components=["target"]), bundled=True,
                       time_limit=5.0)                                  # another time limit: solved
    assert len(calls) == 3


def test_a_missing_or_broken_store_means_solving(monkeypatch, tmp_path):
    broken = tmp_path / "s.json"
    broken.write_text("{not json")
    monkeypatch.setattr(stored, "STORED_FILE", broken)
    stored._table.cache_clear()
    try:
        pc = analyses.policy_source().value
        inside, repair = stored.suggestions(pc, "tau_full", identify(pc), bundled=True)
        assert inside is not None and inside.identifies and repair is None
    finally:
        stored._table.cache_clear()


@pytest.mark.parametrize("estimand", ["tau_full", "local_response"])
def test_the_explorers_first_view_of_the_bundled_class_loads_no_lp_solver(estimand):
    probe = ("import sys; from audit_core import analyses; "
             f"view = analyses.explore_support(analyses.policy_source(), None, {estimand!r}); "
             "assert view.inside is not None or view.repair is not None; "
             "print('scipy.optimize' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
