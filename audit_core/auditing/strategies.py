"""Auditing strategies (paper 001 section 4, appendix B.2-B.3; docs/e-processes.md, Auditing strategies) and one audit.

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

Each strategy is a :class:`Sampler` subclass with ``select()`` (propose the next case from its
seeded state) and ``observe(index, y)`` (take in a label); :func:`run_audit` is the loop over a
sampler and the streaming dual test, and the live audits of :mod:`audit_core.live` drive the same
samplers from their event log. The e-values come only from :class:`audit_core.sequential.DualTest`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from audit_core.auditing.config import LEARNERS, SCENARIOS, AuditorConfig  # noqa: F401 (re-exported)
from audit_core.auditing.model import NeuralEnsemble, OnlineEnsemble, RefitEnsemble
from audit_core.auditing.pool import Pool
from audit_core.errors import InputError
from audit_core.presets import (  # noqa: F401 (re-exported)
    AUDITOR_FOR,
    PAPER_ROWS,
    SDOH_PAPER_ROWS,
    STRATEGY_NAMES,
    paper_rows,
)
from audit_core.sequential import MODEL_PROCESSES, AuditParams, DualTest


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

    def __init__(self, pool: Pool, scenario: str, rng: np.random.Generator) -> None:
        self.pool, self.scenario, self.rng = pool, scenario, rng
        self.available = np.ones(pool.n, dtype=bool)
        self.members = [np.flatnonzero(pool.strata == s) for s in range(len(pool.stratum_names))]
        self.members = [m for m in self.members if m.size]

    def candidates(self) -> np.ndarray:
        if self.scenario == "pool":
            return np.flatnonzero(self.available)
        return np.array([m[self.rng.integers(m.size)] for m in self.members])

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


@dataclass(frozen=True)
class Proposal:
    """One case a sampler proposes for annotation.

    ``index``: pool row; ``phase``: why it was chosen (see :class:`AuditRun`, plus ``heldout`` for
    the pre-learned model's training cases); ``predicted``: the auditor's predicted accuracy of the
    case (NaN without a model); ``alternative``: the alternative the UI processes bet at for this
    step (None: their own forecasters); ``counted``: whether its label enters the dual test
    (False only for the pre-learned model's held-out cases, which are outside the budget).
    """

    index: int
    phase: str
    predicted: float = math.nan
    alternative: float | None = None
    counted: bool = True

    def to_dict(self) -> dict:
        return {"index": self.index, "phase": self.phase,
                "predicted": None if not math.isfinite(self.predicted) else self.predicted,
                "alternative": self.alternative, "counted": self.counted}


class Sampler:
    """Proposes the next case from the labels received so far and its own seeded state.

    The protocol is ``select()`` (the next :class:`Proposal`, or None when no case is left; the case
    is taken out of the pool at once, so consecutive selects without labels give a batch of
    distinct cases) and ``observe(index, y)`` (the label of a proposed case). Every random draw
    comes from the one generator ``rng``; given the seed, a sampler's proposals are a function of
    the sequence of selects and labels only, which is what makes a live audit's proposals
    reproducible from its event log. ``test_params``: the parameters of the dual test this
    strategy runs (the oracle moves the model's fixed alternative). ``step``: counted proposals
    made so far. ``ready``: False while a proposal needs labels still outstanding (the pre-learned
    model before its held-out labels are in).
    """

    name = ""

    def __init__(self, pool: Pool, params: AuditParams, rng: np.random.Generator, config: AuditorConfig,
                 process: str) -> None:
        self.pool, self.params, self.rng, self.config, self.process = pool, params, rng, config, process
        self.cases = _Cases(pool, config.scenario, rng)
        self.test_params = params
        self.extra: dict = {}
        self.step = 0
        self.subset_size = max(1, math.ceil(config.epsilon * pool.n))

    def _draw_rotation(self) -> None:
        # Every strategy draws the stratified rotation at this point of its set-up, so the random
        # stream (and every seeded result) is the one of the original single-loop run_audit.
        self.stratum_order = self.rng.permutation(len(self.cases.members))

    @property
    def ready(self) -> bool:
        return True

    def select(self) -> Proposal | None:
        candidates = self.cases.candidates()
        if candidates.size == 0:
            return None
        proposal = self._choose(candidates)
        self.cases.take(proposal.index)
        self.step += 1
        return proposal

    def _choose(self, candidates: np.ndarray) -> Proposal:  # noqa: ARG002 (the subclasses' signature)
        raise InputError(f"strategy {self.name!r}: no selection rule")  # every subclass defines one

    def observe(self, index: int, y: float) -> None:
        """The label ``y`` of proposed case ``index`` (fixed strategies learn nothing from it)."""

    def skip(self, index: int) -> None:
        """Proposed case ``index`` gets no label (a live annotator skipped it with a reason).

        The case stays out of the pool and nothing is learned from it: the strategy's state is the
        one after the select, so later proposals still depend only on the labels received.
        """


class StratifiedSampler(Sampler):
    """Round robin over the strata in a random order, a random case of each (``stratum``)."""

    name = "stratified"

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self._draw_rotation()

    def _choose(self, candidates: np.ndarray) -> Proposal:
        order = self.stratum_order
        if self.config.scenario == "bank":
            return Proposal(int(candidates[order[self.step % len(order)]]), "stratum")
        for shift in range(len(order)):  # next stratum in the rotation that still has cases
            members = self.cases.members[order[(self.step + shift) % len(order)]]
            left = members[self.cases.available[members]]
            if left.size:
                return Proposal(int(left[self.rng.integers(left.size)]), "stratum")
        raise InputError("stratified sampler: candidates left but no stratum has any")  # unreachable


class TargetSampler(Sampler):
    """Random cases inside a target set (``target``), random others once it is used up (``explore``)."""

    def _set_target(self, target: np.ndarray) -> None:
        self.target = target
        self._draw_rotation()

    def _choose(self, candidates: np.ndarray) -> Proposal:
        inside = candidates[self.target[candidates]]
        pick_from = inside if inside.size else candidates
        return Proposal(int(pick_from[self.rng.integers(pick_from.size)]), "target" if inside.size else "explore")


class OracleSampler(TargetSampler):
    """Knows the failure strata (true accuracy below q) and bets at their true accuracy."""

    name = "oracle"

    def __init__(self, *args) -> None:
        super().__init__(*args)
        q = self.params.q
        failing = self.pool.failure_strata(q)
        target = np.isin(self.pool.strata, failing)
        accuracy = float(self.pool.accuracy[target].mean())
        self.extra["oracle_strata"] = [self.pool.stratum_names[s] for s in failing]
        self.extra["oracle_accuracy"] = accuracy
        if accuracy < q:  # bet at the failure subgroup's true accuracy (the auditor's test is the user's)
            self.test_params = self.params.replace(delta=q - max(accuracy, 1e-3))
        self._set_target(target)


class InformedSampler(TargetSampler):
    """Samples the subgroups the user names as suspect (``config.suspects``, else the pool's)."""

    name = "informed"

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self._set_target(self.pool.suspect_mask(self.config.suspects))


def _accuracy_model(pool: Pool, rng: np.random.Generator, config: AuditorConfig, prior: float):
    if config.learner == "neural":
        return NeuralEnsemble(pool.features, rng, prior=prior)
    cls = RefitEnsemble if config.learner == "refit" else OnlineEnsemble
    return cls(pool.features, rng, n_members=config.n_members, n_hidden=config.n_hidden, ridge=config.ridge,
               prior=prior, prior_scale=config.prior_scale, intercept_ridge=config.intercept_ridge)


class PreLearnedSampler(Sampler):
    """Fits the accuracy model once on ``n_heldout`` labelled cases (proposed first, phase
    ``heldout``, outside the budget), then samples the ``epsilon``-subset with the lowest fixed
    predictions (``subset``)."""

    name = "pre-learned"

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.model = _accuracy_model(self.pool, self.rng, self.config, self.params.q)
        self.heldout = self.cases.heldout(self.config.n_heldout)
        self.extra["heldout"] = self.heldout.tolist()
        self._proposed = 0      # held-out cases proposed so far
        self._learned = 0       # held-out cases resolved so far (labelled, or skipped live)
        self.fixed_prediction: np.ndarray | None = None
        if self.heldout.size == 0:
            self._fit()

    def _fit(self) -> None:
        self.fixed_prediction = self.model.predict()[0]
        self._draw_rotation()

    @property
    def ready(self) -> bool:
        return self._proposed < self.heldout.size or self.fixed_prediction is not None

    def select(self) -> Proposal | None:
        if self._proposed < self.heldout.size:
            self._proposed += 1
            return Proposal(int(self.heldout[self._proposed - 1]), "heldout", counted=False)
        if self.fixed_prediction is None:
            raise InputError("pre-learned strategy: the held-out labels must all be in before the audit starts")
        return super().select()

    def observe(self, index: int, y: float) -> None:
        if self.fixed_prediction is None:
            self.model.update(int(index), y)
            self._resolve_heldout()

    def skip(self, index: int) -> None:  # noqa: ARG002 (the samplers' signature; no held-out case is named)
        # A skipped held-out case trains nothing, but the model must not wait for it forever.
        if self.fixed_prediction is None:
            self._resolve_heldout()

    def _resolve_heldout(self) -> None:
        self._learned += 1
        if self._learned == self.heldout.size:
            self._fit()

    def _choose(self, candidates: np.ndarray) -> Proposal:
        size = 1 if self.config.scenario == "bank" else self.subset_size
        subset = candidates[_lowest_subset(self.fixed_prediction[candidates], size)]
        index = int(subset[self.rng.integers(subset.size)])
        return Proposal(index, "subset", float(self.fixed_prediction[index]))


class AdaptiveSampler(Sampler):
    """The online accuracy model on the case features (module doc): ``init`` / ``explore`` random
    cases, ``exploit`` the lowest predicted subset when its mean is below q, else ``ucb``."""

    name = "adaptive"

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.model = _accuracy_model(self.pool, self.rng, self.config, self.params.q)
        self._draw_rotation()

    def _choose(self, candidates: np.ndarray) -> Proposal:
        config, rng, step = self.config, self.rng, self.step
        if step < self.params.n_init or rng.random() < config.explore:
            index = int(candidates[rng.integers(candidates.size)])
            return Proposal(index, "init" if step < self.params.n_init else "explore",
                            float(self.model.predict(np.array([index]))[0][0]))
        mean, spread = self.model.predict(candidates)
        low = _lowest_subset(mean, 1 if config.scenario == "bank" else self.subset_size)
        subset_mean = float(np.clip(mean[low], 0.0, 1.0).mean())
        alternative = None
        if subset_mean < self.params.q:
            # paper B.3 (a): greedy, the lowest predicted case of the subset
            pos = int(low[np.argmin(mean[low])]) if config.greedy else int(low[rng.integers(low.size)])
            phase = "exploit"
            if config.prediction_alternative and self.process.endswith("UI"):
                alternative = subset_mean
        else:
            lcb = mean - config.kappa * spread
            half = np.flatnonzero(lcb <= np.median(lcb))
            pos = int(half[rng.integers(half.size)])
            phase = "ucb"
        return Proposal(int(candidates[pos]), phase, float(mean[pos]), alternative)

    def observe(self, index: int, y: float) -> None:
        self.model.update(int(index), y)


SAMPLERS: dict[str, type[Sampler]] = {cls.name: cls for cls in (
    StratifiedSampler, PreLearnedSampler, OracleSampler, InformedSampler, AdaptiveSampler)}


def make_sampler(strategy: str, pool: Pool, params: AuditParams, seed=0, config: AuditorConfig | None = None,
                 process: str = "SR-LR-UI") -> Sampler:
    """The :class:`Sampler` of ``strategy``; ``seed``: int, SeedSequence or a Generator to share."""
    check_row(strategy, process)
    if isinstance(seed, np.random.Generator):
        rng = seed
    else:
        rng = np.random.default_rng(seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed))
    return SAMPLERS[strategy](pool, params, rng, config or AuditorConfig(), process)


def simulated_label(pool: Pool, scenario: str, labels: np.ndarray, rng: np.random.Generator, index: int) -> float:
    """The label a simulation gives case ``index``: a fresh Bernoulli(truth) draw from the bank (b)
    when the truth is known, else the replicate's label of the case."""
    if scenario == "bank" and pool.truth is not None:
        return float(rng.random() < pool.truth[index])
    return float(labels[index])


def run_audit(pool: Pool, strategy: str, process: str, params: AuditParams, seed=0,
              config: AuditorConfig | None = None, labels: np.ndarray | None = None) -> AuditRun:
    """Run one audit of ``pool`` until the dual test decides or the budget / pool runs out.

    ``seed``: int or ``numpy.random.SeedSequence``; ``labels``: the label of every case for this
    replicate (default: drawn from ``pool.truth`` with the same seed, else the recorded labels).
    The model process is ``process``; its auditor's-null partner is :data:`AUDITOR_FOR`. The loop is
    the live procedure: the sampler proposes, the label comes back, the dual test updates.
    """
    check_row(strategy, process)
    config = config or AuditorConfig()
    started = time.perf_counter()
    seq = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    rng = np.random.default_rng(seq)
    if labels is None:
        labels = draw_labels(pool, np.random.default_rng(seq.spawn(1)[0]))
    sampler = make_sampler(strategy, pool, params, rng, config, process)
    test = DualTest(sampler.test_params, model_process=process, auditor_process=AUDITOR_FOR[process])
    counted: list[tuple[Proposal, float, float, float]] = []
    while not test.stopped:
        proposal = sampler.select()
        if proposal is None:
            break
        y = simulated_label(pool, config.scenario, labels, rng, proposal.index)
        sampler.observe(proposal.index, y)
        if proposal.counted:
            test.update(y, proposal.alternative)
            counted.append((proposal, y, test.log_e_model, test.log_e_auditor))
    chosen = np.asarray([p.index for p, *_ in counted], dtype=int)
    return AuditRun(strategy=strategy, process=process, auditor_process=AUDITOR_FOR[process],
                    scenario=config.scenario, cases=chosen, scores=np.asarray([c[1] for c in counted], dtype=float),
                    phases=tuple(p.phase for p, *_ in counted),
                    predicted=np.asarray([p.predicted for p, *_ in counted], dtype=float),
                    log_e_model=np.asarray([c[2] for c in counted]), log_e_auditor=np.asarray([c[3] for c in counted]),
                    decision=test.decision, stop=test.stop, seconds=time.perf_counter() - started,
                    case_ids=tuple(str(c) for c in pool.case_ids[chosen]), extra=sampler.extra)
