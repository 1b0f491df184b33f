"""Issue 29 item 6: several runs at once, read as one table with a ``run`` column.

``replay a.csv b.csv`` and ``replay logs/*.eval`` ended in a traceback, ``measure logs/`` (a folder
of Inspect logs) blamed lm-eval, and two logs of the same model could not be measured together.
Now several files and folders are several runs: each read with the same choices, named by its
log's model and task (a CSV by its file name) or by the user's labels, with ``run`` as the first
subgroup (replay) or the model name (measure); anything else is one message.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from audit_core import analyses, api
from audit_core.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"
INSPECT = ROOT / "tests" / "fixtures" / "inspect"
TESTBED = ROOT / "tests" / "fixtures" / "testbed"


def _cli(*argv) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "audit_core", *argv], cwd=ROOT, capture_output=True, text=True)


def test_replay_of_two_csvs_is_one_table_with_a_run_column():
    a, b = DATA / "recorded_run.csv", DATA / "sdoh_style.csv"
    done = _cli("replay", str(a), str(b), "--json")
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["n"] == 53 + 2268 and payload["subgroup_columns"] == ["run", "category"]
    per_run = {}
    for row in payload["subgroups"]:
        per_run[row["run"]] = per_run.get(row["run"], 0) + row["n"]
    assert per_run == {"recorded_run": 53, "sdoh_style": 2268}
    # the same numbers in Python
    assert api.replay([str(a), str(b)]).to_dict()["subgroups"] == payload["subgroups"]


def test_replay_of_a_folder_of_inspect_logs_names_each_run(tmp_path):
    for name in ("first.eval", "second.eval"):
        shutil.copy(INSPECT / "run.eval", tmp_path / name)
    (tmp_path / "logs.json").write_text("{}")      # an eval set's index: not a log
    view = api.replay(str(tmp_path), score="match")
    runs = set(view.data.frame["run"])
    # the same model and task twice: the file names tell the runs apart
    assert runs == {"mockllm/model · arith (first.eval)", "mockllm/model · arith (second.eval)"}
    assert view.result.n == 2 * 23


def test_labels_name_the_runs_and_a_wrong_count_is_one_message(tmp_path):
    a, b = DATA / "recorded_run.csv", DATA / "sdoh_style.csv"
    payload = json.loads(_cli("replay", str(a), str(b), "--label", "pilot", "--label", "main", "--json").stdout)
    assert {row["run"] for row in payload["subgroups"]} == {"pilot", "main"}
    refused = _cli("replay", str(a), str(b), "--label", "only one")
    assert refused.returncode == 2 and "1 label(s) for 2 run(s)" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_measure_a_folder_of_inspect_logs_with_the_same_model_twice(tmp_path):
    for name in ("monday.eval", "tuesday.eval"):
        shutil.copy(TESTBED / "inspect_ideal.eval", tmp_path / name)
    measured = api.measure_log(str(tmp_path), bootstrap=0)
    assert [m.model for m in measured.result.models] == ["mockllm/ideal (monday.eval)", "mockllm/ideal (tuesday.eval)"]
    labelled = api.measure_log(str(tmp_path), bootstrap=0, labels=["before", "after"])
    assert {m.model for m in labelled.result.models} == {"before", "after"}
    done = _cli("measure", str(tmp_path), "--bootstrap", "0", "--label", "before", "--label", "after", "--json")
    assert done.returncode == 0, done.stderr
    assert {m["model"] for m in json.loads(done.stdout)["models"]} == {"before", "after"}


def test_a_folder_without_logs_is_one_message_naming_both_kinds(tmp_path):
    (tmp_path / "notes.txt").write_text("nothing here")
    for call in (lambda: api.measure_log(str(tmp_path)), lambda: api.replay(str(tmp_path))):
        with pytest.raises(InputError, match="no Inspect AI .eval or .json log, no lm-eval samples"):
            call()


def test_uploaded_runs_as_name_and_bytes_pairs_read_like_their_files():
    a, b = DATA / "recorded_run.csv", DATA / "sdoh_style.csv"
    uploads = analyses.run_source([(a.name, a.read_bytes()), (b.name, b.read_bytes())])
    by_path = analyses.run_source([str(a), str(b)])
    assert uploads.key != by_path.key and uploads.key.count("+") == 1
    assert analyses.replay_run(uploads).to_dict()["subgroups"] == analyses.replay_run(by_path).to_dict()["subgroups"]
