"""Anytime-valid confidence sequences of a mean score, overall and per subgroup, for notebooks
(:func:`audit_core.confidence_sequence`).

Each group's scores, in the order given, go through
:func:`audit_core.sequential.confseq.confidence_sequence`: after every score t, an interval that
holds for all t at once with probability at least the confidence (Ville's inequality; the
construction is chosen by the scores, docs/confidence_sequence.md). Each subgroup's interval is at
the confidence on its own, not corrected for the number of subgroups.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from audit_core.analyses.common import Verdict
from audit_core.analyses.display import Displayed
from audit_core.errors import InputError
from audit_core.sequential.confseq import AUTO, ConfidenceSequence, confidence_sequence, score_type_of
from audit_core.views.sequential import MAX_TRAJECTORY_POINTS, confidence_sequence_chart

OVERALL = "(all)"
COLUMNS = ("group", "n", "mean", "cs_low", "cs_high", "method", "empty_from")


@dataclass(frozen=True, repr=False)
class SubgroupSequences(Displayed):
    """Confidence sequences of the mean score, overall and per subgroup.

    Attributes
    ----------
    name : what the scores are (a file or column name).
    confidence : 1 − α of every interval.
    subgroup_columns : the columns the subgroups come from (empty: overall only).
    sequences : group → :class:`~audit_core.sequential.confseq.ConfidenceSequence` (bounds after
        every score); the overall sequence under ``"(all)"``.
    table : one row per group: ``group, n, mean, cs_low, cs_high, method, empty_from``.
    trajectory_chart : the intervals over the scores seen (Vega-Lite); verdict.
    """

    name: str
    confidence: float
    subgroup_columns: tuple[str, ...]
    sequences: dict[str, ConfidenceSequence] = field(repr=False)
    table: pd.DataFrame = field(repr=False)
    trajectory_chart: dict = field(repr=False)
    verdict: Verdict

    _key_table = "table"
    _key_chart = "trajectory_chart"

    def to_dict(self) -> dict:
        """Every group's final interval and its bounds after every score."""
        return {"name": self.name, "confidence": self.confidence, "subgroup_columns": list(self.subgroup_columns),
                "groups": [{**{k: _plain(v) for k, v in row.items()}, "lower": [float(v) for v in seq.lower],
                            "upper": [float(v) for v in seq.upper]}
                           for row, seq in zip(self.table.to_dict(orient="records"), self.sequences.values(),
                                               strict=True)]}


def _plain(value):
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return None if np.isnan(value) else float(value)
    return None if value is pd.NA else value


def _scores(values, what: str) -> np.ndarray:
    try:
        x = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{what}: expected numbers in [0, 1]") from None
    if x.ndim != 1:
        raise InputError(f"{what}: expected one score per case (a 1-D list), got shape {x.shape}")
    return x


def subgroup_sequences(scores: Sequence[float] | np.ndarray | pd.Series, groups: pd.DataFrame | None = None,
                       confidence: float = 0.95, method: str = AUTO, name: str = "scores",
                       score_type: str | None = None, planned_n: int | None = None) -> SubgroupSequences:
    """:func:`confidence_sequence` of ``scores`` (in their order) overall and within each
    combination of the ``groups`` columns (same length as ``scores``). ``score_type``: declared
    before the data, else the type of all the scores (every group uses the same). ``planned_n``:
    the number of scores the audit plans, declared before the data: the overall sequence is tuned
    to it (the planned-n construction for 0/1 scores); a subgroup's own size is not planned."""
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0.0 < confidence < 1.0:
        raise InputError(f"confidence: must lie strictly between 0 and 1, got {confidence!r}")
    x = _scores(scores, "scores")
    alpha = 1.0 - float(confidence)
    parts: dict[str, np.ndarray] = {OVERALL: x}
    columns: tuple[str, ...] = ()
    if groups is not None and len(groups.columns):
        if len(groups) != len(x):
            raise InputError(f"subgroup: {len(groups)} subgroup values for {len(x)} scores")
        columns = tuple(str(c) for c in groups.columns)
        labels = groups.astype(str).agg(" / ".join, axis=1).to_numpy()
        for label in sorted(set(labels)):
            parts[label] = x[labels == label]
    score_type = score_type or score_type_of(x)
    sequences = {g: confidence_sequence(v, alpha=alpha, method=method, score_type=score_type,
                                        planned_n=planned_n if g == OVERALL else None)
                 for g, v in parts.items()}
    rows = []
    for group, seq in sequences.items():
        low, high = seq.final
        values = parts[group]
        rows.append({"group": group, "n": seq.n, "mean": float(values.mean()) if len(values) else np.nan,
                     "cs_low": low, "cs_high": high, "method": seq.method,
                     "empty_from": pd.NA if seq.empty_from is None else seq.empty_from})
    table = pd.DataFrame(rows, columns=list(COLUMNS)).astype({"empty_from": "Int64"})
    points = []
    for group, seq in sequences.items():
        values = parts[group]
        if not seq.n:
            continue
        steps = np.unique(np.linspace(0, seq.n - 1, min(seq.n, MAX_TRAJECTORY_POINTS)).astype(int))
        running = np.cumsum(values) / np.arange(1, seq.n + 1)
        points.append(pd.DataFrame({"group": group, "t": steps + 1, "mean": running[steps],
                                    "low": seq.lower[steps], "high": seq.upper[steps]}))
    frame = pd.concat(points, ignore_index=True) if points else pd.DataFrame(columns=["group", "t", "mean", "low", "high"])
    overall = table.iloc[0]
    text = (f"Mean score {overall['mean']:.3f} over {overall['n']:,} scores: {confidence:.0%} anytime-valid interval "
            f"[{overall['cs_low']:.3f}, {overall['cs_high']:.3f}] ({overall['method']})"
            if overall["n"] else "No scores: the interval is [0, 1].")
    caveat = ("The interval holds at every step at once when the scores arrive in random order (or each "
              "score's mean given the past is the mean); each subgroup's is at this confidence on its own.")
    if (table["empty_from"].notna()).any():
        caveat += " A running intersection was empty (empty_from): the scores do not look exchangeable."
    return SubgroupSequences(name=name, confidence=float(confidence), subgroup_columns=columns,
                             sequences=sequences, table=table,
                             trajectory_chart=confidence_sequence_chart(frame, float(confidence)),
                             verdict=Verdict("neutral", text, caveat=caveat))
