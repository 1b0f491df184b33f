"""``python -m audit_core compare A B [C ...]``: the same result as ``audit_core.compare``, the
regression gate's exit codes, many runs (files, a long CSV, a folder of Inspect logs)."""

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import audit_core
from audit_core.cli import main

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "inspect" / "run.eval"


def _write(tmp_path, name, ids, scores, domain=None):
    frame = pd.DataFrame({"case_id": ids, "correct": scores})
    if domain is not None:
        frame["domain"] = domain
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return str(path)


def _paired(rng, n, p_a, delta):
    u = rng.random(n)
    v = np.where(rng.random(n) < 0.7, u, rng.random(n))
    return (u < p_a).astype(int), (v < p_a + delta).astype(int)


def test_compare_json_and_text(tmp_path, capsys):
    rng = np.random.default_rng(2)
    ids = [f"q{i}" for i in range(120)]
    domain = rng.choice(["Chemistry", "Physics"], 120)
    a = _write(tmp_path, "v1.csv", ids, (rng.random(120) < 0.9).astype(int), domain)
    b = _write(tmp_path, "v2.csv", ids[:110] + ["new1"], (rng.random(111) < 0.7).astype(int))
    assert main(["compare", a, b, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["n_common"] == 110 and payload["only_a"]["count"] == 10 and payload["only_b"]["ids"] == ["new1"]
    assert payload["subgroup_columns"] == ["domain"] and len(payload["subgroups"]) == 2
    assert payload["overall"]["regressions"] == len(payload["regressions"])
    assert [d["name"] for d in payload["decisions"]] == ["v1.csv", "v2.csv"]
    assert payload["runs"]["unmatched"]["v1.csv"]["count"] == 10 and payload["runs"]["unmatched"]["v2.csv"]["ids"] == ["new1"]
    assert payload["sequential"]["n"] == 110 and payload["margin"] == 0.02
    assert main(["compare", a, b, "--name-a", "old", "--name-b", "new"]) == 0
    text = capsys.readouterr().out
    assert "new vs old: 110 common cases" in text and "Regressions" in text and "Newcombe" in text
    assert "Anytime-valid 95% bounds on B - A" in text and "Exact McNemar test" in text


def test_cli_and_python_give_the_same_result(tmp_path, capsys):
    rng = np.random.default_rng(3)
    ids = [f"c{i}" for i in range(400)]
    y_a, y_b = _paired(rng, 400, 0.6, 0.15)
    a, b = _write(tmp_path, "a.csv", ids, y_a), _write(tmp_path, "b.csv", ids, y_b)
    assert main(["compare", a, b, "--margin", "0.03", "--budget", "300", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    api = audit_core.compare(a, b, margin=0.03, budget=300).to_dict()
    assert cli == json.loads(json.dumps(api, default=str))
    assert cli["sequential"]["n"] == 300 and cli["sequential"]["decision"] == "B better"


def test_fail_on_worse_is_a_regression_gate(tmp_path, capsys):
    rng = np.random.default_rng(4)
    ids = [f"c{i}" for i in range(1500)]
    good, worse = _paired(rng, 1500, 0.6, -0.12)     # B worse than A by 0.12
    a, b = _write(tmp_path, "base.csv", ids, good), _write(tmp_path, "cand.csv", ids, worse)
    assert main(["compare", a, b, "--margin", "0.02", "--fail-on", "worse"]) == 1
    assert "cand.csv is worse than base.csv by more than the margin" in capsys.readouterr().out
    assert main(["compare", b, a, "--margin", "0.02", "--fail-on", "worse"]) == 0       # improvement: passes
    assert main(["compare", a, a.replace("base", "base"), "--fail-on", "worse"]) == 0   # the same run
    same_a, same_b = _paired(rng, 60, 0.6, 0.0)
    small_a, small_b = _write(tmp_path, "sa.csv", ids[:60], same_a), _write(tmp_path, "sb.csv", ids[:60], same_b)
    assert main(["compare", small_a, small_b, "--fail-on", "worse"]) == 0
    assert main(["compare", small_a, small_b, "--fail-on", "not-non-inferior"]) == 1   # 60 cases prove nothing
    capsys.readouterr()


def test_many_runs_from_files_and_from_a_long_csv_agree(tmp_path, capsys):
    rng = np.random.default_rng(5)
    n, ids = 600, [f"c{i}" for i in range(600)]
    u = rng.random(n)
    accuracies = {"m1": 0.5, "m2": 0.5, "m3": 0.8}
    runs = {name: (np.where(rng.random(n) < 0.7, u, rng.random(n)) < p).astype(int) for name, p in accuracies.items()}
    paths = [_write(tmp_path, f"{name}.csv", ids, y) for name, y in runs.items()]
    long = pd.concat([pd.DataFrame({"case_id": ids, "run": name, "correct": y}) for name, y in runs.items()])
    long.to_csv(tmp_path / "long.csv", index=False)
    assert main(["compare", *paths, "--name", "m1", "--name", "m2", "--name", "m3", "--json"]) == 0
    from_files = json.loads(capsys.readouterr().out)["runs"]
    assert main(["compare", str(tmp_path / "long.csv"), "--json"]) == 0
    from_long = json.loads(capsys.readouterr().out)["runs"]
    assert from_files["pairs"] == from_long["pairs"] and from_files["groups"] == from_long["groups"]
    assert from_files["groups"] == [["m3"], ["m1", "m2"]] or from_files["groups"] == [["m3"], ["m2", "m1"]]
    assert from_files["multiplicity"] == "e-Bonferroni" and from_files["family_size"] == 3
    ranks = {r["run"]: (r["rank_low"], r["rank_high"]) for r in from_files["ranks"]}
    assert ranks["m3"] == (1, 1) and ranks["m1"] == ranks["m2"] == (2, 3)
    assert main(["compare", str(tmp_path / "long.csv")]) == 0
    assert "group 1: m3" in capsys.readouterr().out


def _inspect_folder(folder: Path, accuracies, seed=0) -> None:
    """Copies of the fixture log whose ``match`` scores are seeded draws at the given accuracies."""
    from audit_core.data.inspect_log import _zip_member
    raw = FIXTURE.read_bytes()
    archive = zipfile.ZipFile(io.BytesIO(raw))
    members = {i.filename: _zip_member(archive, raw, i) for i in archive.infolist()}
    rng = np.random.default_rng(seed)
    folder.mkdir()
    for r, p in enumerate(accuracies):
        with zipfile.ZipFile(folder / f"run{r + 1}.eval", "w", zipfile.ZIP_DEFLATED) as out:
            for name, data in members.items():
                if name.startswith("samples/"):
                    sample = json.loads(data)
                    if sample.get("scores"):
                        sample["scores"]["match"]["value"] = "C" if rng.random() < p else "I"
                    data = json.dumps(sample).encode()
                out.writestr(name, data)


def test_a_folder_of_five_inspect_logs(tmp_path, capsys):
    _inspect_folder(tmp_path / "logs", [0.5, 0.6, 0.7, 0.8, 0.9])
    assert main(["compare", str(tmp_path / "logs"), "--score", "match", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    runs = payload["runs"]
    assert runs["names"] == [f"run{i}.eval" for i in range(1, 6)] and runs["family_size"] == 10
    assert runs["n"] == 23                        # 24 samples, one errored (q07) in every log
    assert payload["names"] == ["run1.eval", "run2.eval"] and payload["sequential"]["decision"] == "continue"


@pytest.mark.parametrize("args,message", [
    (["--margin", "1.5"], "margin"), (["--confidence", "1.5"], "confidence"), (["--budget", "0"], "budget")])
def test_compare_bad_input(tmp_path, capsys, args, message):
    a = _write(tmp_path, "a.csv", ["x", "y"], [1, 0])
    assert main(["compare", a, a, *args]) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if line]
    assert len(err) == 1 and err[0].startswith("error: ") and message in err[0]


def test_compare_refuses_disjoint_runs_and_one_table_without_a_run_column(tmp_path, capsys):
    a = _write(tmp_path, "a.csv", ["x", "y"], [1, 0])
    b = _write(tmp_path, "b.csv", ["z"], [1])
    assert main(["compare", a, b]) == 2
    assert main(["compare", a]) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if line]
    assert len(err) == 2 and "no case id in common" in err[0] and "'run' column" in err[1]


def test_runs_spanning_tasks_are_compared_per_task_and_pooled(tmp_path, capsys):
    """A long CSV with a ``task`` column: m2 beats m1 on 'code' by far, ties it on 'facts'; the
    per-task groups say so, the pooled ones weigh every case alike; CLI and Python agree."""
    rng = np.random.default_rng(8)
    n = 400
    rows = []
    for task, accuracies in (("code", {"m1": 0.3, "m2": 0.9}), ("facts", {"m1": 0.7, "m2": 0.7})):
        u = rng.random(n)
        for name, p in accuracies.items():
            y = (np.where(rng.random(n) < 0.7, u, rng.random(n)) < p).astype(int)
            rows.append(pd.DataFrame({"case_id": [f"{task}/{i}" for i in range(n)], "task": task, "run": name,
                                      "correct": y}))
    path = tmp_path / "long.csv"
    pd.concat(rows).to_csv(path, index=False)
    assert main(["compare", str(path), "--json"]) == 0
    tasks = json.loads(capsys.readouterr().out)["tasks"]
    assert tasks["tasks"] == ["code", "facts"]
    assert tasks["per_task"]["code"]["groups"] == [["m2"], ["m1"]]
    assert len(tasks["per_task"]["facts"]["groups"]) == 1
    assert tasks["per_task"]["code"]["alpha"] == pytest.approx(0.025) and tasks["pooled"]["alpha"] == pytest.approx(0.05)
    assert tasks["pooled"]["n"] == 2 * n and tasks["per_task"]["code"]["n"] == n
    assert tasks == audit_core.compare(str(path)).to_dict()["tasks"]
    assert main(["compare", str(path)]) == 0
    text = capsys.readouterr().out
    assert "Per task and pooled" in text and "code" in text and "{m2} > {m1}" in text
