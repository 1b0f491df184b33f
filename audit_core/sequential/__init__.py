"""Anytime-valid dual e-processes (paper 001 section 3.2; docs/e-processes.md, Parameters and defaults).

Streaming (``make_process``, ``DualTest``) and vectorised (``log_evalues`` and the six single
functions) interfaces share one likelihood-ratio function and one forecaster. All values are
log e-values; a process rejects its null when log E_t >= ``params.log_threshold`` = -log(alpha)
(computed as -log(alpha), finite even for alpha = 1e-320).

Every public function raises :class:`audit_core.errors.InputError` naming the bad argument.
Numbers are Python or numpy bools, ints and floats; strings are refused everywhere, numeric ones
such as ``"0.5"`` included (the loaders in ``audit_core.data`` convert file text). Scores must lie
in [0, 1] (NaN refused); q must lie strictly between 1e-6 and 1 - 1e-6 so that neither clipped
alternative interval, [1e-6, q] or [q, 1 - 1e-6], is empty. Alternatives given per step must be
predictable: chosen before that step's score is seen.
"""

from audit_core._lazy import lazy_exports

# submodule -> the names it defines; each submodule is imported when one of its names is first used
_EXPORTS = {
    "confseq": ("ConfidenceSequence", "confidence_sequence"),
    "dual": (
        "AUDIT_PASSED", "DECISIONS", "FAILURE_FOUND", "INCONCLUSIVE", "DualTest", "dual_decision", "first_crossing",
    ),
    "forecaster": ("EWAForecaster", "ewaf_forecasts"),
    "intervals": ("wilson_interval",),
    "likelihood": ("clip_alternative", "log_likelihood_ratio"),
    "params": ("AuditParams", "audit_params", "paper_params"),
    "processes": (
        "AUDITOR_PROCESSES", "DEFAULT_AUDITOR_PROCESS", "DEFAULT_MODEL_PROCESS", "MODEL_PROCESSES", "PROCESS_NAMES",
        "PROCESS_SPECS", "EProcess", "EProcessSet", "aud_lr_log_evalues", "aud_lr_ui_log_evalues", "log_evalues", "lr_log_evalues",
        "lr_ui_log_evalues", "make_process", "process_log_evalues", "sr_lr_log_evalues", "sr_lr_ui_log_evalues",
    ),
    "replay": ("FAMILY_WISE", "PER_SUBGROUP", "DualDecision", "Proportion", "Replay", "proportion", "replay", "subgroup_table"),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = [
    "AUDIT_PASSED", "AUDITOR_PROCESSES", "AuditParams", "ConfidenceSequence", "confidence_sequence", "DECISIONS",
    "DEFAULT_AUDITOR_PROCESS", "DEFAULT_MODEL_PROCESS", "DualTest", "EProcess", "EProcessSet",
    "EWAForecaster", "FAILURE_FOUND", "INCONCLUSIVE", "MODEL_PROCESSES", "PROCESS_NAMES",
    "PROCESS_SPECS", "audit_params", "paper_params", "FAMILY_WISE", "PER_SUBGROUP", "DualDecision", "Proportion", "Replay", "proportion", "aud_lr_log_evalues", "aud_lr_ui_log_evalues", "clip_alternative",
    "dual_decision", "ewaf_forecasts", "first_crossing", "log_evalues", "log_likelihood_ratio",
    "lr_log_evalues", "lr_ui_log_evalues", "make_process", "process_log_evalues",
    "replay", "sr_lr_log_evalues", "subgroup_table", "sr_lr_ui_log_evalues", "wilson_interval",
]
