"""Auditing strategies (paper 001 section 4, appendix B.2-B.3; DESIGN.md section 4) and one audit.

Every strategy picks the next case to annotate, one at a time, from

* scenario (a) ``"pool"``: an unlabeled pool, without replacement; or
* scenario (b) ``"bank"``: a generated bank: every step one fresh candidate is drawn (with
  replacement) from each stratum, the strategy picks among them, and the label is a fresh draw.

Strategies:

* ``stratified``: round robin over the strata (random starting order), a random case of each.
* ``pre-learned``: the accuracy model is fit once on ``n_heldout`` (30) extra labelled cases, then
  the audit samples the ``epsilon``-sized subset with the lowest fixed predictions.
* ``oracle``: knows the failure strata (true accuracy below q; without any, the lowest one) and
  samples them; its model process bets at their true accuracy (``delta = q - accuracy``).
* ``informed``: samples the subgroups the user names as suspect (``suspects``).
* ``adaptive``: the online :class:`~audit_core.auditing.model.OnlineEnsemble` on the case features
  only. After ``params.n_init`` random cases: with probability ``explore`` (0.05) a random case;
  else, when the ``epsilon``-sized subset with the lowest predicted accuracy has a mean prediction
  below q, its lowest-predicted case (greedy, as in appendix B.3 (a); ``greedy=False`` draws from
  the subset at random); otherwise UCB exploration: a random case among the half with the lowest lower
  confidence bound (mean - ``kappa`` sd). With ``prediction_alternative`` the UI processes bet at
  the predicted accuracy of the exploited subset (predictable, so validity is kept; DualTest clips
  it to each process's side of q).

The e-values come only from :class:`audit_core.sequential.DualTest`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from audit_core.auditing.model import NeuralEnsemble, OnlineEnsemble, RefitEnsemble
from audit_core.auditing.pool import Pool
from audit_core.errors import InputError
from audit_core.presets import AUDITOR_FOR, PAPER_ROWS, SDOH_PAPER_ROWS, paper_rows  # noqa: F401 (re-exported)
from audit_core.sequential import MODEL_PROCESSES, AuditParams, DualTest

STRATEGY_NAMES = ("stratified", "pre-learned", "oracle", "informed", "adaptive")
SCENARIOS = ("pool", "bank")
LEARNERS = ("online", "refit", "neural")

@dataclass(frozen=True)
class AuditorConfig:
    """Knobs of the strategies (defaults from paper 001 appendix B.3 where it gives them)."""

    scenario: str = "pool"
    epsilon: float = 0.05          # prevalence of a failure mode: size of the exploited subset
    explore: float = 0.05          # epsilon-greedy rate
    n_heldout: int = 30            # pre-learned: extra labelled cases, not counted in the budget
    kappa: float = 1.0             # LCB = mean - kappa * ensemble sd
    n_members: int = 8
    n_hidden: int = 32
    ridge: float = 1.0
    prior_scale: float = 0.1
    intercept_ridge: float | None = None
    prediction_alternative: bool = False
    greedy: bool = True            # exploit the lowest predicted case (else a random one of the subset)
    suspects: tuple[str, ...] | None = None
    learner: str = "online"        # "online" (default); baselines: "refit" (same estimator re-solved
                                   # every step), "neural" (paper-style NN ensemble retrained every step)

    def __post_init__(self) -> None:
        if self.scenario not in SCENARIOS:
            raise InputError(f"scenario: expected one of {', '.join(SCENARIOS)}, got {self.scenario!r}")
        for name in ("epsilon", "explore"):
            value = getattr(self, name)
            if not 0.0 <= value < 1.0 or (name == "epsilon" and value == 0.0):
                raise InputError(f"{name}: must lie in (0, 1), got {value}")
        if self.n_heldout < 1:
            raise InputError(f"n_heldout: must be at least 1, got {self.n_heldout}")
        if self.learner not in LEARNERS:
            raise InputError(f"learner: expected one of {', '.join(LEARNERS)}, got {self.learner!r}")
        if self.suspects is not None:
            object.__setattr__(self, "suspects", tuple(self.suspects))

    def to_dict(self) -> dict:
        data = {k: getattr(self, k) for k in self.__dataclass_fields__}
        data["suspects"] = list(self.suspects) if self.suspects is not None else None
        return data


@dataclass(frozen=True, repr=False)
class AuditRun:
    """One audit: the cases in annotation order and the dual test's trajectories.

    ``cases``: pool row of every annotated case (``case_ids``: their ids); ``scores``: their labels; ``phases``: why each was
    chosen (``init``, ``explore``, ``exploit``, ``ucb``, ``stratum``, ``target``, ``subset``);
    ``predicted``: the auditor's predicted accuracy of the case at selection (NaN when it has no
    model); ``stop``: 1-based step of the decision (None when inconclusive); ``n``: annotations used.
    """

    strategy: str
    process: str
    auditor_process: str
    scenario: str
    cases: np.ndarray
    scores: np.ndarray
    phases: tuple[str, ...]
    predicted: np.ndarray
    log_e_model: np.ndarray
    log_e_auditor: np.ndarray
    decision: str
    stop: int | None
    seconds: float = 0.0
    case_ids: tuple[str, ...] = ()
    extra: dict = field(default_factory=dict)

    @property
    def n(self) -> int:
        return len(self.cases)

    def to_dict(self) -> dict:
        finite = lambda a: [None if not math.isfinite(v) else float(v) for v in a]  # noqa: E731
        return {"strategy": self.strategy, "process": self.process, "auditor_process": self.auditor_process,
                "scenario": self.scenario, "n": self.n, "cases": [int(c) for c in self.cases],
                "case_ids": list(self.case_ids),
                "scores": [float(s) for s in self.scores], "phases": list(self.phases),
                "predicted": finite(self.predicted), "log_e_model": finite(self.log_e_model),
                "log_e_auditor": finite(self.log_e_auditor), "decision": self.decision, "stop": self.stop,
                "seconds": self.seconds}

    def __repr__(self) -> str:
        return (f"AuditRun({self.strategy}/{self.process}, n={self.n}, decision={self.decision!r}, "
                f"stop={self.stop})")


def check_row(strategy: str, process: str) -> None:
    if strategy not in STRATEGY_NAMES:
        raise InputError(f"strategy: expected one of {', '.join(STRATEGY_NAMES)}, got {strategy!r}")
    if process not in MODEL_PROCESSES:
        raise InputError(f"process: expected one of {', '.join(MODEL_PROCESSES)}, got {process!r}")


def draw_labels(pool: Pool, rng: np.random.Generator) -> np.ndarray:
    """One label per case: Bernoulli(truth) when the true accuracy is known, else the recorded ones."""
    if pool.truth is None:
        return pool.labels
    return (rng.random(pool.n) < pool.truth).astype(float)


class _Cases:
    """Where candidates come from: the remaining pool (a) or one fresh draw per stratum (b)."""

    def __init__(self, pool: Pool, scenario: str, labels: np.ndarray, rng: np.random.Generator) -> None:
        self.pool, self.scenario, self.labels, self.rng = pool, scenario, labels, rng
        self.available = np.ones(pool.n, dtype=bool)
        self.members = [np.flatnonzero(pool.strata == s) for s in range(len(pool.stratum_names))]
        self.members = [m for m in self.members if m.size]
        self._bank: np.ndarray | None = None

    def candidates(self) -> np.ndarray:
        if self.scenario == "pool":
            return np.flatnonzero(self.available)
        self._bank = np.array([m[self.rng.integers(m.size)] for m in self.members])
        return self._bank

    def label(self, index: int) -> float:
        if self.scenario == "bank" and self.pool.truth is not None:
            return float(self.rng.random() < self.pool.truth[index])
        return float(self.labels[index])

    def take(self, index: int) -> None:
        if self.scenario == "pool":
            self.available[index] = False

    def heldout(self, count: int) -> np.ndarray:
        """Labelled cases for the pre-learned model; removed from the pool in scenario (a)."""
        rows = self.rng.choice(self.pool.n, size=min(count, self.pool.n - 1), replace=self.scenario == "bank")
        if self.scenario == "pool":
            self.available[rows] = False
        return rows


def _lowest_subset(values: np.ndarray, size: int) -> np.ndarray:
    """Positions of the ``size`` smallest values (all of them when there are fewer)."""
    if values.size <= size:
        return np.arange(values.size)
    return np.argpartition(values, size - 1)[:size]


def run_audit(pool: Pool, strategy: str, process: str, params: AuditParams, seed=0,
              config: AuditorConfig | None = None, labels: np.ndarray | None = None) -> AuditRun:
    """Run one audit of ``pool`` until the dual test decides or the budget / pool runs out.

    ``seed``: int or ``numpy.random.SeedSequence``; ``labels``: the label of every case for this
    replicate (default: drawn from ``pool.truth`` with the same seed, else the recorded labels).
    The model process is ``process``; its auditor's-null partner is :data:`AUDITOR_FOR`.
    """
    check_row(strategy, process)
    config = config or AuditorConfig()
    started = time.perf_counter()
    seq = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    rng = np.random.default_rng(seq)
    if labels is None:
        labels = draw_labels(pool, np.random.default_rng(seq.spawn(1)[0]))
    cases = _Cases(pool, config.scenario, labels, rng)
    q = params.q
    extra: dict = {}
    subset_size = max(1, math.ceil(config.epsilon * pool.n))

    model_params = params
    target = None
    if strategy == "oracle":
        failing = pool.failure_strata(q)
        target = np.isin(pool.strata, failing)
        accuracy = float(pool.accuracy[target].mean())
        extra["oracle_strata"] = [pool.stratum_names[s] for s in failing]
        extra["oracle_accuracy"] = accuracy
        if accuracy < q:  # bet at the failure subgroup's true accuracy
            model_params = params.replace(delta=q - max(accuracy, 1e-3))
    elif strategy == "informed":
        target = pool.suspect_mask(config.suspects)

    model = None
    fixed_prediction = None
    if strategy in ("adaptive", "pre-learned"):
        if config.learner == "neural":
            model = NeuralEnsemble(pool.features, rng, prior=q)
        else:
            cls = RefitEnsemble if config.learner == "refit" else OnlineEnsemble
            model = cls(pool.features, rng, n_members=config.n_members, n_hidden=config.n_hidden,
                        ridge=config.ridge, prior=q, prior_scale=config.prior_scale,
                        intercept_ridge=config.intercept_ridge)
        if strategy == "pre-learned":
            heldout = cases.heldout(config.n_heldout)
            extra["heldout"] = heldout.tolist()
            for row in heldout:
                model.update(int(row), cases.label(int(row)))
            fixed_prediction = model.predict()[0]

    # delta moves only the model's fixed alternative: the auditor's test is the user's.
    test = DualTest(model_params, model_process=process, auditor_process=AUDITOR_FOR[process])
    stratum_order = rng.permutation(len(cases.members))
    chosen, scores, phases, predicted, log_mod, log_aud = [], [], [], [], [], []
    step = 0
    while not test.stopped:
        cand = cases.candidates()
        if cand.size == 0:
            break
        alternative = None
        prediction = math.nan
        if strategy == "stratified":
            stratum = stratum_order[step % len(stratum_order)]
            if config.scenario == "bank":
                index = int(cand[stratum])
            else:
                # next stratum in the rotation that still has cases
                for shift in range(len(stratum_order)):
                    members = cases.members[stratum_order[(step + shift) % len(stratum_order)]]
                    left = members[cases.available[members]]
                    if left.size:
                        index = int(left[rng.integers(left.size)])
                        break
            phase = "stratum"
        elif strategy in ("oracle", "informed"):
            inside = cand[target[cand]]
            pick_from = inside if inside.size else cand
            index = int(pick_from[rng.integers(pick_from.size)])
            phase = "target" if inside.size else "explore"
        elif strategy == "pre-learned":
            size = 1 if config.scenario == "bank" else subset_size
            subset = cand[_lowest_subset(fixed_prediction[cand], size)]
            index = int(subset[rng.integers(subset.size)])
            prediction = float(fixed_prediction[index])
            phase = "subset"
        else:  # adaptive
            if step < params.n_init or rng.random() < config.explore:
                index = int(cand[rng.integers(cand.size)])
                phase = "init" if step < params.n_init else "explore"
                prediction = float(model.predict(np.array([index]))[0][0])
            else:
                mean, spread = model.predict(cand)
                size = 1 if config.scenario == "bank" else subset_size
                low = _lowest_subset(mean, size)
                subset_mean = float(np.clip(mean[low], 0.0, 1.0).mean())
                if subset_mean < q:
                    # paper B.3 (a): greedy, the lowest predicted case of the subset
                    pos = int(low[np.argmin(mean[low])]) if config.greedy else int(low[rng.integers(low.size)])
                    phase = "exploit"
                    if config.prediction_alternative and process.endswith("UI"):
                        alternative = subset_mean
                else:
                    lcb = mean - config.kappa * spread
                    half = np.flatnonzero(lcb <= np.median(lcb))
                    pos = int(half[rng.integers(half.size)])
                    phase = "ucb"
                index = int(cand[pos])
                prediction = float(mean[pos])
        y = cases.label(index)
        cases.take(index)
        test.update(y, alternative)
        if model is not None and strategy == "adaptive":
            model.update(index, y)
        chosen.append(index)
        scores.append(y)
        phases.append(phase)
        predicted.append(prediction)
        log_mod.append(test.log_e_model)
        log_aud.append(test.log_e_auditor)
        step += 1

    return AuditRun(strategy=strategy, process=process, auditor_process=AUDITOR_FOR[process],
                    scenario=config.scenario, cases=np.asarray(chosen, dtype=int),
                    scores=np.asarray(scores, dtype=float), phases=tuple(phases),
                    predicted=np.asarray(predicted, dtype=float), log_e_model=np.asarray(log_mod),
                    log_e_auditor=np.asarray(log_aud), decision=test.decision, stop=test.stop,
                    seconds=time.perf_counter() - started,
                    case_ids=tuple(str(c) for c in pool.case_ids[np.asarray(chosen, dtype=int)]), extra=extra)

