"""Issue 18, item 5: a session keeps the report section of its replay; its per-step log E values
are a float array (8 bytes a step and process), not a list of Python floats (~32), and the
report's JSON is unchanged."""

import json

import numpy as np

from audit_core import analyses
from audit_core.report.document import json_safe


def test_replay_section_keeps_log_e_as_arrays_and_writes_the_same_json():
    view = analyses.replay_run(analyses.run_source("recorded_run"))
    numbers = view.section.numbers
    for process in numbers["processes"].values():
        assert isinstance(process["log_e"], np.ndarray) and process["log_e"].dtype == float
    assert json.dumps(json_safe(numbers)) == json.dumps(json_safe(view.result.to_dict()))
