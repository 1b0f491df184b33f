"""Pools: bundled keys, CSV pools (truth column never a feature), bad input as InputError."""

import numpy as np
import pytest

from audit_core.auditing import BUNDLED_POOLS, build_pool, load_pool
from audit_core.errors import InputError


def test_bundled_pools():
    for key in BUNDLED_POOLS:
        pool = load_pool(key)
        assert pool.features.shape == (pool.n, 16) and pool.style in ("gpqa", "sdoh")
    large = load_pool("gpqa:large")
    assert large.n == 448 and len(large.stratum_names) == 12 and large.truth is not None
    assert [large.stratum_names[s] for s in large.failure_strata(0.85)] == [
        "Chemistry / easy undergraduate", "Chemistry / hard graduate", "Chemistry / hard undergraduate",
        "Chemistry / post-graduate"]
    none = load_pool("gpqa:none")
    assert [none.stratum_names[s] for s in none.failure_strata(0.85)] == ["Chemistry / post-graduate"]
    sdoh = load_pool("sdoh")
    assert sdoh.n == 2268 and sdoh.truth is None and len(sdoh.stratum_names) == 28
    assert sdoh.suspect_mask().sum() == 4 * 81


def test_csv_pool_uses_p_correct_as_truth_not_feature(tmp_path):
    path = tmp_path / "pool.csv"
    path.write_text("case_id,group,f1,f2,p_correct,correct\n" + "".join(
        f"c{i},{'a' if i % 2 else 'b'},{i * 0.1:.1f},{(i % 3) * 1.0},{0.5 if i % 2 else 0.9},{i % 2}\n" for i in range(20)))
    pool = load_pool(str(path))
    assert pool.features.shape == (20, 2) and pool.truth is not None
    assert pool.stratum_names == ("a", "b") and pool.case_ids[0] == "c0"
    np.testing.assert_allclose(pool.stratum_accuracy(), [0.5, 0.9])
    assert any("p_correct" in note for note in pool.notes)


def test_bad_pools(tmp_path):
    with pytest.raises(InputError, match="not found"):
        load_pool(str(tmp_path / "missing.csv"))
    with pytest.raises(InputError, match="not a bundled pool"):
        load_pool("gpqa:huge")
    bad = tmp_path / "bad.csv"
    bad.write_text("group,score\na,1\nb,2\n")
    with pytest.raises(InputError, match="score"):
        load_pool(str(bad))
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(InputError, match="empty"):
        load_pool(str(empty))
    with pytest.raises(InputError, match="finite"):
        build_pool("x", [1, 0], [[1.0], [np.nan]])
    with pytest.raises(InputError, match=r"\[0, 1\]"):
        build_pool("x", [1, 0], truth=[0.5, 1.5])
