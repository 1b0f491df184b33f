"""``python -m audit_core compare A B``."""

import json

import numpy as np
import pandas as pd

from audit_core.cli import main


def _write(tmp_path, name, ids, scores, domain=None):
    frame = pd.DataFrame({"case_id": ids, "correct": scores})
    if domain is not None:
        frame["domain"] = domain
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return str(path)


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
    assert main(["compare", a, b, "--name-a", "old", "--name-b", "new"]) == 0
    text = capsys.readouterr().out
    assert "new vs old: 110 common cases" in text and "Regressions" in text and "Newcombe" in text


def test_compare_bad_input(tmp_path, capsys):
    a = _write(tmp_path, "a.csv", ["x", "y"], [1, 0])
    b = _write(tmp_path, "b.csv", ["z"], [1])
    assert main(["compare", a, b]) == 2
    assert main(["compare", a, a, "--confidence", "1.5"]) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if line]
    assert len(err) == 2 and all(line.startswith("error: ") for line in err)
