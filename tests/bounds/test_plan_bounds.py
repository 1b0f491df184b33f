"""Issue 18, item 3: the audit planner bounds its work before building anything.

Before: ``plan --subgroups 1000000,5`` ended in an ArrayMemoryError traceback and the page's
"Assumed subgroup sizes" 3000000,5 grew two workers to ~12 GB each (BrokenProcessPool)."""

import resource

import pytest

from audit_core.auditing.plan import MAX_PLAN_CASES, MAX_PLAN_WORK, assumed_pool, plan_audit
from audit_core.cli import main
from audit_core.errors import InputError


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_huge_assumed_subgroups_are_refused_before_any_array():
    before = _peak_mb()
    with pytest.raises(InputError, match=f"at most {MAX_PLAN_CASES:,} cases"):
        assumed_pool([3_000_000, 5], failing_accuracy=0.6)
    assert _peak_mb() - before < 50  # 3M cases x 8 features would be ~200 MB before the check


def test_cases_times_replicates_is_bounded_with_the_largest_allowed_count():
    pool = assumed_pool([10_000, 5], failing_accuracy=0.6)
    allowed = MAX_PLAN_WORK // pool.n
    with pytest.raises(InputError, match=f"use at most {allowed:,} audits"):
        plan_audit(pool, "stratified", "LR", replicates=allowed + 1, jobs=1)


def test_cli_refuses_a_million_case_subgroup_with_one_line(capsys):
    assert main(["plan", "--subgroups", "1000000,5", "--replicates", "5"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{MAX_PLAN_CASES:,}" in err[0] and "Traceback" not in err[0]
