"""Paper 000, key empirical results 1-2: the published counts are expressible in this accounting.

The published marginals (576 paired units; base-correct 232; target-follow 39/232; sham-stay
213/232; local 32/232 and 32/576; sham stable 349/576; composition 183 reportability, 179
base-knowledge, 164 target inertia; τ_full 0/48) fix how many paired units show each
base/target/sham pattern, up to the split derived below. A log built from those patterns (placed
on 2 models x 24 clusters x 12 contexts by a seeded shuffle) must give back every published rate.
The paper's bootstrap intervals depend on how patterns cluster, which is not published.

Derivation: base-correct = I + O + S + R_bc = 164 + O + 32 + R_bc = 232, and R = R_bc + R_bw = 183,
B + R_bw = 344 base-wrong units, so R_bw = 165, R_bc = 18, O = 18. Target-follow 39 = 32 + 7
(R_bc with the target right and an INVALID sham); sham-stay 213 = 32 + 164 + 6 (O with sham right)
+ 11 (R_bc with an INVALID target and the sham right); sham stable 349 = 213 + 136 (B, sham right).
"""

import numpy as np
import pytest

from audit_core.identify import frozen_policy_class
from audit_core.identify.policies import letter
from audit_core.measure import load_response_log, measure

T, F, U, X = "TRUE", "FALSE", "UNKNOWN", "INVALID"
# (base, target, sham) semantic answers for the reference oracle TRUE -> UNKNOWN -> TRUE; counts.
PATTERNS = [
    ((T, U, T), 32),   # full success
    ((T, T, T), 164),  # target inertia (sham stable)
    ((T, F, T), 6),    # other: target moved to a wrong label, sham stable
    ((T, F, F), 12),   # other: target wrong, sham wrong
    ((T, U, X), 7),    # reportability, base-correct, follows the target
    ((T, X, T), 11),   # reportability, base-correct, sham stable
    ((F, U, T), 136),  # base-knowledge failure, sham right
    ((F, U, F), 43),   # base-knowledge failure, sham wrong
    ((X, X, X), 165),  # reportability, no answer at all
]


@pytest.fixture(scope="module")
def paper_like():
    pc = frozen_policy_class()
    patterns = [p for p, n in PATTERNS for _ in range(n)]
    assert len(patterns) == 576
    order = np.random.default_rng(0).permutation(576)
    contexts = [(m, r) for m in pc.axes["mapping"] for r in pc.axes["readout"]]
    lines = ["model,cluster,cell,response,oracle"]
    oracle = {"base": T, "target": U, "sham": T}
    slot = 0
    for model in ("model-1", "model-2"):
        for k in range(24):
            for mapping, readout in contexts:
                answers = patterns[order[slot]]
                slot += 1
                for world, label in zip(("base", "target", "sham"), answers, strict=False):
                    response = X if label == X else letter(mapping, label)
                    lines.append(f"{model},k{k:02d},{world}:{mapping}:{readout},{response},{oracle[world]}")
    return measure(load_response_log("\n".join(lines).encode()), bootstrap=500, seed=0)


def test_published_rates_and_counts(paper_like):
    e = {x.name: x for x in paper_like.pooled.estimates}
    assert (e["base_accuracy"].successes, e["base_accuracy"].n) == (232, 576)
    assert round(e["base_accuracy"].rate, 3) == 0.403
    assert (e["local_given_base"].successes, e["local_given_base"].n) == (32, 232)
    assert round(e["local_given_base"].rate, 3) == 0.138
    assert round(e["target_follow"].rate, 3) == 0.168
    assert round(e["sham_stay"].rate, 3) == 0.918
    assert round(e["local_paired"].rate, 3) == 0.056
    assert (e["sham_stable"].successes, e["sham_stable"].n) == (349, 576)
    assert (e["tau_full"].successes, e["tau_full"].n) == (0, 48)
    comp = dict(paper_like.pooled.composition)
    assert (comp["reportability failure"], comp["base-knowledge failure"], comp["target inertia"]) == (183, 179, 164)
    # The cluster bootstrap interval brackets the point estimate (its width depends on clustering).
    local = e["local_given_base"]
    assert local.boot_low < local.rate < local.boot_high
