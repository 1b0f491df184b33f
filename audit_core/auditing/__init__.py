"""Auditing strategies and simulation studies (paper 001 section 4; docs/e-processes.md, Auditing strategies).

* :mod:`.pool`: the population an auditor samples from (:func:`load_pool`).
* :mod:`.model`: the online accuracy model of the adaptive auditor.
* :mod:`.strategies`: stratified, pre-learned, oracle, informed prior and adaptive sampling, in
  scenario (a) pool / (b) bank, one :class:`Sampler` per strategy (``select`` / ``observe``), and
  :func:`run_audit` (one audit: a sampler through the streaming DualTest).
* :mod:`.study`: :func:`run_study` (rows x replicates, seeded, parallel) and the sampling-frequency
  analysis of the SDoH study.
"""

from audit_core._lazy import lazy_exports

# submodule -> the names it defines; each submodule is imported when one of its names is first used
_EXPORTS = {
    "config": ("LEARNERS", "SCENARIOS", "AuditorConfig"),
    "model": ("NeuralEnsemble", "OnlineEnsemble", "RefitEnsemble"),
    "pool": ("BUNDLED_POOLS", "Pool", "build_pool", "load_pool"),
    "strategies": (
        "AUDITOR_FOR", "PAPER_ROWS", "SAMPLERS", "SDOH_PAPER_ROWS", "STRATEGY_NAMES", "AuditRun", "Proposal",
        "Sampler", "draw_labels", "make_sampler", "paper_rows", "run_audit", "simulated_label",
    ),
    "study": (
        "GPQA_STUDY_N_INIT", "GPQA_STUDY_POOLS", "Study", "paper_params", "replicate_seeds", "run_paper_studies",
        "run_study", "sampling_frequency_vs_accuracy", "summarise",
    ),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = [
    "AUDITOR_FOR", "AuditRun", "GPQA_STUDY_N_INIT", "GPQA_STUDY_POOLS", "paper_params", "run_paper_studies", "AuditorConfig", "BUNDLED_POOLS", "LEARNERS", "NeuralEnsemble", "OnlineEnsemble", "PAPER_ROWS", "Pool",
    "RefitEnsemble", "SCENARIOS", "SDOH_PAPER_ROWS", "STRATEGY_NAMES", "Study", "build_pool",
    "draw_labels", "load_pool", "make_sampler", "Proposal", "Sampler", "SAMPLERS", "simulated_label", "paper_rows", "replicate_seeds", "run_audit", "run_study",
    "sampling_frequency_vs_accuracy", "summarise",
]
