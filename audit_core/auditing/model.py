"""Online accuracy model of the adaptive auditor: a bootstrapped ensemble of random-feature
networks whose output layers are exact online ridge regressions.

Paper 001 (appendix B.3) retrains an ensemble of 20 one-hidden-layer networks with per-step
hyperparameter tuning after every annotation (about 15 minutes per audit). Here each of ``K``
members is a one-hidden-layer network whose hidden layer is random and fixed
(``tanh(x A_k + b_k)``, plus the raw features), and whose output layer is the exact ridge
solution, kept current by a rank-1 (Sherman-Morrison) update per observation: O(K D^2) per update,
O(K n D) to score ``n`` cases, never a refit. Uncertainty for UCB comes from two sources that both
matter: the online Poisson(1) bootstrap (each member counts each observation ``w ~ Poisson(1)``
times, Oza & Russell 2001) and randomised priors (each member's ridge pulls towards its own random
weight vector instead of 0, Osband et al. 2018), which keeps the ensemble spread wide where no
data have been seen and makes it shrink where they have. Predictions are offsets from ``prior``
(the threshold ``q`` by default: before any annotation nothing is flagged as a failure).

:class:`RefitEnsemble` computes the identical estimator by re-solving the normal equations from all
observations at every step; it exists as the baseline of ``bench/bench_simulate.py`` and as the
reference the tests compare the online updates against. :class:`NeuralEnsemble` is the paper-style
baseline (networks retrained from scratch every step) used to check that the online model finds
failure modes as fast.
"""

from __future__ import annotations

import numpy as np

_PHI_BLOCK = 4096  # rows of the design built at once
# 1/w for the bootstrap weights w = 0, 1, 2, ... (Poisson(1): 20 and above have probability < 1e-19):
# the same values as 1.0 / w, with inf for w = 0 and no division warning
_INVERSE = np.concatenate(([np.inf], 1.0 / np.arange(1.0, 21.0)))


def ensemble_mean_std(members: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and population standard deviation over the K members (axis 0) of (K, n) predictions:
    numpy's mean and std spelled out so the mean is summed once (std adds the same rows in the
    same order, divides by K and takes the root, so the same numbers)."""
    k = members.shape[0]
    mean = members.sum(axis=0) / k
    spread = members - mean
    np.multiply(spread, spread, out=spread)
    return mean, np.sqrt(spread.sum(axis=0) / k)


def _inverse_weights(weights: np.ndarray) -> np.ndarray:
    counts = weights.astype(np.intp)
    if counts.max() < len(_INVERSE) and np.array_equal(counts, weights):
        return _INVERSE[counts]
    with np.errstate(divide="ignore"):
        return 1.0 / weights


class OnlineEnsemble:
    """``K`` random-feature ridge learners updated online with Poisson bootstrap weights.

    ``features``: (n, d) array of every case the auditor may score (pool or bank). Member ``k``
    predicts ``prior + phi_k(x) . theta_k`` with ``phi_k(x) = [1, x / sqrt(d), tanh(x A_k + b_k) /
    sqrt(H)]`` and ``theta_k`` minimising ``ridge * |theta - theta0_k|^2 + sum_i w_ik (y_i -
    prior - phi_k(x_i) . theta)^2``, ``theta0_k ~ N(0, prior_scale^2 I)``.
    """

    def __init__(self, features: np.ndarray, rng: np.random.Generator, n_members: int = 8,
                 n_hidden: int = 32, ridge: float = 1.0, prior: float = 0.85,
                 prior_scale: float = 0.15, input_scale: float = 1.0, intercept_ridge: float | None = None) -> None:
        x = np.asarray(features, dtype=float)
        n, d = x.shape
        self.n_members = n_members
        self.prior = float(prior)
        root_d = np.sqrt(max(d, 1))  # a pool without features (d = 0) has nothing to scale
        hidden_w = rng.standard_normal((n_members, d, n_hidden)) * (input_scale / root_d)
        hidden_b = rng.uniform(-1.0, 1.0, size=(n_members, 1, n_hidden))
        # phi: (K, n, D) design of every case for every member, computed once, written in place
        # a block of rows at a time: building it from whole-pool temporaries (hidden layer, its
        # tanh, the broadcast features, the concatenation) peaked at ~3x phi (issue 18: a 30 MB
        # pool took 2.8 GB). Each block's values are bitwise those of the whole-pool expression.
        phi = np.empty((n_members, n, 1 + d + n_hidden))
        phi[:, :, 0] = 1.0
        phi[:, :, 1:1 + d] = x / root_d
        for start in range(0, n, _PHI_BLOCK):
            block = slice(start, min(n, start + _PHI_BLOCK))
            phi[:, block, 1 + d:] = np.tanh(np.einsum("nd,kdh->knh", x[block], hidden_w) + hidden_b) / np.sqrt(n_hidden)
        self.phi = phi
        dim = self.phi.shape[2]
        self.theta = rng.standard_normal((n_members, dim)) * prior_scale
        self.theta0 = self.theta.copy()
        penalty = np.full(dim, float(ridge))
        if intercept_ridge is not None:
            penalty[0] = intercept_ridge
        self.penalty = penalty
        self.cov = np.broadcast_to(np.diag(1.0 / penalty), (n_members, dim, dim)).copy()
        self.ridge = ridge
        self.n_seen = 0
        self._rng = rng

    def update(self, index: int, y: float) -> None:
        """Add one labelled case (row ``index`` of ``features``) to every member."""
        weights = self._rng.poisson(1.0, size=self.n_members).astype(float)
        self._update_weighted(index, y, weights)

    def _update_weighted(self, index: int, y: float, weights: np.ndarray) -> None:
        self.n_seen += 1
        if not (weights > 0).any():
            return
        # Every member in one pass, without gathering the active ones: a member of weight 0 gets
        # 1/w = inf, so denom = inf, gain = +-0 and cov - (+-0) = cov, theta + (+-0) = theta (the
        # sign of an exact zero aside): the active members' arithmetic is the same as on a gathered
        # copy, elementwise, so the same numbers (tests/auditing/test_same_records.py), without the
        # copies of cov in and out (most steps leave some member out: P(all 8 in) = 0.026).
        phi = self.phi[:, index, :]                                   # (K, D)
        cov = self.cov
        cov_phi = np.einsum("kij,kj->ki", cov, phi)                   # P phi
        denom = _inverse_weights(weights) + np.einsum("ki,ki->k", phi, cov_phi)
        gain = cov_phi / denom[:, None]
        resid = (y - self.prior) - np.einsum("ki,ki->k", phi, self.theta)
        cov -= gain[:, :, None] * cov_phi[:, None, :]
        self.theta += gain * resid[:, None]

    def predict_members(self, rows: np.ndarray | None = None) -> np.ndarray:
        """(K, n_rows) predicted accuracies (not clipped)."""
        if rows is None or 8 * len(rows) >= self.phi.shape[1]:
            # Scoring every case and then picking the rows is bitwise the same per case and avoids
            # gathering a (K, rows, D) copy of phi (about 30x faster for most of a 10,000-case pool).
            full = self.prior + np.einsum("knd,kd->kn", self.phi, self.theta)
            return full if rows is None else full[:, rows]
        return self.prior + np.einsum("knd,kd->kn", self.phi[:, rows, :], self.theta)

    def predict(self, rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Ensemble mean and standard deviation of the predicted accuracy of ``rows``."""
        return ensemble_mean_std(self.predict_members(rows))


class RefitEnsemble(OnlineEnsemble):
    """Same estimator, re-solved from scratch after every observation (the slow baseline)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._rows: list[int] = []
        self._ys: list[float] = []
        self._weights: list[np.ndarray] = []

    def _update_weighted(self, index: int, y: float, weights: np.ndarray) -> None:
        self.n_seen += 1
        self._rows.append(index)
        self._ys.append(y)
        self._weights.append(weights)
        rows = np.asarray(self._rows)
        target = np.asarray(self._ys) - self.prior
        w = np.asarray(self._weights).T                        # (K, t)
        for k in range(self.n_members):
            design = self.phi[k, rows, :]
            gram = np.diag(self.penalty) + design.T @ (w[k][:, None] * design)
            rhs = self.penalty * self.theta0[k] + design.T @ (w[k] * target)
            self.theta[k] = np.linalg.solve(gram, rhs)
            self.cov[k] = np.linalg.inv(gram)


class NeuralEnsemble:
    """Paper-style baseline: ``K`` one-hidden-layer networks retrained from scratch after every
    annotation (paper 001 appendix B.3: 20 networks, hidden 5/10, up to 16 epochs, learning rate
    0.01), each on a bootstrap resample of the labelled cases; Adam on the logistic loss, mini-
    batches of 8, all members trained at once (vectorised). Same interface as
    :class:`OnlineEnsemble`; used by ``bench/bench_simulate.py`` to compare stopping times and
    cost. The per-step hyperparameter search of the paper is left out, which only makes this
    baseline cheaper than the original.
    """

    def __init__(self, features: np.ndarray, rng: np.random.Generator, n_members: int = 20, n_hidden: int = 10,
                 epochs: int = 16, learning_rate: float = 0.01, batch_size: int = 8, prior: float = 0.85) -> None:
        self.x = np.asarray(features, dtype=float)
        self.n_members, self.n_hidden = n_members, n_hidden
        self.epochs, self.learning_rate, self.batch_size = epochs, learning_rate, batch_size
        self.prior = float(prior)
        self._rng = rng
        self._rows: list[int] = []
        self._ys: list[float] = []
        self.n_seen = 0
        self._fit()

    def update(self, index: int, y: float) -> None:
        self._rows.append(index)
        self._ys.append(float(y))
        self.n_seen += 1
        self._fit()

    def _fit(self) -> None:
        rng, k, h = self._rng, self.n_members, self.n_hidden
        d = self.x.shape[1]
        params = [rng.standard_normal((k, d, h)) / np.sqrt(max(d, 1)), np.zeros((k, 1, h)),
                  rng.standard_normal((k, h)) / np.sqrt(h), np.zeros((k, 1))]
        ys = np.asarray(self._ys)
        base = ys.mean() if ys.size else self.prior
        base = min(max(base, 0.02), 0.98)
        params[3] += np.log(base / (1 - base))  # start at the observed (or prior) accuracy
        self.params = params
        t = ys.size
        if t == 0:
            return
        rows = np.asarray(self._rows)
        boot = rng.integers(t, size=(k, t))                   # bootstrap resample per member
        moments = [np.zeros_like(p) for p in params] + [np.zeros_like(p) for p in params]
        step = 0
        for _ in range(self.epochs):
            order = rng.permutation(t)
            for start in range(0, t, self.batch_size):
                batch = boot[:, order[start:start + self.batch_size]]   # (k, b)
                xb = self.x[rows[batch]]                                  # (k, b, d)
                yb = ys[batch]
                hidden = np.tanh(xb @ params[0] + params[1])              # (k, b, h)
                logit = np.einsum("kbh,kh->kb", hidden, params[2]) + params[3]
                err = (1.0 / (1.0 + np.exp(-logit)) - yb) / batch.shape[1]   # dloss/dlogit
                g_w2 = np.einsum("kbh,kb->kh", hidden, err)
                g_b2 = err.sum(axis=1, keepdims=True)
                back = err[:, :, None] * params[2][:, None, :] * (1.0 - hidden ** 2)
                g_w1 = np.einsum("kbd,kbh->kdh", xb, back)
                g_b1 = back.sum(axis=1, keepdims=True)
                step += 1
                for i, g in enumerate((g_w1, g_b1, g_w2, g_b2)):     # Adam
                    m, v = moments[i], moments[i + 4]
                    m *= 0.9
                    m += 0.1 * g
                    v *= 0.999
                    v += 0.001 * g * g
                    params[i] -= self.learning_rate * (m / (1 - 0.9 ** step)) / (
                        np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)

    def predict_members(self, rows: np.ndarray | None = None) -> np.ndarray:
        x = self.x if rows is None else self.x[rows]
        w1, b1, w2, b2 = self.params
        hidden = np.tanh(np.einsum("nd,kdh->knh", x, w1) + b1)
        return 1.0 / (1.0 + np.exp(-(np.einsum("knh,kh->kn", hidden, w2) + b2)))

    def predict(self, rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        return ensemble_mean_std(self.predict_members(rows))
