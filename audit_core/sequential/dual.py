"""Dual test (paper 001 section 3.2.3, Algorithm 1 of B.1) and first crossings.

Stop at the first step t at which the model's e-process reaches 1/alpha (decision "failure mode
found": the model's null, no failure mode, is rejected) or the auditor's e-process does ("audit
passed": the auditor's null, that its strategy keeps finding subgroups below q from step m on, is
rejected); ties use >=. If both cross at the same step the failure mode wins: a found failure is
never hidden behind a pass. Without a crossing by the budget the audit is "inconclusive". At most
one null is true, so the family-wise error is at most alpha without a Bonferroni correction.
"""

from __future__ import annotations

import numpy as np

from audit_core.errors import InputError
from audit_core.presets import AUDIT_PASSED, DECISIONS, FAILURE_FOUND, INCONCLUSIVE  # noqa: F401 (re-exported)
from audit_core.sequential.checks import as_sequence, check_real
from audit_core.sequential.params import AuditParams
from audit_core.sequential.processes import (
    AUDITOR_PROCESSES,
    DEFAULT_AUDITOR_PROCESS,
    DEFAULT_MODEL_PROCESS,
    MODEL_PROCESSES,
    EProcessSet,
    check_params,
)


def first_crossing(log_e, log_threshold: float) -> int | None:
    """1-based first step with log_e >= log_threshold, or None.

    ``log_e``: one trajectory of log e-values (numbers; -inf and +inf allowed, NaN refused);
    ``log_threshold``: a number, not NaN (``params.log_threshold`` = -log(alpha)).
    """
    values = as_sequence(log_e, "log_e")
    if values.ndim != 1:
        raise InputError(f"log_e: expected one trajectory (a 1-D array), got shape {values.shape}")
    nan = np.isnan(values)
    if nan.any():
        raise InputError(f"log_e: NaN at step {int(np.argmax(nan)) + 1}; a log e-value is a number or ±inf")
    hits = values >= check_real(log_threshold, "log_threshold", allow_inf=True)
    if not hits.any():
        return None
    return int(np.argmax(hits)) + 1


def dual_decision(stop_model: int | None, stop_auditor: int | None) -> tuple[str, int | None]:
    """(decision, stop) from the two first crossings; the model's crossing wins a tie.

    Each stop is None (no crossing) or a 1-based step (a positive whole number).
    """
    for role, stop in (("stop_model", stop_model), ("stop_auditor", stop_auditor)):
        if stop is not None and (isinstance(stop, (bool, np.bool_)) or not isinstance(stop, (int, np.integer))
                                 or stop < 1):
            raise InputError(f"{role}: expected None or a step number >= 1, got {stop!r}")
    if stop_model is not None and (stop_auditor is None or stop_model <= stop_auditor):
        return FAILURE_FOUND, stop_model
    if stop_auditor is not None:
        return AUDIT_PASSED, stop_auditor
    return INCONCLUSIVE, None


def check_roles(model_process: str, auditor_process: str) -> None:
    if not isinstance(model_process, str) or model_process not in MODEL_PROCESSES:
        raise InputError(f"model process: expected one of {', '.join(MODEL_PROCESSES)}, got {model_process!r}")
    if not isinstance(auditor_process, str) or auditor_process not in AUDITOR_PROCESSES:
        raise InputError(f"auditor process: expected one of {', '.join(AUDITOR_PROCESSES)}, got {auditor_process!r}")


class DualTest:
    """Streaming dual test: ``update(y, alternative)`` until ``stopped``.

    ``stopped`` becomes true at the first crossing or when ``params.budget`` scores have been
    seen; further updates raise. ``alternative`` (e.g. the auditor's predicted score of the case)
    goes to both processes, each clipping it to its own side of q: a prediction below q is the
    model-side bet and gives the auditor's UI process a factor of 1 at that step (no bet), and
    vice versa. Fixed-alternative processes (LR, SR-LR, AUD-LR) ignore it.
    """

    def __init__(self, params: AuditParams, model_process: str = DEFAULT_MODEL_PROCESS, auditor_process: str = DEFAULT_AUDITOR_PROCESS):
        check_roles(model_process, auditor_process)
        self.params = check_params(params)
        # one EProcessSet for the pair: one score check and one loop per step, the same numbers as
        # two EProcess updates (tests/sequential/test_fast_paths.py)
        self._pair = EProcessSet(params, names=(model_process, auditor_process))
        self.model = self._pair.processes[model_process]
        self.auditor = self._pair.processes[auditor_process]
        self.decision = INCONCLUSIVE
        self.stop: int | None = None

    @property
    def t(self) -> int:
        return self.model.t

    @property
    def log_e_model(self) -> float:
        return self.model.log_e

    @property
    def log_e_auditor(self) -> float:
        return self.auditor.log_e

    @property
    def stopped(self) -> bool:
        return self.stop is not None or self.t >= self.params.budget

    def update(self, y: float, alternative: float | None = None) -> bool:
        """Feed one score; returns ``stopped``."""
        if self.stopped:
            raise InputError(f"dual test already stopped at step {self.t} ({self.decision}); start a new one")
        self._pair.update(y, alternative)
        self.decision, self.stop = dual_decision(self.model.stop, self.auditor.stop)
        return self.stopped

    def __repr__(self) -> str:
        return (f"DualTest({self.model.name} vs {self.auditor.name}, t={self.t}, "
                f"decision={self.decision!r}, stop={self.stop})")
