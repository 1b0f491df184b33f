"""One way to write numbers for people: counts, rates, e-values and missing values.

Used by the dashboard's tables and metrics, the verdicts, the CLI's text output, the report
(HTML, Markdown) and the PDF, so the same number reads the same everywhere:

* a **count** is a whole number with thousands separators (``62``, ``1,234``), never ``62.000``;
* a **rate** (accuracy, share, interval bound, level) has three decimals (``0.667``, ``1.000``);
* an **e-value** is shown as log₁₀ E (``log₁₀ E = 1.301`` is E = 20): one base for people
  everywhere (issue 19); the engine and the JSON exports keep natural logs;
* a **missing** value (None, NaN, an empty list, log E = -inf before any evidence) is ``—``;
  +inf is ``∞``; a boolean is ``yes`` / ``no``.

Nothing here computes a statistic; it only writes the engine's numbers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

MISSING = "—"
INFINITE = "∞"
LOG10 = math.log(10.0)
LOG_E_LABEL = "log₁₀ E"  # the label every page, chart, CLI text and report uses for an e-value
RATE_DIGITS = 3

# Column names that hold counts even when stored as floats (sums of 0/1 scores, n of a subgroup).
COUNT_NAMES = frozenset({"n", "correct", "cases", "count", "labelled", "skipped", "step", "stop", "cells",
                         "n_cases", "n_labelled", "collisions", "classes", "cost", "size", "rows"})


def _number(value: Any) -> float | None:
    """``value`` as a float, or None when it is missing or not a number."""
    if value is None or isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (int, float, np.integer, np.floating)):
        number = float(value)
        return None if math.isnan(number) else number
    return None


def is_missing(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, (float, np.floating)) and math.isnan(float(value)):
        return True
    try:
        import pandas as pd
        return value is pd.NA or value is pd.NaT
    except ImportError:  # pragma: no cover
        return False


def _finite_or_mark(value: Any, finite: Callable[[float], str]) -> str:
    """``—`` when missing, ``∞`` / ``-∞`` when infinite, else ``finite(number)``."""
    number = _number(value)
    if number is None:
        return MISSING
    if math.isinf(number):
        return INFINITE if number > 0 else f"-{INFINITE}"
    return finite(number)


def count(value: Any) -> str:
    """A count: ``62``, ``1,234``; ``—`` when missing."""
    return _finite_or_mark(value, lambda number: f"{round(number):,}")


def rate(value: Any, digits: int = RATE_DIGITS) -> str:
    """A rate or proportion with ``digits`` decimals: ``0.667``; ``—`` when missing."""
    return _finite_or_mark(value, lambda number: f"{number:.{digits}f}")


EMPTY_SEQUENCE = ("empty: no one mean fits these scores in the order given (a file sorted by subgroup, "
                  "or a mean that drifts; by chance at most α)")


def planned_note(planned_n: int | None) -> str:
    """" tuned to N planned cases" after "anytime-valid interval" when the interval was tuned to a
    planned number of cases, else "" (one phrase on the page, in the report and on the command line)."""
    return "" if planned_n is None else f" tuned to {count(planned_n)} planned cases"


def anytime_interval(low: Any, high: Any) -> str:
    """An anytime-valid interval as "[low, high]", or :data:`EMPTY_SEQUENCE` when the running
    intersection became empty (the confidence sequence keeps both ends where they met, so
    low = high): a point is never shown as if it were an interval."""
    lo, hi = _number(low), _number(high)
    if lo is not None and hi is not None and lo >= hi:
        return EMPTY_SEQUENCE
    return f"[{rate(low)}, {rate(high)}]"


def log10_e(log_e: Any) -> float | None:
    """A natural-log e-value as log₁₀ E (None when missing or -inf: no evidence yet, or E = 0)."""
    number = _number(log_e)
    if number is None or number == -math.inf:
        return None
    return number / LOG10


def evalue(log_e: Any, digits: int = RATE_DIGITS) -> str:
    """An e-value given as its natural log, written as log₁₀ E (``1.301`` for E = 20);
    ``—`` before any evidence (log E missing or -inf)."""
    value = log10_e(log_e)
    return MISSING if value is None else rate(value, digits)


def number(value: Any) -> str:
    """Any number: whole numbers as counts, others as rates; ``—`` when missing."""
    as_float = _number(value)
    if as_float is None:
        if isinstance(value, (bool, np.bool_)):
            return "yes" if value else "no"
        return MISSING if is_missing(value) else str(value)
    if isinstance(value, (int, np.integer)) or (math.isfinite(as_float) and as_float.is_integer()
                                                and abs(as_float) >= 2):
        return count(as_float)
    return rate(as_float)


def cell(value: Any, kind: str = "auto") -> str:
    """A table cell as text: ``kind`` "count", "rate" or "auto" (by the value's type); lists are
    joined with commas, None / NaN is ``—``, booleans ``yes`` / ``no``."""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return listing(value)
    if kind == "count":
        return count(value)
    if kind == "rate":
        return rate(value)
    if _number(value) is not None or is_missing(value):
        if isinstance(value, (int, np.integer)):
            return count(value)
        return MISSING if is_missing(value) else rate(value)
    return str(value)


def listing(items: Iterable[Any], empty: str = "none") -> str:
    """Items joined with commas, or ``empty`` (never a sentence ending in ": .")."""
    parts = [cell(item) for item in items]
    return ", ".join(parts) if parts else empty


def column_kind(name: Any, values) -> str:
    """"count" for a column of whole numbers (an integer dtype, or floats that are all whole and
    either exceed 1, carry a count's name or are scores: a 0/1 score is ``1``, not ``1.000``),
    "rate" for other floats, "text" otherwise."""
    array = np.asarray(values)
    if array.dtype.kind in "iu":
        return "count"
    if array.dtype.kind != "f":
        return "text"
    finite = array[np.isfinite(array)]
    whole = finite.size > 0 and bool(np.all(finite == np.round(finite)))
    label = str(name).strip().lower()
    if whole and (float(np.max(np.abs(finite))) > 1 or label in COUNT_NAMES or label.startswith("score")):
        return "count"
    return "rate"


def frame_cells(frame) -> list[list[str]]:
    """Every cell of a DataFrame as text, each column formatted by its :func:`column_kind`."""
    kinds = [column_kind(c, frame[c].to_numpy()) for c in frame.columns]
    return [[cell(v, k if k != "text" else "auto") for v, k in zip(row, kinds, strict=True)]
            for row in frame.itertuples(index=False, name=None)]


def paired_intervals(frame):
    """A copy of ``frame`` where each pair of columns ``x_low`` / ``x_high`` (or ``x low`` /
    ``x high``) is one text column ``x`` = "[low, high]", both ends by :func:`rate`, where the pair
    stood: three intervals take three narrow columns instead of six, so a table fits a screen.
    For display only; downloads keep the bounds as numbers."""
    import pandas as pd
    shown = pd.DataFrame(frame).copy()
    for column in list(shown.columns):
        name = str(column)
        if not (name.endswith("_low") or name.endswith(" low")):
            continue
        partner = name[:-3] + "high"
        if partner not in shown.columns:
            continue
        text = [f"[{rate(lo)}, {rate(hi)}]" for lo, hi in zip(shown[column], shown[partner], strict=True)]
        at = list(shown.columns).index(column)
        shown = shown.drop(columns=[column, partner])
        # beside its point estimate (x, x_low, x_high) the pair is "x interval"
        shown.insert(at, name[:-4] if name[:-4] not in shown.columns else f"{name[:-4]} interval", text)
    return shown


# What a report's reader is told an interval column is (the page's captions say it beside the table).
INTERVAL_NAMES = {"ci": "Wilson 95% (fixed n)", "cs": "anytime-valid 95%", "fw": "family-wise (α/K)",
                  "wilson": "Wilson", "boot": "cluster bootstrap"}


def report_frame(frame):
    """A table as a report shows it: each low/high pair as one "[low, high]" column
    (:func:`paired_intervals`) named in words (:data:`INTERVAL_NAMES`), other names with spaces
    for underscores; the JSON export keeps the frame as it is."""
    shown = paired_intervals(frame)
    return shown.rename(columns={c: INTERVAL_NAMES.get(str(c), str(c).replace("_", " ")) for c in shown.columns})


def display_frame(frame):
    """A copy of ``frame`` for an interactive table: counts as integers, rates as floats (the
    table draws them with :data:`RATE_DIGITS` decimals); a numeric column with a missing or
    infinite value becomes text written by :func:`count` / :func:`rate` (a grid would show
    ``None`` or ``Infinity``); None / NaN in a text column is ``—``."""
    import pandas as pd
    shown = pd.DataFrame(frame).copy()
    for column in shown.columns:
        values = shown[column]
        kind = column_kind(column, values.to_numpy())
        if kind in ("count", "rate"):
            finite = np.isfinite(values.to_numpy(dtype=float))
            if not finite.all():
                write = count if kind == "count" else rate
                shown[column] = [write(v) for v in values]
            elif kind == "count" and values.dtype.kind == "f":
                shown[column] = values.round().astype("int64")
        elif values.dtype == object:
            shown[column] = [MISSING if is_missing(v) else listing(v) if isinstance(v, (list, tuple)) else v
                             for v in values]
    return shown
