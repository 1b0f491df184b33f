"""The design loop at the cheapest support, with real harnesses (issue 33): items for the 2 cells of
36 the synthesis picks → Inspect AI (mock model scripted as the frozen policies, by role) or lm-eval
(a scripted ``LM``) → ``measure`` gives τ_full through identification equal, for each of the seven
frozen policies, to τ_full of the full-support run of the same clusters.

The scripted models and the harness calls are those that made tests/fixtures/testbed
(tests/fixtures/make_testbed_logs.py); 7 clusters of depth 1 keep both runs to a few seconds.
"""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from audit_core import analyses
from audit_core.identify import frozen_policy_class, minimum_supports
from audit_core.testbed.tasks import write_files

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures"))
import make_testbed_logs as scripted  # noqa: E402

POLICIES = frozen_policy_class().names


def views():
    full = scripted.generate(scripted.SEED, len(POLICIES))
    cut = analyses.generate_testbed(len(POLICIES), scripted.SEED, depth=scripted.DEPTH,
                                    distractors=scripted.DISTRACTORS, support="cheapest")
    design = {c.name: p for c, p in zip(full.clusters, POLICIES, strict=True)}  # cluster k: policy k
    return full, cut, design


def check_round_trip(full_log: Path, cut_log: Path, design: dict[str, str], cut) -> None:
    direct = analyses.measure_log(analyses.response_log_source(str(full_log)), bootstrap=0)
    through = analyses.measure_log(analyses.response_log_source(str(cut_log)), bootstrap=0)
    assert direct.identified is None and through.identified is not None  # automatic on the cut log only
    assert through.identified.cells == cut.support == tuple(minimum_supports(frozen_policy_class(),
                                                                            enumerate_all=False).supports[0])
    full_tau = {u.cluster: u.tau_full for u in direct.result.units}
    cut_tau = {u.cluster: u.tau for u in through.identified.units}
    assert set(full_tau) == set(design) and cut_tau == full_tau
    assert {c for c, t in cut_tau.items() if t == 1} == {c for c, p in design.items() if p == "ideal"}
    policies = {u.cluster: u.policies for u in through.identified.units}
    assert all(design[c] in policies[c] for c in design)  # each unit's class holds its scripted policy
    assert through.identified.pooled.n_outside == 0
    assert through.identified.model_calls == 2 * len(POLICIES) and through.identified.model_calls_full == 36 * len(POLICIES)


def test_inspect_round_trip_at_the_cheapest_support(tmp_path):
    pytest.importorskip("inspect_ai")
    full, cut, design = views()
    logs = {}
    for name, view in (("full", full), ("cut", cut)):
        folder = tmp_path / name
        write_files(view.inspect_task(folder / "task.py"), folder)
        logs[name] = tmp_path / f"{name}.eval"
        # in a thread of its own: Inspect refuses to start inside a running event loop (tests/inspect)
        with ThreadPoolExecutor(1) as pool:
            pool.submit(scripted.run_inspect, view, folder, design, "mockllm/policies", logs[name]).result()
    check_round_trip(logs["full"], logs["cut"], design, cut)


def test_lmeval_round_trip_at_the_cheapest_support(tmp_path):
    pytest.importorskip("lm_eval")
    full, cut, design = views()
    logs = {}
    for name, view in (("full", full), ("cut", cut)):
        folder = tmp_path / name
        write_files(view.lmeval_task(folder), folder)
        logs[name] = tmp_path / f"{name}_out"
        scripted.run_lmeval(view, folder, design, "policy-lm/policies", logs[name])
    check_round_trip(logs["full"], logs["cut"], design, cut)
