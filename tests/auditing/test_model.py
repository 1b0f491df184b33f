"""Online accuracy ensemble: rank-1 updates equal the refit-from-scratch ridge solution."""

import numpy as np

from audit_core.auditing import NeuralEnsemble, OnlineEnsemble, RefitEnsemble


def _pair(seed=3, n=120, d=6):
    x = np.random.default_rng(seed).standard_normal((n, d))
    online = OnlineEnsemble(x, np.random.default_rng(seed), n_members=5, n_hidden=12, prior=0.8)
    refit = RefitEnsemble(x, np.random.default_rng(seed), n_members=5, n_hidden=12, prior=0.8)
    return x, online, refit


def test_online_updates_equal_refit_from_scratch():
    x, online, refit = _pair()
    rng = np.random.default_rng(11)
    for _ in range(40):
        i = int(rng.integers(len(x)))
        y = float(rng.random() < 0.6)
        online.update(i, y)
        refit.update(i, y)
    np.testing.assert_allclose(online.predict_members(), refit.predict_members(), atol=1e-8)
    np.testing.assert_allclose(online.cov, refit.cov, atol=1e-8)


def test_learns_a_low_accuracy_region_and_spread_shrinks_where_seen():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((400, 4))
    bad = x[:, 0] > 0.5                      # the failure region
    p = np.where(bad, 0.3, 0.95)
    model = OnlineEnsemble(x, np.random.default_rng(1), prior=0.85)
    before = model.predict()[1]
    seen = rng.choice(400, size=150, replace=False)
    for i in seen:
        model.update(int(i), float(rng.random() < p[i]))
    mean, spread = model.predict()
    assert mean[bad].mean() < 0.6 < 0.85 < mean[~bad].mean() + 0.05
    assert spread[seen].mean() < 0.5 * before[seen].mean()


def test_neural_baseline_learns_the_same_region():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((300, 4))
    bad = x[:, 0] > 0.5
    p = np.where(bad, 0.2, 0.95)
    model = NeuralEnsemble(x, np.random.default_rng(3), n_members=6, epochs=16)
    for i in rng.choice(300, size=60, replace=False):
        model.update(int(i), float(rng.random() < p[i]))
    mean, spread = model.predict()
    assert mean[bad].mean() < mean[~bad].mean() - 0.3 and (spread > 0).all()


def test_scoring_many_rows_is_bitwise_the_gathered_definition():
    rng = np.random.default_rng(3)
    model = OnlineEnsemble(rng.standard_normal((2000, 6)), rng, prior=0.85)
    for i in range(25):
        model.update(i, float(rng.random() < 0.7))
    for rows in (np.arange(30, 2000), rng.choice(2000, 400, replace=False), np.array([5, 17]), np.arange(2000)):
        gathered = model.prior + np.einsum("knd,kd->kn", model.phi[:, rows, :], model.theta)
        np.testing.assert_array_equal(model.predict_members(rows), gathered)


def test_no_features_gives_no_divide_by_zero_warning():
    import warnings

    import numpy as np

    from audit_core.auditing.model import OnlineEnsemble
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = OnlineEnsemble(np.zeros((5, 0)), np.random.default_rng(0))
    assert np.isfinite(model.phi).all() and model.phi.shape[2] == 1 + 0 + 32
