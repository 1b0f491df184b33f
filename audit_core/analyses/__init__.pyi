"""Names of :mod:`audit_core.analyses`, loaded on first use (``lazy_loader`` reads this stub)."""

from . import live  # a submodule named as a use case (pages/_warm.py)
from .choices import (
    AUDITOR_PROCESSES,
    BUNDLED,
    BUNDLED_POOLS,
    COMPARE_MARGIN,
    DEFAULT_AUDITOR_PROCESS,
    DEFAULT_MODEL_PROCESS,
    DEFAULT_RUN,
    ESTIMANDS,
    FAMILY_FLAG,
    MODEL_PROCESSES,
    NULL_POOL,
    STRATEGY_NAMES,
    STYLES,
    SUBGROUP_FLAG,
    AuditParams,
    audit_params,
    available_estimands,
    estimand_unavailable,
    paper_params,
    paper_rows,
    resolve_style,
)
from .combine import CombinedAudits, combine_audits, combine_files
from .common import Verdict
from .compare import RunsComparison, compare_runs
from .confseq import SubgroupSequences, subgroup_sequences
from .follow import Reading, follow_run
from .identify import (
    BEHAVIOURS,
    BehaviourRule,
    SupportExploration,
    SupportSearch,
    add_policy,
    check_supports,
    class_file,
    class_from_link,
    class_link,
    composable,
    copy_policy,
    explore_support,
    identify_support,
    lattice_overview,
    load_solver,
    policy_row,
    remove_policy,
    rename_axes,
    support_lattice,
)
from .live_status import LiveAction, live_audit_status
from .measure import LogMeasurement, measure_log
from .plan import PlannedAudit, PlannedRun, assumed_pool_source, plan_inspect_run, plan_study
from .replay import ACCEPTED_SCORES, RunReplay, missing_score_count, replay_run, score_labels, typed_run
from .simulate import StudySimulation, simulate_study
from .sources import (
    RunTable,
    Source,
    content_key,
    file_bytes,
    follow_access,
    policy_source,
    pool_source,
    response_log_source,
    run_source,
)
from .testbed import (
    ALL_DIRECTIONS,
    TestbedCheck,
    TestbedItems,
    check_testbed,
    generate_testbed,
    testbed_manifest_text,
    testbed_support,
)

__all__ = [
    "ACCEPTED_SCORES", "add_policy", "ALL_DIRECTIONS", "assumed_pool_source", "audit_params",
    "AUDITOR_PROCESSES", "AuditParams", "available_estimands", "BehaviourRule", "BEHAVIOURS", "BUNDLED",
    "BUNDLED_POOLS", "check_supports", "check_testbed", "class_file", "class_from_link", "class_link",
    "combine_audits", "combine_files", "CombinedAudits", "COMPARE_MARGIN", "compare_runs", "composable",
    "content_key", "copy_policy", "DEFAULT_AUDITOR_PROCESS", "DEFAULT_MODEL_PROCESS", "DEFAULT_RUN",
    "estimand_unavailable", "ESTIMANDS", "explore_support", "file_bytes", "follow_access", "generate_testbed", "testbed_manifest_text", "testbed_support",
    "identify_support", "lattice_overview", "live", "live_audit_status", "LiveAction", "load_solver",
    "LogMeasurement", "measure_log", "missing_score_count", "MODEL_PROCESSES", "NULL_POOL", "paper_params",
    "paper_rows", "plan_inspect_run", "plan_study", "PlannedAudit", "PlannedRun", "policy_row", "policy_source", "pool_source", "remove_policy",
    "rename_axes", "replay_run", "resolve_style", "response_log_source", "run_source", "RunReplay",
    "RunsComparison", "RunTable", "score_labels", "simulate_study", "Source", "STRATEGY_NAMES",
    "StudySimulation", "STYLES", "support_lattice", "SupportExploration", "SupportSearch", "TestbedCheck",
    "TestbedItems", "typed_run", "Verdict", "SubgroupSequences", "subgroup_sequences", "FAMILY_FLAG",
    "SUBGROUP_FLAG", "follow_run", "Reading",
]
