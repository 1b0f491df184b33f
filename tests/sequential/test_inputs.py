"""Public functions of audit_core.sequential refuse bad input with InputError naming the argument.

Numbers are bools, ints and floats (Python or numpy); strings, numeric ones included, are refused
everywhere. Scores must be numbers in [0, 1]: NaN and out-of-range values are refused by every
function that takes scores.
"""

import math

import numpy as np
import pytest

from audit_core.errors import InputError
from audit_core.sequential import (
    AuditParams,
    DualTest,
    EWAForecaster,
    clip_alternative,
    dual_decision,
    ewaf_forecasts,
    first_crossing,
    log_evalues,
    log_likelihood_ratio,
    lr_ui_log_evalues,
    make_process,
    process_log_evalues,
    replay,
    wilson_interval,
)

P = AuditParams.gpqa(m=3)
Q = P.q
GRID = P.grid_mod


def _process_update(y=1.0, alternative=None, name="LR-UI"):
    return make_process(name, P).update(y, alternative)


def _observe(y):
    EWAForecaster(GRID, Q, "below", P.eta).observe(y)


# (call, argument named in the message): every call gets one bad argument.
BAD_CALLS = {
    "log_evalues scalar": (lambda: log_evalues(0.5, P), "scores"),
    "log_evalues strings": (lambda: log_evalues(["0.5", "1"], P), "scores"),
    "log_evalues None inside": (lambda: log_evalues([0.5, None], P), "scores"),
    "log_evalues ragged": (lambda: log_evalues([[0.5, 1.0], [1.0]], P), "scores"),
    "log_evalues NaN": (lambda: log_evalues([0.5, math.nan], P), "scores"),
    "log_evalues string alternatives": (lambda: log_evalues([1.0, 0.0], P, alternatives=["0.8", "0.8"]), "alternatives"),
    "log_evalues alternatives shape": (lambda: log_evalues([1.0, 0.0], P, alternatives=[0.8]), "alternatives"),
    "log_evalues params dict": (lambda: log_evalues([1.0], {"q": 0.85}), "params"),
    "process_log_evalues scalar": (lambda: process_log_evalues("LR", 1.0, P), "scores"),
    "lr_ui string alternative": (lambda: lr_ui_log_evalues([1.0], P, alternatives="0.8"), "alternatives"),
    "process name list": (lambda: process_log_evalues(["LR"], [1.0], P), "process"),
    "update string score": (lambda: _process_update("1"), "score"),
    "update NaN score": (lambda: _process_update(math.nan), "score"),
    "update string alternative": (lambda: _process_update(1.0, "0.8"), "alternative"),
    "update list alternative": (lambda: _process_update(1.0, [0.8]), "alternative"),
    "make_process params": (lambda: make_process("LR", None), "params"),
    "dual string alternative": (lambda: DualTest(P).update(1.0, "0.9"), "alternative"),
    "dual string score": (lambda: DualTest(P).update("0"), "score"),
    "clip string alternative": (lambda: clip_alternative("0.5", Q, "above"), "alternative"),
    "clip NaN alternative": (lambda: clip_alternative(math.nan, Q, "above"), "alternative"),
    "clip string q": (lambda: clip_alternative(0.5, "0.85", "above"), "q"),
    "clip side": (lambda: clip_alternative(0.5, Q, "left"), "side"),
    "llr string score": (lambda: log_likelihood_ratio("1", 0.8, Q, "below"), "score"),
    "llr NaN score": (lambda: log_likelihood_ratio(math.nan, 0.8, Q, "below"), "score"),
    "llr score above 1": (lambda: log_likelihood_ratio(1.5, 0.8, Q, "below"), "score"),
    "llr NaN in array": (lambda: log_likelihood_ratio(np.array([1.0, np.nan]), 0.8, Q, "below"), "scores"),
    "llr negative in array": (lambda: log_likelihood_ratio([1.0, -0.1], 0.8, Q, "below"), "scores"),
    "llr string alternative": (lambda: log_likelihood_ratio(1.0, "0.8", Q, "below"), "alternative"),
    "llr shapes": (lambda: log_likelihood_ratio([1.0, 0.0, 1.0], [0.8, 0.8], Q, "below"), "alternative"),
    "ewaf scalar": (lambda: ewaf_forecasts(0.5, GRID, Q, "below", 0.1), "scores"),
    "ewaf NaN": (lambda: ewaf_forecasts([0.5, math.nan], GRID, Q, "below", 0.1), "scores"),
    "ewaf out of range": (lambda: ewaf_forecasts([0.5, 1.2], GRID, Q, "below", 0.1), "scores"),
    "ewaf string scores": (lambda: ewaf_forecasts(["1", "0"], GRID, Q, "below", 0.1), "scores"),
    "ewaf string grid": (lambda: ewaf_forecasts([1.0], ["0.6"], Q, "below", 0.1), "grid"),
    "ewaf grid wrong side": (lambda: ewaf_forecasts([1.0], (0.9,), Q, "below", 0.1), "grid"),
    "ewaf eta": (lambda: ewaf_forecasts([1.0], GRID, Q, "below", 0.0), "eta"),
    "ewaf q": (lambda: ewaf_forecasts([1.0], GRID, 1.0, "below", 0.1), "q"),
    "forecaster grid": (lambda: EWAForecaster((), Q, "below", 0.1), "grid"),
    "observe NaN": (lambda: _observe(math.nan), "score"),
    "observe out of range": (lambda: _observe(-0.5), "score"),
    "observe string": (lambda: _observe("1"), "score"),
    "first_crossing NaN": (lambda: first_crossing([0.0, math.nan, 5.0], 1.0), "log_e"),
    "first_crossing strings": (lambda: first_crossing(["0", "5"], 1.0), "log_e"),
    "first_crossing scalar": (lambda: first_crossing(3.0, 1.0), "log_e"),
    "first_crossing 2-D": (lambda: first_crossing(np.zeros((2, 3)), 1.0), "log_e"),
    "first_crossing string threshold": (lambda: first_crossing([0.0, 5.0], "3"), "log_threshold"),
    "first_crossing NaN threshold": (lambda: first_crossing([0.0, 5.0], math.nan), "log_threshold"),
    "dual_decision string": (lambda: dual_decision("3", None), "stop_model"),
    "dual_decision zero": (lambda: dual_decision(None, 0), "stop_auditor"),
    "wilson string": (lambda: wilson_interval("3", 10), "successes"),
    "wilson string confidence": (lambda: wilson_interval(3, 10, "0.9"), "confidence"),
    "wilson shapes": (lambda: wilson_interval([1, 2, 3], [4, 5]), "wilson_interval"),
    "replay string scores": (lambda: replay(["1", "0"], P), "scores"),
    "replay params": (lambda: replay([1.0, 0.0], "gpqa"), "params"),
    "params string grid": (lambda: AuditParams.gpqa(grid_mod=("0.6", "0.7")), "parameter grid_mod"),
    "params string q": (lambda: AuditParams.gpqa(q="0.85"), "parameter q"),
    "params nested grid": (lambda: AuditParams.gpqa(grid_aud=((0.9, 0.91),)), "parameter grid_aud"),
}


@pytest.mark.parametrize("case", list(BAD_CALLS))
def test_bad_input_is_input_error_naming_the_argument(case):
    call, role = BAD_CALLS[case]
    with pytest.raises(InputError) as info:
        call()
    assert str(info.value).startswith(role), str(info.value)


def test_numbers_of_every_kind_are_accepted_and_equal():
    y = np.array([1.0, 0.0, 1.0, 1.0])
    expected = log_evalues(y, P)
    for same in (np.array([True, False, True, True]), [1, 0, 1, 1], y.astype(np.float32), list(y)):
        got = log_evalues(same, P)
        for name in expected:
            assert np.allclose(got[name], expected[name], atol=1e-6), (type(same), name)
    streamed = make_process("LR-UI", P)
    streamed.update(np.float32(1.0), alternative=np.float64(0.8))
    streamed.update(True, alternative=np.int64(0))
    assert streamed.last_alternative == 1e-6  # alternative 0 is clipped to CLIP, never to -inf
    assert log_evalues([1.0, 0.0], P, names="LR")["LR"].shape == (2,)  # one name as a string
    assert log_likelihood_ratio(1, 0.8, Q, "below") == pytest.approx(math.log(0.8 / Q))
    assert isinstance(log_likelihood_ratio(1.0, 0.8, Q, "below"), float)
    assert first_crossing([0.0, -math.inf, math.inf], 1.0) == 3


def test_nan_alternative_means_the_forecast_in_both_interfaces():
    y = [1.0, 0.0, 1.0]
    plain = log_evalues(y, P, names=("LR-UI",))["LR-UI"]
    assert np.array_equal(log_evalues(y, P, alternatives=[math.nan] * 3, names=("LR-UI",))["LR-UI"], plain)
    process = make_process("LR-UI", P)
    assert [process.update(v, math.nan) for v in y] == pytest.approx(list(plain), abs=1e-12)
