"""Agreement statistics (issue 34) against hand computations and the `krippendorff` package."""

import math

import krippendorff
import numpy as np
import pytest

from audit_core.errors import InputError
from audit_core.measure.interrater import (
    _alpha_from_sums,
    _case_stats,
    agreement,
    cohen_kappa,
    krippendorff_alpha,
    percent_agreement,
    reliability_matrix,
)

NAN = math.nan
# Three annotators, five cases (nominal). Case 5 has one label: not pairable.
#            c1  c2   c3   c4   c5
TABLE = np.array([[1, 0, 0, 1, NAN],     # A
                  [1, 1, 0, NAN, 1],     # B
                  [1, NAN, 0, 0, NAN]])  # C


def test_alpha_nominal_by_hand():
    # Pairable labels n = 10 (c1: 3, c2: 2, c3: 3, c4: 2); value counts n_1 = 5, n_0 = 5.
    # D_o = (1/n) Σ_u (m_u² − Σ_c n_uc²) / (m_u − 1):
    #   c1: (9 − 9)/2 = 0; c2: (4 − 2)/1 = 2; c3: 0; c4: (4 − 2)/1 = 2  →  D_o = 4/10 = 0.4
    # D_e = (n² − Σ_c n_c²) / (n(n − 1)) = (100 − 50) / 90 = 5/9
    # α = 1 − 0.4 / (5/9) = 1 − 0.72 = 0.28
    hand = 1 - 0.4 / (5 / 9)
    assert hand == pytest.approx(0.28)
    assert krippendorff_alpha(TABLE, "nominal") == pytest.approx(hand, abs=1e-12)
    assert krippendorff.alpha(reliability_data=TABLE, level_of_measurement="nominal") == pytest.approx(hand)
    st = _case_stats(TABLE, "nominal")
    assert _alpha_from_sums(np.ones((1, 4)), st, "nominal")[0] == pytest.approx(hand, abs=1e-12)
    # c1 and c3 agree, c2 and c4 do not
    assert percent_agreement(TABLE) == 0.5


def test_alpha_interval_by_hand():
    # Two annotators, three cases: (0, .5), (1, 1), (.5, 0). n = 6, Σx = 3, Σx² = 2.5.
    # D_o = (1/n) Σ_u 2(m Σx² − (Σx)²)/(m − 1) = (1/6)(0.5 + 0 + 0.5) = 1/6
    # D_e = 2(n Σx² − (Σx)²) / (n(n − 1)) = 2(15 − 9)/30 = 0.4;  α = 1 − (1/6)/0.4 = 7/12
    table = np.array([[0.0, 1.0, 0.5], [0.5, 1.0, 0.0]])
    assert krippendorff_alpha(table, "interval") == pytest.approx(7 / 12, abs=1e-12)
    st = _case_stats(table, "interval")
    assert _alpha_from_sums(np.ones((1, 3)), st, "interval")[0] == pytest.approx(7 / 12, abs=1e-12)


def test_kappa_by_hand():
    # Both labelled cases 1-5: p_o = 4/5; A's rate of 1s 3/5, B's 2/5;
    # p_e = .6 × .4 + .4 × .6 = .48; κ = (.8 − .48) / (1 − .48) = .32 / .52
    a = [0, 1, 1, 0, 1, NAN]
    b = [0, 1, 0, 0, 1, 1]
    assert cohen_kappa(a, b) == pytest.approx(0.32 / 0.52, abs=1e-12)
    assert cohen_kappa([1, 1, 1], [1, 1, 1]) != cohen_kappa([1, 1, 1], [1, 1, 1])   # NaN: p_e = 1


@pytest.mark.parametrize("level", ["nominal", "interval"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sums_equal_the_package_on_random_tables(level, seed):
    rng = np.random.default_rng(seed)
    shape = (int(rng.integers(2, 8)), int(rng.integers(5, 200)))
    m = rng.integers(0, 2, shape).astype(float) if level == "nominal" else rng.integers(0, 5, shape) / 4.0
    m[rng.random(shape) < 0.4] = np.nan
    st = _case_stats(m, level)
    ours = _alpha_from_sums(np.ones((1, int(st["keep"].sum()))), st, level)[0]
    assert ours == pytest.approx(krippendorff.alpha(reliability_data=m, level_of_measurement=level), abs=1e-10)


def _long(table):
    names = "ABC"
    rows = [(f"c{u + 1}", names[a], table[a, u]) for a in range(table.shape[0]) for u in range(table.shape[1])
            if not np.isnan(table[a, u])]
    return [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]


def test_agreement_result_fields_and_bias():
    cases, annotators, scores = _long(TABLE)
    groups = {"c1": "x", "c2": "x", "c3": "y", "c4": "y", "c5": "y"}
    result = agreement(cases, annotators, scores, subgroups=[groups[c] for c in cases], bootstrap=200, seed=3)
    assert result.level == "nominal" and result.n_annotators == 3
    assert result.krippendorff_alpha.estimate == pytest.approx(0.28)
    assert result.percent_agreement.estimate == 0.5
    assert result.cohen_kappa is None                  # three annotators
    lo, hi = result.krippendorff_alpha.low, result.krippendorff_alpha.high
    assert lo <= 0.28 <= hi or math.isnan(lo)
    assert [d.case_id for d in result.disagreements] == ["c2", "c4"]
    assert dict(result.disagreements[0].labels) == {"A": 0.0, "B": 1.0}
    assert [g.subgroup for g in result.by_subgroup] == ["x", "y"]
    assert [g.n_cases for g in result.by_subgroup] == [2, 2]
    by_name = {a.annotator: a for a in result.annotators}
    # A shares c1, c2, c3, c4; pairs with others: c1 (B, C agree), c2 (B no), c3 (B, C agree), c4 (C no)
    assert by_name["A"].agreement == pytest.approx(4 / 6)
    # A's mean on shared cases (1+0+0+1)/4 = .5; the others' labels there: 1,1, 1, 0,0, 0 → 3/6
    assert by_name["A"].bias == pytest.approx(0.0)
    # B: own (1, 1, 0) on c1-c3 → 2/3; others there: A 1, C 1, A 0, A 0, C 0 → 2/5
    assert by_name["B"].bias == pytest.approx(2 / 3 - 2 / 5)
    again = agreement(cases, annotators, scores, subgroups=[groups[c] for c in cases], bootstrap=200, seed=3)
    assert again == result                              # seeded
    assert "krippendorff_alpha=0.280" in repr(result)
    d = result.to_dict()
    assert set(d) >= {"percent_agreement", "cohen_kappa", "krippendorff_alpha", "subgroups"}


def test_two_annotators_give_kappa_with_interval():
    rng = np.random.default_rng(5)
    truth = rng.integers(0, 2, 300)
    a = np.where(rng.random(300) < 0.9, truth, 1 - truth)
    b = np.where(rng.random(300) < 0.9, truth, 1 - truth)
    cases = [f"c{i}" for i in range(300)] * 2
    result = agreement(cases, ["A"] * 300 + ["B"] * 300, np.concatenate([a, b]), bootstrap=500, seed=0)
    k = result.cohen_kappa
    assert k.estimate == pytest.approx(cohen_kappa(a, b))
    assert k.low < k.estimate < k.high and k.high - k.low < 0.3
    # with two annotators and no missing labels, nominal α is close to κ (they differ by O(1/n))
    assert result.krippendorff_alpha.estimate == pytest.approx(k.estimate, abs=0.01)


def test_bad_input_is_one_message():
    with pytest.raises(InputError, match="more than once"):
        reliability_matrix(["c1", "c1"], ["A", "A"], [1, 0])
    with pytest.raises(InputError, match="bootstrap"):
        agreement(["c1"], ["A"], [1], bootstrap=-1)
    with pytest.raises(InputError, match="level"):
        agreement(["c1"], ["A"], [1], level="ordinal-ish")
