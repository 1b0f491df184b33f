"""Mapping/readout invariance, balanced transitions and asymmetry: definitions and paper 000 values.

The paper-count logs below are *built* to the published counts (placed on units by a seeded
shuffle): they show that this accounting turns those counts into the published rates. They are not
independent evidence about any model. Where the paper gives only rates (balanced transitions,
asymmetry) the counts are one choice consistent with them; the paper's bootstrap intervals depend
on how outcomes cluster, which is not published, so only the point values are reproduced.
"""

import itertools

import numpy as np
import pytest

from audit_core.errors import InputError
from audit_core.identify import build_policy_class
from audit_core.identify.policies import LABELS, MAPPINGS, letter
from audit_core.measure import load_response_log, measure
from audit_core.measure.invariance import ARROW, measure_invariance
from tests.measure.helpers import frozen_units, log_bytes

WORLDS = ("base", "target", "sham")
READOUTS = ("generated", "scoring")
DIRECTIONS = [(a, b) for a in LABELS for b in LABELS if a != b]


def csv_log(rows, oracles):
    """rows: (model, cluster, cell, response); oracles: cluster -> (base, target, sham) labels."""
    lines = ["model,cluster,cell,response,oracle_base,oracle_target,oracle_sham"]
    lines += [f"{m},{k},{c},{r},{','.join(oracles[k])}" for m, k, c, r in rows]
    return load_response_log(("\n".join(lines) + "\n").encode())


# ------------------------------------------------------------------------------ brute force

def brute_force(rows, oracles):
    """Every count of the module docstring by plain loops over the rows (pooled over models)."""
    answer = {(m, k, c): r for m, k, c, r in rows}
    units = sorted({(m, k) for m, k, _, _ in rows})
    models = sorted({m for m, _ in units})
    clusters = sorted(oracles)

    def label(m, r):
        return LABELS[m.index(r)] if len(r) == 1 and r in m else None

    out = {k: [0, 0] for k in ("equivariance", "equivariance_valid", "fixed_label")}
    for (model, k), w, ro in itertools.product(itertools.product(models, clusters), WORLDS, READOUTS):
        got = [answer.get((model, k, f"{w}:{m}:{ro}")) for m in MAPPINGS]
        if any(r is None for r in got):
            continue
        labels = [label(m, r) for m, r in zip(MAPPINGS, got, strict=False)]
        valid = all(x is not None for x in labels)
        eq = valid and len(set(labels)) == 1
        out["equivariance"][0] += eq
        out["equivariance"][1] += 1
        out["equivariance_valid"][0] += eq
        out["equivariance_valid"][1] += valid
        out["fixed_label"][0] += valid and len(set(got)) == 1
        out["fixed_label"][1] += 1
    for ro in READOUTS:
        cells = [(key, r) for key, r in answer.items() if key[2].endswith(":" + ro)]
        out[f"validity:{ro}"] = [sum(label(key[2].split(":")[1], r) is not None for key, r in cells), len(cells)]
    for w in WORLDS:
        s = n = 0
        for (model, k), m in itertools.product(itertools.product(models, clusters), MAPPINGS):
            got = [answer.get((model, k, f"{w}:{m}:{ro}")) for ro in READOUTS]
            labels = [None if r is None else label(m, r) for r in got]
            if all(x is not None for x in labels):
                n += 1
                s += len(set(labels)) == 1
        out[f"readout_agreement:{w}"] = [s, n]
    # Paired units: (model, cluster, mapping, readout) with all three worlds observed.
    per_direction, per_base = {}, {}
    for (model, k), m, ro in itertools.product(itertools.product(models, clusters), MAPPINGS, READOUTS):
        got = [answer.get((model, k, f"{w}:{m}:{ro}")) for w in WORLDS]
        if any(r is None for r in got):
            continue
        correct = [r == letter(m, o) for r, o in zip(got, oracles[k], strict=False)]
        d = f"{oracles[k][0]}{ARROW}{oracles[k][1]}"
        counts = per_direction.setdefault(d, [0, 0, 0])
        counts[0] += all(correct)
        counts[1] += correct[0]
        counts[2] += 1
        base = per_base.setdefault(oracles[k][0], [0, 0])
        base[0] += all(correct)
        base[1] += 1
    return out, per_direction, per_base


def random_log(seed):
    rng = np.random.default_rng(seed)
    oracles = {}
    for i in range(int(rng.integers(6, 13))):
        base, target = DIRECTIONS[int(rng.integers(6))]
        oracles[f"k{i:02d}"] = (base, target, base if rng.random() < 0.8 else str(rng.choice(LABELS)))
    rows = []
    responses = ("A", "B", "C", "INVALID", "D")
    for model in ("m1", "m2", "m3")[: int(rng.integers(1, 4))]:
        # Per unit a bias: some units mostly repeat one letter, some answer the oracle.
        for k, oracle in oracles.items():
            style = rng.integers(3)
            for w, m, ro in itertools.product(WORLDS, MAPPINGS, READOUTS):
                if rng.random() < 0.04:
                    continue
                if style == 0:
                    r = str(rng.choice(responses, p=(0.3, 0.25, 0.25, 0.15, 0.05)))
                elif style == 1:
                    r = "A" if rng.random() < 0.9 else "INVALID"
                else:
                    r = letter(m, oracle[WORLDS.index(w)]) if rng.random() < 0.85 else str(rng.choice(responses))
                rows.append((model, k, f"{w}:{m}:{ro}", r))
    return rows, oracles


@pytest.mark.parametrize("seed", range(8))
def test_counts_equal_brute_force_definitions(seed):
    rows, oracles = random_log(seed)
    log = csv_log(rows, oracles)
    result = measure_invariance(log, bootstrap=50, seed=1)
    expected, per_direction, per_base = brute_force(rows, oracles)
    got = {e.name: [e.successes, e.n] for e in result.pooled.estimates}
    assert got == expected
    bal = result.pooled.balanced
    assert bal.directions == tuple(sorted(per_direction, key=lambda d: [LABELS.index(x) for x in d.split(ARROW)]))
    for d, sel, acc in zip(bal.directions, bal.selective, bal.base_accuracy, strict=False):
        assert (sel.successes, acc.successes, sel.n, acc.n) == (per_direction[d][0], per_direction[d][1],
                                                               per_direction[d][2], per_direction[d][2])
    rates = [per_direction[d][0] / per_direction[d][2] for d in bal.directions if per_direction[d][2]]
    accs = [per_direction[d][1] / per_direction[d][2] for d in bal.directions if per_direction[d][2]]
    assert bal.selective_mean.value == pytest.approx(np.mean(rates))
    assert bal.delta.value == pytest.approx(np.mean(accs) - np.mean(rates))
    for e in result.pooled.asymmetry.by_base:
        assert [e.successes, e.n] == per_base[e.name.split(":")[1]]
    # Per-model blocks add up to the pooled counts.
    for name in expected:
        assert sum(m.estimate(name).successes for m in result.models) == expected[name][0]


def test_frozen_policies_show_their_behaviour():
    log = load_response_log(log_bytes(frozen_units()))
    result = measure_invariance(log, bootstrap=0)
    by_model = {m.model: m for m in result.models}
    assert by_model["ideal"].estimate("equivariance").rate == 1.0
    assert by_model["fixed_label"].estimate("fixed_label").rate == 1.0
    assert by_model["fixed_label"].estimate("equivariance").successes == 0
    # The mapping shortcut is ideal under ABC only: on the target its label moves with the mapping.
    assert by_model["mapping_shortcut"].estimate("equivariance").successes == 4  # base and sham groups
    # Scoring-only success answers differently in the two readouts on the target.
    assert by_model["scoring_only_success"].estimate("readout_agreement:target").rate == 0.0
    assert by_model["scoring_only_success"].estimate("readout_agreement:base").rate == 1.0
    assert by_model["ideal"].balanced.selective_mean.value == 1.0
    assert by_model["target_inertia"].balanced.selective_mean.value == 0.0
    assert result.pooled.balanced.delta.boot_low is None  # no bootstrap asked


# ------------------------------------------------------------------------------ paper 000 values

def _letters(labels):
    return [letter(m, x) for m, x in zip(MAPPINGS, labels, strict=False)]


# Per world: (scoring kind, number of valid generated cells) -> slots; 48 slots per world.
# Kinds: eq = one label under all mappings; fixed = the letter A under all mappings; mixed = five
# mappings give the oracle label, one another label; invalid = mixed with an INVALID last mapping.
MAPPING_SLOTS = {
    "base": {("eq", 6): 2, ("fixed", 6): 2, ("mixed", 6): 9,
             ("eq", 2): 2, ("fixed", 2): 2, ("invalid", 2): 2, ("mixed", 2): 13, ("mixed", 1): 16},
    "target": {("eq", 6): 2, ("fixed", 6): 2, ("mixed", 6): 8,
               ("eq", 2): 2, ("fixed", 2): 3, ("invalid", 2): 2, ("mixed", 2): 10, ("mixed", 1): 19},
    "sham": {("eq", 6): 2, ("fixed", 6): 1, ("mixed", 6): 9,
             ("eq", 2): 2, ("fixed", 2): 2, ("invalid", 1): 1, ("mixed", 2): 25, ("mixed", 1): 6},
}
REFERENCE = ("TRUE", "UNKNOWN", "TRUE")


@pytest.fixture(scope="module")
def mapping_log():
    rng = np.random.default_rng(0)
    rows = []
    units = [(m, f"k{k:02d}") for m in ("model-1", "model-2") for k in range(24)]
    for w, oracle in zip(WORLDS, REFERENCE, strict=False):
        slots = [spec for spec, n in MAPPING_SLOTS[w].items() for _ in range(n)]
        assert len(slots) == 48
        other = next(x for x in LABELS if x != oracle)
        for (model, k), j in zip(units, rng.permutation(48), strict=False):
            kind, n_valid = slots[j]
            scoring = {"eq": _letters([oracle] * 6), "fixed": ["A"] * 6,
                       "mixed": _letters([other] + [oracle] * 5),
                       "invalid": _letters([other] + [oracle] * 5)[:5] + ["INVALID"]}[kind]
            generated = scoring[:n_valid] + ["INVALID"] * (6 - n_valid)
            for m, s, g in zip(MAPPINGS, scoring, generated, strict=False):
                rows += [(model, k, f"{w}:{m}:scoring", s), (model, k, f"{w}:{m}:generated", g)]
    return csv_log(rows, {k: REFERENCE for _, k in units})


def test_published_mapping_and_readout_values(mapping_log):
    result = measure_invariance(mapping_log, bootstrap=300, seed=0)
    e = {x.name: x for x in result.pooled.estimates}
    assert (e["equivariance"].successes, e["equivariance"].n) == (18, 288) and e["equivariance"].rate == 0.0625
    assert (e["equivariance_valid"].successes, e["equivariance_valid"].n) == (18, 176)
    assert round(e["equivariance_valid"].rate, 4) == 0.1023
    assert (e["fixed_label"].successes, e["fixed_label"].n) == (17, 288) and round(e["fixed_label"].rate, 4) == 0.0590
    assert (e["validity:generated"].successes, e["validity:generated"].n) == (394, 864)
    assert round(e["validity:generated"].rate, 4) == 0.4560
    assert (e["validity:scoring"].successes, e["validity:scoring"].n) == (859, 864)
    assert round(e["validity:scoring"].rate, 4) == 0.9942
    for world, n in (("base", 132), ("target", 125), ("sham", 137)):
        assert (e[f"readout_agreement:{world}"].successes, e[f"readout_agreement:{world}"].n) == (n, n)
    # Same validity as the estimand-separated measurement (every answer here is a letter or INVALID).
    pooled = measure(mapping_log, bootstrap=0).pooled
    assert pooled.estimate("validity:generated").successes == 394
    assert e["equivariance"].boot_low < 0.0625 < e["equivariance"].boot_high


BALANCED = {  # direction -> (selective, base-correct) of its 192 paired units; sums 373 and 714
    ("TRUE", "FALSE"): (60, 118), ("TRUE", "UNKNOWN"): (64, 121), ("FALSE", "TRUE"): (58, 116),
    ("FALSE", "UNKNOWN"): (66, 122), ("UNKNOWN", "TRUE"): (62, 119), ("UNKNOWN", "FALSE"): (63, 118),
}


def paired_log(clusters, outcomes, seed):
    """clusters: name -> direction; outcomes: direction -> (selective, base-correct) over all its
    paired units (2 models x clusters x 12 contexts), placed by a seeded shuffle. A selective unit
    answers (base, target, base); a base-correct one (base, base, base) (target inertia); the others
    answer a wrong base label, the target label and that wrong label again."""
    rng = np.random.default_rng(seed)
    rows, oracles = [], {}
    for direction in outcomes:
        names = [k for k, d in clusters.items() if d == direction]
        slots = [(model, k, m, ro) for model in ("model-1", "model-2") for k in names
                 for m in MAPPINGS for ro in READOUTS]
        selective, base_correct = outcomes[direction]
        kinds = ["selective"] * selective + ["inert"] * (base_correct - selective)
        kinds += ["wrong"] * (len(slots) - len(kinds))
        b, t = direction
        wrong = next(x for x in LABELS if x not in direction)
        answers = {"selective": (b, t, b), "inert": (b, b, b), "wrong": (wrong, t, wrong)}
        for (model, k, m, ro), j in zip(slots, rng.permutation(len(slots)), strict=False):
            for w, label in zip(WORLDS, answers[kinds[j]], strict=False):
                rows.append((model, k, f"{w}:{m}:{ro}", letter(m, label)))
        oracles.update({k: (b, t, b) for k in names})
    return csv_log(rows, oracles)


def test_published_balanced_transitions():
    clusters = {f"k{i:02d}": DIRECTIONS[i % 6] for i in range(48)}
    log = paired_log(clusters, BALANCED, seed=3)
    bal = measure_invariance(log, bootstrap=1000, seed=0).pooled.balanced
    assert len(bal.directions) == 6 and all(e.n == 192 for e in bal.selective)
    assert round(bal.selective_mean.value, 3) == 0.324 and round(bal.base_accuracy_mean.value, 3) == 0.620
    assert bal.selective_mean.value == pytest.approx(373 / 1152)
    # A replicate that draws no cluster of some direction (chance about 0.001) is left out.
    assert bal.p_delta_positive == 1.0 and 990 <= bal.n_replicates <= 1000
    for c in (bal.selective_mean, bal.base_accuracy_mean, bal.delta):
        assert c.boot_low < c.value < c.boot_high
    assert bal.selective_mean.boot_high < bal.base_accuracy_mean.boot_low


def test_published_oracle_transition_asymmetry():
    # 7 clusters with a TRUE base (168 paired units, 16 selective), 13 with a FALSE base (312, 7).
    clusters = {f"t{i}": (("TRUE", "UNKNOWN"), ("TRUE", "FALSE"))[i % 2] for i in range(7)}
    clusters.update({f"f{i:02d}": (("FALSE", "UNKNOWN"), ("FALSE", "TRUE"))[i % 2] for i in range(13)})
    outcomes = {("TRUE", "UNKNOWN"): (10, 50), ("TRUE", "FALSE"): (6, 40),
                ("FALSE", "UNKNOWN"): (4, 80), ("FALSE", "TRUE"): (3, 70)}
    asym = measure_invariance(paired_log(clusters, outcomes, seed=5), bootstrap=1000, seed=0).pooled.asymmetry
    after_true, after_false = asym.estimate("TRUE"), asym.estimate("FALSE")
    assert (after_true.successes, after_true.n, after_false.successes, after_false.n) == (16, 168, 7, 312)
    assert round(after_true.rate, 3) == 0.095 and round(after_false.rate, 3) == 0.022
    assert asym.ratio > 4  # "more than four times more frequent"
    assert asym.difference.value == pytest.approx(16 / 168 - 7 / 312)
    assert asym.difference.boot_low < asym.difference.value < asym.difference.boot_high
    assert 0.5 < asym.p_difference_positive <= 1.0


def test_bad_input():
    log = load_response_log(log_bytes(frozen_units()))
    with pytest.raises(InputError, match="bootstrap replicates"):
        measure_invariance(log, bootstrap=-1)
    with pytest.raises(InputError, match="confidence"):
        measure_invariance(log, confidence=1.5)
    axes = {"world": ("base", "target"), "readout": ("generated", "scoring")}
    pc = build_policy_class(axes, {"world": ("base",), "readout": ("generated",)},
                            {"t": {"world": ("target",)}, "r": {"readout": ("scoring",)}},
                            {"p": {f"{w}:{r}": "A" for w in axes["world"] for r in axes["readout"]}})
    plain = load_response_log(b"model,cluster,cell,response,oracle\nm,k,base:generated,A,A\nm,k,target:generated,A,B\n",
                              policy_class=pc)
    with pytest.raises(InputError, match="needs a 'mapping' axis"):
        measure_invariance(plain)
