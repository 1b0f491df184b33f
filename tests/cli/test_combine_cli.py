"""``python -m audit_core combine``: e-BH / e-Bonferroni over several replay results."""

import json

import numpy as np
import pandas as pd
import pytest

from audit_core.cli import main
from audit_core.data.loader import load_audit_csv
from audit_core.sequential import AuditParams, replay
from audit_core.sequential.multiple import e_bh, e_bonferroni


@pytest.fixture
def runs(tmp_path):
    rng = np.random.default_rng(11)
    paths = []
    for k, accuracy in enumerate([0.55, 0.6, 0.9, 0.92]):
        n = 200
        frame = pd.DataFrame({"case_id": [f"c{i}" for i in range(n)],
                              "correct": (rng.random(n) < accuracy).astype(int)})
        path = tmp_path / f"model_{k}.csv"
        frame.to_csv(path, index=False)
        paths.append(path)
    return paths


def test_csv_runs_combine_as_the_engine_does(runs, capsys):
    assert main(["combine", *map(str, runs), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    params = AuditParams.gpqa()
    log_e = [float(replay(load_audit_csv(p).scores, params).log_e["SR-LR-UI"][-1]) for p in runs]
    assert [r["log_e"] for r in payload["runs"]] == pytest.approx(log_e)
    assert [r["e-BH"] for r in payload["runs"]] == list(e_bh(log_e, 0.05).rejected)
    assert [r["e-Bonferroni"] for r in payload["runs"]] == list(e_bonferroni(log_e, 0.05).rejected)
    assert payload["runs"][0]["e-BH"] and not payload["runs"][3]["e-BH"]  # the failing model is found


def test_json_runs_and_text_output(runs, tmp_path, capsys):
    jsons = []
    for path in runs[:3]:
        assert main(["replay", str(path), "--json"]) == 0
        out = tmp_path / (path.stem + ".json")
        out.write_text(capsys.readouterr().out)
        jsons.append(str(out))
    assert main(["combine", *jsons, "--method", "e-bh", "--at", "stop"]) == 0
    text = capsys.readouterr().out
    assert "e-BH:" in text and "e-Bonferroni" not in text and "FDR" in text
    assert all(name in text for name in jsons)


def test_bad_input_exits_2(runs, tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["combine", str(runs[0])]) == 2
    assert main(["combine", str(runs[0]), str(bad)]) == 2
    assert main(["combine", str(runs[0]), str(runs[1]), "--level", "2"]) == 2
    assert main(["combine", str(runs[0]), str(runs[0])]) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if line]
    assert len(err) == 4 and all(line.startswith("error: ") for line in err)
