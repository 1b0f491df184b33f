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
"""

from audit_core.analyses.combine import CombinedAudits, combine_audits
from audit_core.analyses.common import Verdict
from audit_core.analyses.compare import RunsComparison, compare_runs
from audit_core.analyses.identify import (
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
    policy_row,
    remove_policy,
    rename_axes,
    support_lattice,
)
from audit_core.analyses.measure import LogMeasurement, measure_log
from audit_core.analyses.plan import PlannedAudit, assumed_pool_source, plan_study
from audit_core.analyses.replay import ACCEPTED_SCORES, RunReplay, replay_run, score_labels, typed_run
from audit_core.analyses.simulate import StudySimulation, simulate_study
from audit_core.analyses.sources import (
    RunTable,
    Source,
    content_key,
    file_bytes,
    policy_source,
    pool_source,
    response_log_source,
    run_source,
)
from audit_core.analyses.testbed import ALL_DIRECTIONS, TestbedCheck, TestbedItems, check_testbed, generate_testbed
from audit_core.auditing import STRATEGY_NAMES
from audit_core.identify import ESTIMANDS
from audit_core.presets import (
    BUNDLED,
    BUNDLED_POOLS,
    DEFAULT_AUDITOR_PROCESS,
    DEFAULT_MODEL_PROCESS,
    DEFAULT_RUN,
    NULL_POOL,
    STYLES,
    paper_params,
    paper_rows,
)
from audit_core.sequential import AUDITOR_PROCESSES, MODEL_PROCESSES, AuditParams

# The choices a page offers (estimands, processes, styles, bundled data, paper presets) are
# re-exported here, so pages import the use-case layer and nothing below it.
__all__ = [
    "ACCEPTED_SCORES", "AUDITOR_PROCESSES", "AuditParams", "BUNDLED", "BUNDLED_POOLS", "DEFAULT_AUDITOR_PROCESS",
    "DEFAULT_MODEL_PROCESS", "DEFAULT_RUN", "ESTIMANDS", "MODEL_PROCESSES", "NULL_POOL", "STRATEGY_NAMES", "STYLES",
    "paper_params", "paper_rows",
    "CombinedAudits", "LogMeasurement", "PlannedAudit", "RunReplay", "RunsComparison", "assumed_pool_source",
    "combine_audits", "compare_runs", "plan_study", "typed_run", "TestbedCheck", "TestbedItems", "check_testbed",
    "generate_testbed", "ALL_DIRECTIONS", "BEHAVIOURS", "BehaviourRule", "add_policy", "class_file",
    "class_from_link", "class_link", "copy_policy", "policy_row", "remove_policy", "composable", "rename_axes", "RunTable", "Source", "file_bytes", "StudySimulation", "SupportExploration",
    "SupportSearch", "Verdict", "check_supports", "content_key", "explore_support", "identify_support", "lattice_overview", "measure_log",
    "policy_source", "pool_source", "replay_run", "response_log_source", "score_labels", "run_source",
    "simulate_study", "support_lattice",
]
