"""Growing runs: replaying a run, then the same run with rows appended, gives identical
trajectories and bounds on the common prefix (a run still being annotated can be re-read)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from audit_core.data.sources import load_audit_source
from audit_core.sequential import PROCESS_NAMES, AuditParams, confidence_sequence, replay

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _assert_prefix(short, long, k: int) -> None:
    for name in PROCESS_NAMES:
        assert np.array_equal(short.log_e[name], long.log_e[name][:k]), name
        stop = long.stops[name]
        assert short.stops[name] == (stop if stop is not None and stop <= k else None), name


def test_appended_csv_rows_keep_the_prefix(tmp_path):
    rng = np.random.default_rng(12)
    n, k = 400, 250
    frame = pd.DataFrame({"case_id": [f"c{i}" for i in range(n)], "domain": rng.choice(["a", "b", "c"], n),
                          "correct": (rng.random(n) < 0.8).astype(int), "order": np.arange(1, n + 1)})
    first, grown = tmp_path / "first.csv", tmp_path / "grown.csv"
    frame.iloc[:k].to_csv(first, index=False)
    frame.to_csv(grown, index=False)
    params = AuditParams.gpqa()
    short_data, long_data = load_audit_source(first), load_audit_source(grown)
    short = replay(short_data.scores, params, subgroups=short_data.subgroup_frame)
    long = replay(long_data.scores, params, subgroups=long_data.subgroup_frame)
    _assert_prefix(short, long, k)
    # each subgroup's anytime-valid bounds: the grown run's sequence extends the first one's
    for domain in "abc":
        y_short = short_data.scores[short_data.frame["domain"].to_numpy() == domain]
        y_long = long_data.scores[long_data.frame["domain"].to_numpy() == domain]
        assert np.array_equal(y_long[:len(y_short)], y_short)
        cs_short, cs_long = confidence_sequence(y_short), confidence_sequence(y_long)
        assert np.array_equal(cs_long.lower[:len(y_short)], cs_short.lower)
        assert np.array_equal(cs_long.upper[:len(y_short)], cs_short.upper)
        row = short.subgroup_table.set_index("domain").loc[domain]
        assert (row["cs_low"], row["cs_high"]) == cs_short.final


def test_appended_lmeval_samples_keep_the_prefix(tmp_path):
    (source,) = sorted((FIXTURES / "lmeval" / "suite").glob("samples_mini_arith_*.jsonl"))
    lines = source.read_text().splitlines(keepends=True)
    first, grown = tmp_path / "first" / source.name, tmp_path / "grown" / source.name
    first.parent.mkdir()
    grown.parent.mkdir()
    first.write_text("".join(lines[:11]))
    grown.write_text("".join(lines))
    params = AuditParams.gpqa()
    short = replay(load_audit_source(first, score="acc").scores, params)
    long = replay(load_audit_source(grown, score="acc").scores, params)
    assert short.n == 11 and long.n == len(lines)
    _assert_prefix(short, long, 11)
