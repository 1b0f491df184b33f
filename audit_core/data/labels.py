"""Text labels of a score column mapped to scores in [0, 1].

Annotators write "correct"/"incorrect", "pass"/"fail", "✓"/"✗" or a 1–5 rating, and semicolon
files write decimal commas ("0,5"). :func:`score_labels` proposes a score for each
distinct label it recognises (the user confirms or edits it); :func:`apply_score_mapping` turns
the column into numbers with the confirmed mapping, leaving unmapped labels for the loader to
report.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from audit_core.errors import InputError

# Label words in lower case; a label is matched after stripping blanks.
POSITIVE_LABELS = ("1", "true", "yes", "y", "correct", "right", "pass", "passed", "ok", "✓", "✔", "☑", "+")
NEGATIVE_LABELS = ("0", "false", "no", "n", "incorrect", "wrong", "fail", "failed", "✗", "✘", "☒", "x", "-")
PARTIAL_LABELS = ("partial", "partially correct", "half")
MAX_LABELS = 50  # a column with more distinct text labels is not a label column
_DECIMAL_COMMA = re.compile(r"^[+-]?\d+,\d+$")
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


@dataclass(frozen=True)
class ScoreLabels:
    """The distinct labels of a score column and a suggested score for each.

    Attributes
    ----------
    column : the column.
    labels : its distinct stripped values, in order of first appearance (at most MAX_LABELS).
    suggested : label → proposed score for the labels recognised (words, symbols, decimal
        commas, integer ratings 1..k mapped to (r − 1)/(k − 1)).
    needs_mapping : False when every value already reads as a score in [0, 1].
    too_many : True when the column has more than MAX_LABELS distinct labels (not a label column).
    note : how the suggestion was made when it rests on a guess (a rating scale read from the
        highest value present), else None.
    """

    column: str
    labels: tuple[str, ...]
    suggested: dict
    needs_mapping: bool
    too_many: bool = False
    note: str | None = None

    def to_dict(self) -> dict:
        return {"column": self.column, "labels": list(self.labels), "suggested": dict(self.suggested),
                "needs_mapping": self.needs_mapping, "too_many": self.too_many, "note": self.note}


def _is_unit_number(text: str) -> bool:
    return bool(_NUMBER.match(text)) and 0.0 <= float(text) <= 1.0


def score_labels(series: pd.Series, column: str) -> ScoreLabels:
    """Distinct labels of ``series`` with suggested scores (see the module docstring)."""
    text = series.dropna().astype(str).str.strip()
    distinct = pd.unique(text[text != ""])  # an empty cell is a missing score, not a label
    if len(distinct) > MAX_LABELS:
        return ScoreLabels(column, tuple(distinct[:MAX_LABELS]), {}, True, too_many=True)
    labels = tuple(str(v) for v in distinct)
    suggested: dict[str, float] = {}
    for label in labels:
        low = label.lower()
        if low in POSITIVE_LABELS:
            suggested[label] = 1.0
        elif low in NEGATIVE_LABELS:
            suggested[label] = 0.0
        elif low in PARTIAL_LABELS:
            suggested[label] = 0.5
        elif _DECIMAL_COMMA.match(label) and 0.0 <= float(label.replace(",", ".")) <= 1.0:
            suggested[label] = float(label.replace(",", "."))
        elif _is_unit_number(label):
            suggested[label] = float(label)
    ratings = [label for label in labels if re.fullmatch(r"\d+", label)]
    note = None
    if ratings and len(ratings) == len(labels):
        top = max(int(r) for r in ratings)
        bottom = min(int(r) for r in ratings)
        if top > 1 and bottom >= 1:  # a 1..k rating scale: 1 is the worst, k the best
            suggested = {r: (int(r) - 1) / (top - 1) for r in ratings}
            # The file shows only the ratings given: a 1–5 scale whose 5 nobody gave looks like 1–4.
            note = (f"Read as a rating scale from 1 to {top}, the highest rating in the file "
                    f"(score = (rating − 1) / {top - 1}); if the scale goes higher, edit the scores.")
    needs = not all(low in ("true", "false", "yes", "no") or _is_unit_number(low) for low in map(str.lower, labels))
    return ScoreLabels(column, labels, suggested, needs, note=note)


def apply_score_mapping(series: pd.Series, mapping: Mapping[str, float], column: str) -> pd.Series:
    """The column with every mapped label replaced by its score (as text, for the loader).

    Scores must be numbers in [0, 1]; labels not in ``mapping`` are left as they are, so the
    loader names them if they are not scores.
    """
    for label, score in mapping.items():
        try:
            value = float(score)
        except (TypeError, ValueError):
            raise InputError(f"score column {column!r}: the score for label {label!r} is not a number") from None
        if not (np.isfinite(value) and 0.0 <= value <= 1.0):
            raise InputError(f"score column {column!r}: the score for label {label!r} must be in [0, 1], got {score!r}")
    text = series.astype(str).str.strip()
    table = {str(k): repr(float(v)) for k, v in mapping.items()}
    return text.map(lambda v: table.get(v, v))


ACCEPTED_SCORES = ("Accepted scores: 0/1, numbers in [0, 1], true/false and yes/no; other labels (correct/incorrect, "
                   "pass/fail, ✓/✗, 1–5 ratings, decimal commas such as 0,5) need a mapping to scores.")

