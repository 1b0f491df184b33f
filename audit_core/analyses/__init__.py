"""Use cases: one function per thing a user does, shared by every page and every CLI command.

Each function loads nothing itself (a :class:`Source` comes in), names the engine calls it makes,
and returns one frozen result holding the engine result, its display tables, its chart specs, its
:class:`~audit_core.report.ReportSection` and a one-line :class:`Verdict`. Pages draw these fields;
CLI commands print them; nothing is assembled twice.

* :mod:`.sources`: bundled or uploaded inputs as :class:`Source` (one call per kind).
* :mod:`.identify`: :func:`identify_support`, :func:`explore_support`, :func:`support_lattice`, :func:`check_supports`.
* :mod:`.measure`: :func:`measure_log`.
* :mod:`.replay`: :func:`replay_run`.
* :mod:`.follow`: :func:`follow_run` (a run read again while it is written).
* :mod:`.simulate`: :func:`simulate_study`.
* :mod:`.plan`: :func:`plan_study` (how many labels will the audit need?).
* :mod:`.compare`: :func:`compare_runs` (two runs, case by case).
* :mod:`.combine`: :func:`combine_audits` (e-BH, e-Bonferroni over several audits).
* :mod:`.testbed`: :func:`generate_testbed`, :func:`check_testbed` (solver-grounded items).
* :mod:`.live`: live audits (start, claim, label, undo, export) for the Live audit page.
* :mod:`.live_status`: :func:`live_audit_status` (from the event log alone) and :class:`LiveAction`.
"""

import lazy_loader

# Each name is imported from its module on first use; the names and their modules are in
# __init__.pyi, which editors and type checkers read too (tests/architecture/test_import_cost.py).
__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
