"""Response logs whose real size is small but whose models x clusters product is large (issue 13):
memory and time follow the rows, and the sparse aggregation equals the dense definition."""

import time
import tracemalloc
import warnings

import numpy as np
import pandas as pd

from audit_core.identify import frozen_policy_class
from audit_core.measure import load_response_log, measure
from audit_core.measure.estimates import bootstrap_intervals
from tests.load import busy_factor

CELLS = frozen_policy_class().cells


ORACLE = {"base": "TRUE", "target": "UNKNOWN", "sham": "TRUE"}


def own_cluster_log(n_models: int) -> bytes:
    """Every model on its own cluster, one base/target/sham triple each (the issue's 341 KB log
    has 3,000 such models)."""
    rows = [{"model": f"m{i}", "cluster": f"k{i}", "cell": f"{world}:ABC:generated", "response": "A",
             "oracle": label} for i in range(n_models) for world, label in ORACLE.items()]
    return pd.DataFrame(rows).to_csv(index=False).encode()


def test_three_thousand_models_on_their_own_clusters_stay_small():
    raw = own_cluster_log(3000)
    tracemalloc.start()
    started = time.perf_counter()
    log = load_response_log(raw, name="own clusters.csv")
    result = measure(log, bootstrap=50, seed=0)
    elapsed = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert log.n_units == 3000 and log.codes.shape == (3000, len(CELLS))
    assert len(result.models) == 3000 and len(result.units) == 3000
    assert result.pooled.n_units == 3000
    assert any("pair(s) have no rows" in note for note in log.notes)
    # dense models x clusters x cells would be 3000 * 3000 * 36 * 8 B = 2.6 GB
    assert peak < 400 * 2**20, f"peak {peak / 2**20:.0f} MiB"
    assert elapsed < 60 * busy_factor(), f"{elapsed:.1f} s"


def test_sparse_bootstrap_equals_dense_definition():
    rng = np.random.default_rng(3)
    successes = rng.integers(0, 4, size=(30, 7)) * (rng.random((30, 7)) < 0.4)
    n = successes + rng.integers(0, 3, size=(30, 7))
    n[:, 6] = 0  # a column with no data gets NaN
    low, high = bootstrap_intervals(successes, n, 300, 5, 0.9, chunk=7, column_block=3)
    # brute force: the same weight stream, every column at once
    draws = np.random.default_rng(5).integers(0, 30, size=(300, 30))
    weights = np.stack([np.bincount(d, minlength=30) for d in draws]).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = np.where(weights @ n > 0, (weights @ successes) / (weights @ n), np.nan)
    expect_low, expect_high = np.nanquantile(rates[:, :6], [0.05, 0.95], axis=0)
    np.testing.assert_allclose(low[:6], expect_low)
    np.testing.assert_allclose(high[:6], expect_high)
    assert np.isnan(low[6]) and np.isnan(high[6])


def test_nan_quantiles_equal_numpy():
    from audit_core.measure.estimates import nan_quantiles
    rng = np.random.default_rng(1)
    values = rng.random((57, 9))
    values[rng.random((57, 9)) < 0.3] = np.nan
    values[:, 4] = np.nan
    values[:, 5] = np.nan
    values[0, 5] = 0.25
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expect = np.nanquantile(values, [0.025, 0.5, 0.975], axis=0)
    np.testing.assert_allclose(nan_quantiles(values, [0.025, 0.5, 0.975]), expect, equal_nan=True)
