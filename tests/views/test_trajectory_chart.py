"""The e-process trajectory chart keeps everything it draws inside its x axis."""

import pandas as pd

from audit_core.views.charts import trajectory_chart


def _traj(n):
    return pd.DataFrame([{"step": t, "process": p, "test": "model's null", "log10_e": 0.01 * t}
                         for t in range(1, n + 1) for p in ("LR", "SR-LR")])


def _x_rules(spec):
    return [layer for layer in spec["layer"] if layer.get("mark", {}).get("type") == "rule"
            and "x" in layer.get("encoding", {})]


def test_m_inside_the_run_is_a_dotted_line():
    spec = trajectory_chart(_traj(60), pd.DataFrame(), 1.3, 40).to_dict()
    assert len(_x_rules(spec)) == 1 and "dotted vertical line: m = 40" in " ".join(spec["title"]["subtitle"])


def test_m_after_the_last_case_is_named_not_drawn_outside_the_plot():
    spec = trajectory_chart(_traj(23), pd.DataFrame(), 1.3, 40).to_dict()
    assert _x_rules(spec) == []
    assert "starts at m = 40, after the last case" in " ".join(spec["title"]["subtitle"])
