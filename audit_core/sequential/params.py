"""Parameters of the dual anytime-valid audit (paper 001 section 3.2, docs/e-processes.md, Parameters and defaults).

One frozen :class:`AuditParams` carries everything the e-processes, the dual test and the auditing
strategies need. ``AuditParams.gpqa()`` and ``AuditParams.sdoh()`` give the paper's experiment
defaults; any field can be overridden there (``AuditParams.gpqa(m=20)``) or with
``dataclasses.replace``. Every construction is validated and raises :class:`InputError`.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from audit_core.errors import InputError
from audit_core.presets import GPQA_STUDY_N_INIT, STYLES, WEIGHT_SCHEMES, resolve_style  # noqa: F401 (STYLES, WEIGHT_SCHEMES re-exported)
from audit_core.sequential.checks import CLIP, check_grid

MAX_COUNT = 10**9  # m, budget, n_init: a bound far above any audit, so no count overflows numpy


def grid(start: float, stop: float, step: float) -> tuple[float, ...]:
    """Points ``start, start+step, ...`` up to ``stop`` inclusive (rounded to 10 digits)."""
    count = int(math.floor((stop - start) / step + 1e-9)) + 1
    return tuple(round(start + i * step, 10) for i in range(count))


@dataclass(frozen=True)
class AuditParams:
    """Thresholds and tuning of the dual test.

    ``q``: performance threshold, strictly between CLIP = 1e-6 and 1 - CLIP (the alternatives are
    clipped to [CLIP, q] and [q, 1 - CLIP]; both must be non-empty); ``alpha``: level (stop when
    log E >= -log(alpha), computed as -log(alpha) so that even alpha = 1e-320 gives a finite
    threshold);
    ``m``: auditor's budget (its null is tested from step m on; also the horizon of the uniform
    changepoint weights); ``delta`` / ``delta_aud``: fixed alternatives q - delta (model's null)
    and q + delta_aud (auditor's null); ``eta``: EWAF learning rate; ``grid_mod`` / ``grid_aud``:
    forecaster grids strictly below / above q and inside the clip interval ([CLIP, q) and
    (q, 1 - CLIP]); the fixed alternatives q - delta >= CLIP and q + delta_aud <= 1 - CLIP, so the
    alternatives used are exactly the ones given (never clipped); ``weights``: changepoint weights, "uniform"
    (1/m for the first m changepoints) or "harmonic" (1/(j(j+1))); ``budget``: total annotations
    of one audit; ``n_init``: initial random samples of the adaptive auditor. Numbers only:
    strings (numeric ones included) raise InputError.
    """

    q: float
    alpha: float
    m: int
    delta: float
    delta_aud: float
    eta: float
    grid_mod: tuple
    grid_aud: tuple
    weights: str = "uniform"
    budget: int = 250
    n_init: int = 0

    def __post_init__(self) -> None:
        for field in ("q", "alpha", "delta", "delta_aud", "eta"):
            value = getattr(self, field)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
                raise InputError(f"parameter {field}: expected a finite number, got {value!r}")
            object.__setattr__(self, field, float(value))
        for field in ("m", "budget", "n_init"):
            value = getattr(self, field)
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
                raise InputError(f"parameter {field}: expected a whole number, got {value!r}")
            if value > MAX_COUNT:  # 1e30 labels reached numpy as an object and failed far from here
                shown = f"{int(value):,}" if value < 10**15 else f"about {float(value):.3g}"
                raise InputError(f"parameter {field}: at most {MAX_COUNT:,} (labels of one audit), got {shown}")
            object.__setattr__(self, field, int(value))
        if not CLIP < self.q < 1.0 - CLIP:
            raise InputError(
                f"parameter q: must lie strictly between {CLIP:g} and 1 - {CLIP:g} = {1.0 - CLIP}, got {self.q} "
                f"(the alternatives are clipped to [{CLIP:g}, q] and [q, 1 - {CLIP:g}]; outside this range one "
                "of them is empty and a bet would land on the wrong side of q)"
            )
        if not 0.0 < self.alpha < 1.0:
            raise InputError(f"parameter alpha: must lie strictly between 0 and 1, got {self.alpha}")
        if self.m < 1:
            raise InputError(f"parameter m: must be at least 1, got {self.m}")
        if self.budget < 1:
            raise InputError(f"parameter budget: must be at least 1, got {self.budget}")
        if self.n_init < 0:
            raise InputError(f"parameter n_init: must be 0 or more, got {self.n_init}")
        # Grids before the deltas: a new q with the style's grids is the common mistake to name.
        object.__setattr__(self, "grid_mod", check_grid(self.grid_mod, self.q, "below", "parameter grid_mod"))
        object.__setattr__(self, "grid_aud", check_grid(self.grid_aud, self.q, "above", "parameter grid_aud"))
        if not (self.delta > 0.0 and self.q - self.delta >= CLIP):
            raise InputError(f"parameter delta: q - delta must lie in [{CLIP:g}, q); got delta={self.delta}, q={self.q}")
        if not (self.delta_aud > 0.0 and self.q + self.delta_aud <= 1.0 - CLIP):
            raise InputError(
                f"parameter delta_aud: q + delta_aud must lie in (q, 1 - {CLIP:g}]; got delta_aud={self.delta_aud}, "
                f"q={self.q}"
            )
        if self.eta <= 0.0:
            raise InputError(f"parameter eta: the learning rate must be positive, got {self.eta}")
        if self.weights not in WEIGHT_SCHEMES:
            raise InputError(f"parameter weights: expected one of {', '.join(WEIGHT_SCHEMES)}, got {self.weights!r}")

    @property
    def log_threshold(self) -> float:
        """-log(alpha) = log(1/alpha): an e-process rejects its null once log E_t >= this.

        Computed as -log(alpha): 1/alpha overflows to inf for subnormal alpha (e.g. 1e-320).
        """
        return -math.log(self.alpha)

    @property
    def q_mod(self) -> float:
        """Fixed alternative of the model's-null LR processes, q - delta."""
        return round(self.q - self.delta, 12)

    @property
    def q_aud(self) -> float:
        """Fixed alternative of the auditor's-null LR process, q + delta_aud."""
        return round(self.q + self.delta_aud, 12)

    @classmethod
    def gpqa(cls, **overrides: Any) -> AuditParams:
        """GPQA-style defaults: q=.85, q-delta=.82, q+delta'=.90, grids .60..82/.055 and .88..94/.03."""
        base = dict(q=0.85, alpha=0.05, m=40, delta=0.03, delta_aud=0.05, eta=0.1,
                    grid_mod=grid(0.60, 0.82, 0.055), grid_aud=grid(0.88, 0.94, 0.03),
                    weights="uniform", budget=250, n_init=0)
        return cls(**{**base, **overrides})

    @classmethod
    def sdoh(cls, **overrides: Any) -> AuditParams:
        """SDoH-style defaults: q=.83, q-delta=.80, q+delta'=.86, grids .60..80/.05 and .86..97/.03,
        eta=.2, budget 400, 20 initial random samples."""
        base = dict(q=0.83, alpha=0.05, m=40, delta=0.03, delta_aud=0.03, eta=0.2,
                    grid_mod=grid(0.60, 0.80, 0.05), grid_aud=grid(0.86, 0.97, 0.03),
                    weights="uniform", budget=400, n_init=20)
        return cls(**{**base, **overrides})

    @classmethod
    def for_style(cls, style: str, **overrides: Any) -> AuditParams:
        """``gpqa`` or ``sdoh`` defaults with overrides (``None`` values are ignored)."""
        if style not in STYLES:
            raise InputError(f"style: expected one of {', '.join(STYLES)}, got {style!r}")
        given = {k: v for k, v in overrides.items() if v is not None}
        return getattr(cls, style)(**given)

    @classmethod
    def from_thresholds(cls, style: str, *, q: float, alpha: float, m: int, q_mod: float, q_aud: float,
                        eta: float) -> AuditParams:
        """:meth:`for_style` from the three thresholds a person sets, q − δ (``q_mod``), q and q + δ'
        (``q_aud``): δ = q − q_mod and δ' = q_aud − q, rounded to 10 decimals so thresholds 0.80 and
        0.83 give δ = 0.03 and not 0.029999999999999916. The forecaster grids follow q as
        :func:`audit_params` moves them."""
        return audit_params(style, q=q, alpha=alpha, m=m, delta=round(q - q_mod, 10),
                            delta_aud=round(q_aud - q, 10), eta=eta)

    def replace(self, **changes: Any) -> AuditParams:
        """A validated copy with some fields changed."""
        return replace(self, **changes)

    def to_dict(self) -> dict:
        data = asdict(self)
        data["grid_mod"] = list(self.grid_mod)
        data["grid_aud"] = list(self.grid_aud)
        return data

    def content_hash(self) -> str:
        """SHA-256 of every field (a cache keys parameters by it): equal parameters, equal hash."""
        text = json.dumps(self.to_dict(), sort_keys=True, default=repr)
        return hashlib.sha256(text.encode()).hexdigest()

    def __repr__(self) -> str:
        return (f"AuditParams(q={self.q}, alpha={self.alpha}, m={self.m}, q-delta={self.q_mod}, "
                f"q+delta'={self.q_aud}, eta={self.eta}, weights={self.weights}, budget={self.budget})")


def audit_params(style: str | None, **overrides) -> AuditParams:
    """The style's :class:`AuditParams` with ``overrides`` (``None`` values are ignored): the one
    place every front end builds its parameters (the style checked by
    :func:`audit_core.presets.resolve_style`).

    A ``q`` other than the style's moves both forecaster grids by the same shift q − q_style (δ and
    δ′ are kept), dropping grid points that would cross q, unless grids are given explicitly; a q
    that leaves a grid empty is refused (docs/e-processes.md, Parameters and defaults).
    """
    style = resolve_style(style)
    overrides = {k: v for k, v in overrides.items() if v is not None}
    base = AuditParams.for_style(style)
    q = overrides.get("q")
    if isinstance(q, (int, float)) and not isinstance(q, bool) and 0.0 < q < 1.0 and q != base.q:
        shift = q - base.q
        if "grid_mod" not in overrides:
            overrides["grid_mod"] = tuple(round(g + shift, 10) for g in base.grid_mod if 0.0 < g + shift < q)
        if "grid_aud" not in overrides:
            overrides["grid_aud"] = tuple(round(g + shift, 10) for g in base.grid_aud if q < g + shift < 1.0)
        if not overrides["grid_mod"] or not overrides["grid_aud"]:
            raise InputError(f"q = {q}: the {style} forecaster grids shifted to this q leave no point on one "
                             "side of it; choose q further from 0 and 1")
    return AuditParams.for_style(style, **overrides)


def paper_params(style: str | None, **overrides) -> AuditParams:
    """Parameters of the paper's study for a pool style: GPQA q .85, m 40, budget 250, 2 initial
    cases; SDoH q .83, m 40, budget 400, 20 initial cases (``None`` overrides are ignored).

    :func:`audit_params` with the GPQA study's 2 initial cases: a ``q`` other than the style's moves
    both forecaster grids by the same shift.
    """
    style = resolve_style(style)
    if style == "gpqa" and overrides.get("n_init") is None:
        overrides["n_init"] = GPQA_STUDY_N_INIT
    return audit_params(style, **overrides)
