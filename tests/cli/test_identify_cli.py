"""`python -m audit_core identify | lattice | synthesize`: docs/cli.md shapes and numbers."""

import copy
import json
import subprocess
import sys

import pytest

from audit_core.cli import main
from audit_core.identify import frozen_policy_class, policy_class_to_json
from tests.load import busy_factor

CHAIN = [("none", 1, 1, 6), ("target", 2, 2, 3), ("target,sham", 3, 3, 2),
         ("target,sham,readout", 6, 5, 1), ("target,sham,readout,mapping", 36, 7, 0)]


def run_json(capsys, *argv):
    code = main(list(argv) + ["--json"])
    out = capsys.readouterr().out
    return code, json.loads(out)


@pytest.mark.parametrize("components, cells, n_classes, n_coll", CHAIN)
def test_identify_chain(capsys, components, cells, n_classes, n_coll):
    code, d = run_json(capsys, "identify", "--components", components)
    assert (d["cells"], d["n_classes"], d["n_collisions"], len(d["collisions"])) == (cells, n_classes, n_coll, n_coll)
    assert d["identified"] is (n_coll == 0)
    assert code == (0 if n_coll == 0 else 1)
    assert {"cells", "n_classes", "classes", "n_collisions", "collisions", "identified"} <= set(d)


def test_identify_default_full_support(capsys):
    code, d = run_json(capsys, "identify")
    assert code == 0 and d["cells"] == 36 and d["n_classes"] == 7


def test_identify_explicit_cells_and_estimand(capsys):
    code, d = run_json(capsys, "identify", "--cells", "target:BAC:generated,sham:CBA:scoring")
    assert code == 0 and d["identified"] and d["cells"] == 2
    code, d = run_json(capsys, "identify", "--components", "target,sham", "--estimand", "local_response")
    assert code == 0 and d["estimand"] == "local_response"


def test_lattice_numbers(capsys):
    code, d = run_json(capsys, "lattice")
    assert code == 0 and len(d["supports"]) == 16
    by = {tuple(s["components"]): s for s in d["supports"]}
    for comps, cells, k, coll in CHAIN:
        key = () if comps == "none" else tuple(comps.split(","))
        assert (by[key]["cells"], by[key]["n_classes"], by[key]["n_collisions"]) == (cells, k, coll)
    loo = {item["removed"]: item for item in d["leave_one_out"]}
    assert {k: v["n_collisions"] for k, v in loo.items()} == {"target": 3, "sham": 1, "readout": 1, "mapping": 1}
    assert loo["mapping"]["witnesses"] == [["ideal", "mapping_shortcut"]]


def test_synthesize_numbers(capsys):
    code, d = run_json(capsys, "synthesize", "--all")
    assert code == 0
    assert (d["status"], d["cost"], d["size"], d["n_optimal"], d["complete"]) == ("OPTIMAL", 2, 2, 26, True)
    assert all(a.startswith("target:") and a.endswith(":generated") and b.startswith("sham:") and b.endswith(":scoring")
               for a, b in d["supports"])
    assert d["mandatory_cells"] == []
    code, d = run_json(capsys, "synthesize", "--all", "--cost", "generated=1,scoring=3")
    assert (d["cost"], d["n_optimal"]) == (4, 26)
    code, d = run_json(capsys, "synthesize")
    assert d["n_optimal"] == 1 and d["cost"] == 2 and d["complete"] is False


def test_readable_text(capsys):
    assert main(["identify", "--components", "target"]) == 1
    out = capsys.readouterr().out
    assert "NOT identified" in out and "ideal ≡ any_edit_reactor" in out
    assert main(["lattice"]) == 0
    assert "Mapping insufficiency" in capsys.readouterr().out
    assert main(["synthesize", "--all"]) == 0
    assert "all 26 optimal supports" in capsys.readouterr().out


def _write(tmp_path, doc):
    p = tmp_path / "c.json"
    p.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return str(p)


def _bad_docs():
    doc = policy_class_to_json(frozen_policy_class())
    cases = {}
    d = copy.deepcopy(doc)
    d["policies"][1]["responses"].pop("base:ABC:generated")
    cases["missing"] = (d, "no response")
    d = copy.deepcopy(doc)
    d["policies"][1]["responses"]["base:XYZ:generated"] = "A"
    cases["cell"] = (d, "XYZ")
    d = copy.deepcopy(doc)
    d["policies"][-1]["mixture"] = {"ghost": 1.0}
    cases["mix"] = (d, "unknown policy 'ghost'")
    d = copy.deepcopy(doc)
    d["policies"][-1]["mixture"] = {"ideal": 0.7}
    cases["weights"] = (d, "sum to 0.7")
    d = copy.deepcopy(doc)
    d["policies"][0]["tau"] = 0.5
    cases["tau"] = (d, "τ must be 0 or 1")
    d = copy.deepcopy(doc)
    d["policies"][2]["name"] = "ideal"
    cases["dup"] = (d, "appears twice")
    cases["empty"] = ("", "empty")
    cases["json"] = ("{not json", "invalid JSON")
    return cases


@pytest.mark.parametrize("case", list(_bad_docs()))
@pytest.mark.parametrize("command", ["identify", "lattice", "synthesize"])
def test_bad_policy_files_exit_2(tmp_path, capsys, case, command):
    doc, message = _bad_docs()[case]
    code = main([command, "--policies", _write(tmp_path, doc), "--json"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert message in captured.err and captured.err.count("\n") == 1


def test_bad_arguments_exit_2(capsys):
    for argv in (["identify", "--components", "moon"], ["synthesize", "--cost", "scoring=cheap"],
                 ["synthesize", "--exclude", "moon:ABC:generated"], ["identify", "--estimand", "vibes"],
                 ["synthesize", "--time-limit", "0"]):
        assert main(argv) == 2
        assert capsys.readouterr().err.startswith("error:")


def test_subprocess_exit_codes(tmp_path):
    def run(*argv):
        return subprocess.run([sys.executable, "-m", "audit_core", *argv], capture_output=True, text=True, timeout=60)
    ok = run("identify", "--json")
    assert ok.returncode == 0 and json.loads(ok.stdout)["n_classes"] == 7
    gate = run("identify", "--components", "target,sham,readout", "--json")
    assert gate.returncode == 1 and json.loads(gate.stdout)["n_collisions"] == 1
    bad = run("identify", "--policies", _write(tmp_path, "{"), "--json")
    assert bad.returncode == 2 and bad.stdout == "" and len(bad.stderr.strip().splitlines()) == 1
    syn = run("synthesize", "--all", "--cost", "generated=1,scoring=3", "--json")
    assert syn.returncode == 0 and json.loads(syn.stdout)["cost"] == 4


def _twin_class(tmp_path):
    from audit_core.identify import build_policy_class
    cells = ["c0", "c1", "c2"]
    rows = {"good": "aab", "twin": "aab", "bad": "abb", "other": "baa"}
    pc = build_policy_class({"cell": cells}, {"cell": ["c0"]}, {"rest": {"cell": ["c1", "c2"]}},
                            {n: dict(zip(cells, r, strict=False)) for n, r in rows.items()},
                            tau={"good": 1, "twin": 0, "bad": 0, "other": 0}, source="twins")
    return _write(tmp_path, policy_class_to_json(pc))


def test_synthesize_not_identifiable_exits_1(tmp_path, capsys):
    path = _twin_class(tmp_path)
    code, d = run_json(capsys, "synthesize", "--all", "--policies", path)
    assert code == 1
    assert (d["status"], d["identifies"], d["fallback_for_separable_pairs"], d["solver_status"]) == (
        "NOT_IDENTIFIABLE", False, True, "OPTIMAL")
    assert d["unseparable_pairs"] == [["good", "twin"]] and d["supports"] == [["c0", "c1"], ["c1", "c2"]]
    assert main(["synthesize", "--all", "--policies", path]) == 1
    text = capsys.readouterr().out
    assert "NOT_IDENTIFIABLE" in text and "good ≡ twin" in text
    assert "Fallback for the separable pairs only (these supports do NOT identify τ)" in text
    assert "Status: OPTIMAL" not in text


def test_synthesize_infeasible_exits_1(capsys):
    targets = [c for c in frozen_policy_class().cells if c.startswith("target:") and c.endswith(":generated")]
    code, d = run_json(capsys, "synthesize", "--exclude", ",".join(targets))
    assert code == 1 and d["status"] == "INFEASIBLE" and not d["identifies"] and d["supports"] == []


def test_synthesize_reports_bound_and_gap(capsys):
    code, d = run_json(capsys, "synthesize", "--all")
    assert (d["status"], d["cost"], d["lower_bound"], d["gap"]) == ("OPTIMAL", 2, 2, 0)
    assert main(["synthesize"]) == 0
    out = capsys.readouterr().out
    assert "lower bound: 2" in out and "gap: 0" in out


def test_synthesize_time_limit_covers_the_call_on_a_large_class(tmp_path):
    import time

    import numpy as np

    from audit_core.identify.scale_classes import random_dense_class

    path = _write(tmp_path, policy_class_to_json(random_dense_class(np.random.default_rng(11), 600, 200)))
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "audit_core", "synthesize", "--policies", path, "--estimand", "file",
                           "--time-limit", "1", "--json"], capture_output=True, text=True, timeout=120)
    elapsed = time.perf_counter() - t0
    assert proc.returncode == 0, proc.stderr
    d = json.loads(proc.stdout)
    assert d["status"] == "FEASIBLE" and d["identifies"]
    assert 0 < d["lower_bound"] < d["cost"] and d["gap"] == d["cost"] - d["lower_bound"]
    assert d["seconds"] < 3.0 * busy_factor()          # the solver's own clock: the limit covers reductions too
    assert elapsed < 30.0 * busy_factor(), elapsed     # generous: start-up and loading the class file on a shared machine
