"""Names of :mod:`audit_core.auditing`, loaded on first use (``lazy_loader`` reads this stub)."""

from .config import LEARNERS, SCENARIOS, AuditorConfig
from .model import NeuralEnsemble, OnlineEnsemble, RefitEnsemble
from .pool import BUNDLED_POOLS, Pool, build_pool, load_pool
from .strategies import (
    AUDITOR_FOR,
    PAPER_ROWS,
    SAMPLERS,
    SDOH_PAPER_ROWS,
    STRATEGY_NAMES,
    AuditRun,
    Proposal,
    Sampler,
    draw_labels,
    make_sampler,
    paper_rows,
    run_audit,
    simulated_label,
)
from .study import (
    GPQA_STUDY_N_INIT,
    GPQA_STUDY_POOLS,
    Study,
    paper_params,
    replicate_seeds,
    run_paper_studies,
    run_study,
    sampling_frequency_vs_accuracy,
    summarise,
)

__all__ = [
    "AUDITOR_FOR", "AuditorConfig", "AuditRun", "build_pool", "BUNDLED_POOLS", "draw_labels",
    "GPQA_STUDY_N_INIT", "GPQA_STUDY_POOLS", "LEARNERS", "load_pool", "make_sampler", "NeuralEnsemble",
    "OnlineEnsemble", "paper_params", "PAPER_ROWS", "paper_rows", "Pool", "Proposal", "RefitEnsemble",
    "replicate_seeds", "run_audit", "run_paper_studies", "run_study", "Sampler", "SAMPLERS",
    "sampling_frequency_vs_accuracy", "SCENARIOS", "SDOH_PAPER_ROWS", "simulated_label", "STRATEGY_NAMES",
    "Study", "summarise",
]
