"""Names of :mod:`audit_core.measure`, loaded on first use (``lazy_loader`` reads this stub)."""

from .estimates import (
    ALL_MODELS,
    COMPOSITION,
    ENGINE_ESTIMANDS,
    ESTIMATES,
    TRANSITION_ESTIMATES,
    Estimate,
    Measurement,
    ModelMeasure,
    TransitionMeasure,
    UnitMeasure,
    bootstrap_intervals,
    cluster_bootstrap_weights,
    engine_estimands,
    measure,
    paired_units,
)
from .identified import ASSUMPTION, IdentifiedModel, IdentifiedTau, IdentifiedUnit, identified_tau
from .interrater import (
    Agreement,
    AgreementStatistic,
    AnnotatorAgreement,
    Disagreement,
    GroupAgreement,
    agreement,
    cohen_kappa,
    krippendorff_alpha,
    percent_agreement,
)
from .invariance import Invariance, measure_invariance
from .log import NON_ANSWER, ResponseLog, is_non_answer, load_response_log

__all__ = [
    "agreement", "Agreement", "AgreementStatistic", "AnnotatorAgreement", "cohen_kappa", "Disagreement",
    "GroupAgreement", "krippendorff_alpha", "percent_agreement",
    "ALL_MODELS", "ASSUMPTION", "bootstrap_intervals", "cluster_bootstrap_weights", "COMPOSITION", "ENGINE_ESTIMANDS",
    "engine_estimands", "Estimate", "ESTIMATES", "identified_tau", "IdentifiedModel", "IdentifiedTau",
    "IdentifiedUnit", "Invariance", "is_non_answer", "load_response_log",
    "measure", "measure_invariance", "Measurement", "ModelMeasure", "NON_ANSWER", "paired_units",
    "ResponseLog", "TRANSITION_ESTIMATES", "TransitionMeasure", "UnitMeasure",
]
