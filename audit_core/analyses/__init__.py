"""Use cases: one function per thing a user does, shared by every page and every CLI command.

Each function loads nothing itself (a :class:`Source` comes in), names the engine calls it makes,
and returns one frozen result holding the engine result, its display tables, its chart specs, its
:class:`~audit_core.report.ReportSection` and a one-line :class:`Verdict`. Pages draw these fields;
CLI commands print them; nothing is assembled twice.

* :mod:`.sources`: bundled or uploaded inputs as :class:`Source` (one call per kind).
* :mod:`.identify`: :func:`identify_support`, :func:`explore_support`, :func:`support_lattice`, :func:`check_supports`.
* :mod:`.measure`: :func:`measure_log`.
* :mod:`.replay`: :func:`replay_run`.
* :mod:`.simulate`: :func:`simulate_study`.
* :mod:`.plan`: :func:`plan_study` (how many labels will the audit need?).
* :mod:`.compare`: :func:`compare_runs` (two runs, case by case).
* :mod:`.combine`: :func:`combine_audits` (e-BH, e-Bonferroni over several audits).
* :mod:`.testbed`: :func:`generate_testbed`, :func:`check_testbed` (solver-grounded items).
* :mod:`.live`: live audits (start, claim, label, undo, export) for the Live audit page.
* :mod:`.live_status`: :func:`live_audit_status` (from the event log alone) and :class:`LiveAction`.
"""

from audit_core._lazy import lazy_exports

# submodule -> the names it defines; each submodule is imported when one of its names is first used
_EXPORTS = {
    "combine": ("CombinedAudits", "combine_audits", "combine_files"),
    "common": ("Verdict",),
    "compare": ("RunsComparison", "compare_runs"),
    "identify": (
        "BEHAVIOURS", "BehaviourRule", "SupportExploration", "SupportSearch", "add_policy", "check_supports",
        "class_file", "class_from_link", "class_link", "composable", "copy_policy", "explore_support",
        "identify_support", "lattice_overview", "load_solver", "policy_row", "remove_policy", "rename_axes",
        "support_lattice",
    ),
    "live_status": ("LiveAction", "live_audit_status"),
    "measure": ("LogMeasurement", "measure_log"),
    "plan": ("PlannedAudit", "assumed_pool_source", "plan_study"),
    "replay": ("ACCEPTED_SCORES", "RunReplay", "missing_score_count", "replay_run", "score_labels", "typed_run"),
    "simulate": ("StudySimulation", "simulate_study"),
    "sources": (
        "RunTable", "Source", "content_key", "file_bytes", "follow_access", "policy_source", "pool_source", "response_log_source",
        "run_source",
    ),
    "testbed": ("ALL_DIRECTIONS", "TestbedCheck", "TestbedItems", "check_testbed", "generate_testbed"),
    # Re-exports, each from the lightest module that defines it (a page's choices load no engine).
    "audit_core.data.bundled": ("BUNDLED",),
    "audit_core.identify.estimands": ("ESTIMANDS", "available_estimands", "estimand_unavailable"),
    "audit_core.presets": (
        "AUDITOR_PROCESSES", "BUNDLED_POOLS", "DEFAULT_AUDITOR_PROCESS", "DEFAULT_MODEL_PROCESS", "DEFAULT_RUN",
        "MODEL_PROCESSES", "NULL_POOL", "STRATEGY_NAMES", "STYLES", "paper_rows", "COMPARE_MARGIN", "resolve_style",
    ),
    "audit_core.sequential.params": ("AuditParams", "audit_params", "paper_params"),
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

# The choices a page offers (estimands, processes, styles, bundled data, paper presets) are
# re-exported here, so pages import the use-case layer and nothing below it.
__all__ = [
    "ACCEPTED_SCORES", "AUDITOR_PROCESSES", "AuditParams", "BUNDLED", "BUNDLED_POOLS", "DEFAULT_AUDITOR_PROCESS",
    "DEFAULT_MODEL_PROCESS", "DEFAULT_RUN", "ESTIMANDS", "available_estimands", "estimand_unavailable", "MODEL_PROCESSES", "NULL_POOL", "STRATEGY_NAMES", "STYLES",
    "audit_params", "paper_params", "paper_rows", "COMPARE_MARGIN", "resolve_style",
    "CombinedAudits", "LogMeasurement", "PlannedAudit", "RunReplay", "RunsComparison", "assumed_pool_source",
    "combine_audits", "combine_files", "compare_runs", "plan_study", "typed_run", "TestbedCheck", "TestbedItems", "check_testbed",
    "generate_testbed", "ALL_DIRECTIONS", "BEHAVIOURS", "BehaviourRule", "add_policy", "class_file",
    "class_from_link", "class_link", "copy_policy", "policy_row", "remove_policy", "composable", "rename_axes", "RunTable", "Source", "file_bytes", "follow_access", "StudySimulation", "SupportExploration",
    "SupportSearch", "Verdict", "check_supports", "content_key", "explore_support", "identify_support", "lattice_overview", "load_solver", "measure_log",
    "missing_score_count", "policy_source", "pool_source", "replay_run", "response_log_source", "score_labels",
    "run_source",
    "simulate_study", "support_lattice",
]
