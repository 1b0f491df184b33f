"""Argument checks shared by the public functions of :mod:`audit_core.sequential`.

Every public function checks its arguments here and raises :class:`InputError` naming the argument,
never an IndexError, TypeError or ValueError from inside numpy. What counts as a number is the
same everywhere: Python and numpy bools, integers and floats (and ``numbers.Real`` such as
``Fraction``). Strings are refused everywhere, numeric ones such as ``"0.5"`` included: text from a
file is converted by the loaders (``audit_core.data``), which say which row and column was bad.

The alternatives are clipped into ``[CLIP, q]`` (below q) or ``[q, 1 - CLIP]`` (above q), so a
threshold ``q`` must lie strictly between ``CLIP`` and ``1 - CLIP``: otherwise one of the two
intervals is empty and a clipped bet would land on the wrong side of q.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from audit_core.errors import InputError

# Below the model's side and above the auditor's side the alternative never reaches 0 or 1, so a
# single score can never send log E to -inf.
CLIP = 1e-6

SIDES = ("below", "above")

_REAL = (numbers.Real, np.bool_)


def is_number(value) -> bool:
    """A real scalar (bool, int, float, numpy number); strings are never numbers here."""
    return isinstance(value, _REAL) and not isinstance(value, (str, bytes))


def as_numbers(values, role: str) -> np.ndarray:
    """``values`` as a float array; InputError naming ``role`` for strings or other non-numbers."""
    if isinstance(values, (str, bytes)):
        raise InputError(f"{role}: expected numbers, got the string {values!r} (strings are not accepted)")
    try:
        array = np.asarray(values)
    except (TypeError, ValueError):
        raise InputError(f"{role}: expected numbers in a regular (non-ragged) array, got {values!r:.80}") from None
    kind = array.dtype.kind
    if kind in "biuf":
        return array.astype(float, copy=False)
    if kind == "O":
        for position, value in enumerate(array.ravel(), start=1):
            if not is_number(value):
                raise InputError(f"{role}: value {value!r} at position {position} is not a number")
        return array.astype(float)
    first = array.ravel()[0] if array.size else None
    raise InputError(f"{role}: expected numbers, got {array.dtype.name} values such as {first!r} "
                     "(strings are not accepted)")


def as_sequence(values, role: str) -> np.ndarray:
    """Numbers with at least one axis (a 1-D stream or runs x steps); a lone scalar is refused."""
    array = as_numbers(values, role)
    if array.ndim == 0:
        raise InputError(f"{role}: expected a sequence (1-D, or 2-D runs x steps), got the single value {values!r}")
    return array


def check_scores(scores, role: str = "scores") -> np.ndarray:
    """Scores as a float array; every value must be a number in [0, 1] (NaN refused)."""
    y = as_numbers(scores, role)
    bad = ~((y >= 0.0) & (y <= 1.0))  # also catches NaN
    if bad.any():
        flat = int(np.flatnonzero(bad.ravel())[0])
        value = y.ravel()[flat]
        what = "is not a number (NaN)" if math.isnan(value) else "is outside [0, 1]"
        raise InputError(
            f"{role}: value {value!r} at position {flat + 1} {what} "
            f"({int(bad.sum())} such value(s)); scores must be numbers in [0, 1]"
        )
    return y


def check_score_sequence(scores, role: str = "scores") -> np.ndarray:
    """:func:`check_scores` for a stream (at least one axis; steps along the last)."""
    return check_scores(as_sequence(scores, role), role)


def check_score(y, role: str = "score") -> float:
    """One score as a float in [0, 1]."""
    if type(y) is not float:  # the streaming hot path passes floats
        if not is_number(y):
            raise InputError(f"{role}: expected a number in [0, 1], got {y!r}")
        y = float(y)
    if not 0.0 <= y <= 1.0:
        raise InputError(f"{role}: expected a number in [0, 1], got {y!r}")
    return y


def check_alternative(alternative, role: str = "alternative") -> float | None:
    """One per-step alternative: a number (clipped later to its side of q) or None/NaN = none."""
    if alternative is None:
        return None
    if type(alternative) is not float:
        if not is_number(alternative):
            raise InputError(f"{role}: expected a number (or None), got {alternative!r}")
        alternative = float(alternative)
    return None if math.isnan(alternative) else alternative


def check_real(value, role: str, allow_inf: bool = False) -> float:
    """A real scalar that is not NaN (nor infinite unless ``allow_inf``)."""
    if not is_number(value) or isinstance(value, (bool, np.bool_)):
        raise InputError(f"{role}: expected a number, got {value!r}")
    value = float(value)
    if math.isnan(value) or (not allow_inf and math.isinf(value)):
        raise InputError(f"{role}: expected a finite number, got {value!r}")
    return value


def check_q(q, role: str = "q") -> float:
    """The threshold q: a number strictly between CLIP and 1 - CLIP (both clip intervals non-empty)."""
    q = check_real(q, role)
    if not CLIP < q < 1.0 - CLIP:
        raise InputError(
            f"{role}: must lie strictly between {CLIP:g} and 1 - {CLIP:g} = {1.0 - CLIP}, got {q!r} (the alternatives "
            f"are clipped to [{CLIP:g}, q] below q and [q, 1 - {CLIP:g}] above it; outside this range one "
            "interval is empty and a bet would land on the wrong side of q)"
        )
    return q


def check_side(side) -> str:
    if side not in SIDES:
        raise InputError(f"side: expected one of {', '.join(SIDES)}, got {side!r}")
    return side


def clip_bounds(q: float, side: str) -> tuple[float, float]:
    """[low, high] of the alternatives on ``side`` of q: [CLIP, q] or [q, 1 - CLIP]."""
    return (CLIP, q) if side == "below" else (q, 1.0 - CLIP)


def check_grid(grid, q: float, side: str, role: str = "grid") -> tuple[float, ...]:
    """Forecaster grid points: a non-empty flat list, every point inside its side's clip interval
    and different from q (``[CLIP, q)`` below, ``(q, 1 - CLIP]`` above)."""
    points = np.atleast_1d(as_numbers(grid, role))
    if points.ndim != 1 or points.size == 0:
        raise InputError(f"{role}: expected a non-empty flat list of numbers, got {grid!r}")
    if side == "below":
        inside = (points >= CLIP) & (points < q)
    else:
        inside = (points > q) & (points <= 1.0 - CLIP)
    if not inside.all():  # NaN fails both comparisons
        span = f"[{CLIP:g}, q={q})" if side == "below" else f"(q={q}, 1 - {CLIP:g}]"
        raise InputError(f"{role}: every point must lie in {span}; got {tuple(float(p) for p in points)}")
    return tuple(float(p) for p in points)


def check_eta(eta, role: str = "eta") -> float:
    eta = check_real(eta, role)
    if eta <= 0.0:
        raise InputError(f"{role}: the learning rate must be positive, got {eta}")
    return eta
