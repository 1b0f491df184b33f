"""Names of :mod:`audit_core.sequential`, loaded on first use (``lazy_loader`` reads this stub)."""

from .confseq import ConfidenceSequence, confidence_sequence
from .dual import AUDIT_PASSED, DECISIONS, FAILURE_FOUND, INCONCLUSIVE, DualTest, dual_decision, first_crossing
from .forecaster import EWAForecaster, ewaf_forecasts
from .intervals import wilson_interval
from .likelihood import clip_alternative, log_likelihood_ratio
from .params import AuditParams, audit_params, paper_params
from .processes import (
    AUDITOR_PROCESSES,
    DEFAULT_AUDITOR_PROCESS,
    DEFAULT_MODEL_PROCESS,
    MODEL_PROCESSES,
    PROCESS_NAMES,
    PROCESS_SPECS,
    EProcess,
    EProcessSet,
    aud_lr_log_evalues,
    aud_lr_ui_log_evalues,
    log_evalues,
    lr_log_evalues,
    lr_ui_log_evalues,
    make_process,
    process_log_evalues,
    sr_lr_log_evalues,
    sr_lr_ui_log_evalues,
)
from .replay import FAMILY_WISE, PER_SUBGROUP, DualDecision, Proportion, Replay, proportion, replay, subgroup_table

__all__ = [
    "aud_lr_log_evalues", "aud_lr_ui_log_evalues", "audit_params", "AUDIT_PASSED", "AUDITOR_PROCESSES",
    "AuditParams", "clip_alternative", "confidence_sequence", "ConfidenceSequence", "DECISIONS",
    "DEFAULT_AUDITOR_PROCESS", "DEFAULT_MODEL_PROCESS", "dual_decision", "DualDecision", "DualTest",
    "EProcess", "EProcessSet", "ewaf_forecasts", "EWAForecaster", "FAILURE_FOUND", "FAMILY_WISE",
    "first_crossing", "INCONCLUSIVE", "log_evalues", "log_likelihood_ratio", "lr_log_evalues",
    "lr_ui_log_evalues", "make_process", "MODEL_PROCESSES", "paper_params", "PER_SUBGROUP",
    "process_log_evalues", "PROCESS_NAMES", "PROCESS_SPECS", "Proportion", "proportion", "Replay", "replay",
    "sr_lr_log_evalues", "sr_lr_ui_log_evalues", "subgroup_table", "wilson_interval",
]
