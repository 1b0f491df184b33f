"""Issue 29 item 7: rows without a score are counted and left out only when asked.

A 5,000-row run with 2 % of its score cells empty was refused whole, and the command line blamed
label mapping ("holds labels (, 1, 0)... suggests 1=1, 0=0"). Now the message says how many rows
have no score and how to leave them out (``drop_missing``; ``--drop-missing``; the Replay page's
checkbox), and a replay that leaves them out says how many in its warnings.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from audit_core import analyses, api
from audit_core.errors import InputError

ROOT = Path(__file__).resolve().parents[2]


def _run_with_gaps(tmp_path: Path) -> tuple[Path, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(29)
    scores = (rng.random(5000) < 0.9).astype(int)
    missing = np.zeros(5000, dtype=bool)
    missing[rng.choice(5000, size=100, replace=False)] = True   # 2 %
    lines = ["case_id,domain,correct"] + [f"c{i},{'ab'[i % 2]},{'' if missing[i] else scores[i]}" for i in range(5000)]
    path = tmp_path / "run.csv"
    path.write_text("\n".join(lines) + "\n")
    return path, scores, missing


def test_missing_scores_are_refused_saying_how_many_not_blaming_labels(tmp_path):
    path, _, _ = _run_with_gaps(tmp_path)
    with pytest.raises(InputError) as caught:
        api.replay(str(path), subgroup="domain")
    message = str(caught.value)
    assert "100 of 5,000 rows (2.0%) have no score in column 'correct'" in message
    assert "leave out the rows without a score" in message and "labels" not in message and "mapping" not in message


def test_drop_missing_replays_the_scored_rows_and_says_so(tmp_path):
    path, scores, missing = _run_with_gaps(tmp_path)
    view = api.replay(str(path), subgroup="domain", drop_missing=True)
    assert view.result.n == 4900
    assert view.result.overall.accuracy == pytest.approx(scores[~missing].mean(), abs=1e-12)
    assert view.to_dict()["warnings"] == [w for w in view.data.warnings]
    assert "100 of 5,000 rows" in view.data.warnings[0] and "left out" in view.data.warnings[0]
    # the same run through the use case a page calls, and the count the page's checkbox shows
    source = analyses.run_source(str(path))
    assert analyses.missing_score_count(source, "correct") == 100
    page = analyses.replay_run(source, subgroups=("domain",), drop_missing=True)
    assert page.to_dict() == view.to_dict()


def test_cli_names_the_flag_and_drop_missing_exits_0(tmp_path):
    path, _, _ = _run_with_gaps(tmp_path)
    refused = subprocess.run([sys.executable, "-m", "audit_core", "replay", str(path)], cwd=ROOT,
                             capture_output=True, text=True)
    assert refused.returncode == 2 and "--drop-missing" in refused.stderr and "suggests" not in refused.stderr
    done = subprocess.run([sys.executable, "-m", "audit_core", "replay", str(path), "--drop-missing", "--json"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["n"] == 4900 and "100 of 5,000 rows" in payload["warnings"][0]
    text = subprocess.run([sys.executable, "-m", "audit_core", "replay", str(path), "--drop-missing"], cwd=ROOT,
                          capture_output=True, text=True).stdout
    assert "Warning: 100 of 5,000 rows" in text
