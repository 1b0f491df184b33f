"""The strategies' knobs (:class:`AuditorConfig`), apart from the strategies themselves so that a
stored audit's configuration can be checked without loading numpy, the pool or the models."""

from __future__ import annotations

from dataclasses import dataclass

from audit_core.errors import InputError

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
