"""Estimand-separated results from model response logs (paper 000, "Key empirical results").

Load a long-format log (``model, cluster, cell, response`` + oracle) with
:func:`load_response_log`, then :func:`measure` gives base accuracy, target-follow and sham-stay
given base-correct, local response, τ_full (complete units), readout validity, Wilson and
cluster-bootstrap intervals, and the mutually exclusive behavioural composition;
:func:`measure_invariance` gives mapping/readout invariance, balanced transitions and the
oracle-transition asymmetry.
"""

from audit_core._lazy import lazy_exports

# submodule -> the names it defines; each submodule is imported when one of its names is first used
_EXPORTS = {
    "estimates": (
        "ALL_MODELS", "COMPOSITION", "ENGINE_ESTIMANDS", "ESTIMATES", "TRANSITION_ESTIMATES", "Estimate",
        "Measurement", "ModelMeasure", "TransitionMeasure", "UnitMeasure", "bootstrap_intervals",
        "cluster_bootstrap_weights", "engine_estimands", "measure", "paired_units",
    ),
    "invariance": ("Invariance", "measure_invariance"),
    "log": ("NON_ANSWER", "ResponseLog", "is_non_answer", "load_response_log"),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = [
    "ALL_MODELS",
    "COMPOSITION",
    "ENGINE_ESTIMANDS",
    "ESTIMATES",
    "Estimate",
    "Invariance",
    "Measurement",
    "ModelMeasure",
    "NON_ANSWER",
    "ResponseLog",
    "TRANSITION_ESTIMATES",
    "TransitionMeasure",
    "UnitMeasure",
    "bootstrap_intervals",
    "cluster_bootstrap_weights",
    "engine_estimands",
    "is_non_answer",
    "load_response_log",
    "measure",
    "measure_invariance",
    "paired_units",
]
