"""Replay of a recorded annotation run: every e-process, stopping times, dual decision, subgroups.

The scores are taken in the order given (the loader sorts by the file's ``order`` column). The
recorded run is the budget: the dual decision is the first crossing anywhere in it, and a run that
never crosses is "inconclusive". The subgroup table counts cases per combination of the subgroup
columns with their mean score and Wilson interval (for fractional scores ``correct`` is the sum of
scores).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from audit_core.errors import InputError
from audit_core.sequential.dual import (
    AUDIT_PASSED, FAILURE_FOUND, INCONCLUSIVE, check_roles, dual_decision, first_crossing,
)
from audit_core.sequential.intervals import wilson_interval
from audit_core.sequential.checks import check_scores
from audit_core.sequential.params import AuditParams
from audit_core.sequential.processes import MODEL_PROCESSES, PROCESS_NAMES, check_params, log_evalues

ALL_CASES = "(all)"


@dataclass(frozen=True, eq=False)
class Replay:
    """Result of :func:`replay`; ``to_dict()`` is the CLI JSON of DESIGN.md section 6."""

    n: int
    params: AuditParams
    log_e: dict  # name -> np.ndarray of log E_1..log E_n
    stops: dict  # name -> 1-based first crossing or None
    decisions: dict  # name -> decision string of that process alone
    dual: dict  # decision, stop, model_process, auditor_process, log_threshold
    subgroup_table: pd.DataFrame
    subgroup_columns: tuple = field(default=())

    @property
    def decision(self) -> str:
        return self.dual["decision"]

    @property
    def overall(self) -> dict:
        """Cases, correct, accuracy and Wilson interval over the whole run."""
        correct = float(self.subgroup_table["correct"].sum())
        low, high = wilson_interval(correct, self.n)
        return {"n": self.n, "correct": correct, "accuracy": correct / self.n, "ci_low": low, "ci_high": high}

    def to_dict(self) -> dict:
        processes = {
            name: {
                "log_e": [float(v) for v in self.log_e[name]],
                "stop": self.stops[name],
                "decision": self.decisions[name],
                "final_log_e": float(self.log_e[name][-1]),
            }
            for name in PROCESS_NAMES if name in self.log_e
        }
        table = self.subgroup_table.copy()
        table["n"] = table["n"].astype(int)
        return {
            "n": self.n,
            "processes": processes,
            "decision": dict(self.dual),
            "overall": self.overall,
            "subgroup_columns": list(self.subgroup_columns),
            "subgroups": table.to_dict(orient="records"),
            "params": self.params.to_dict(),
        }

    def __repr__(self) -> str:
        return (f"Replay(n={self.n}, decision={self.decision!r}, stop={self.dual['stop']}, "
                f"subgroups={len(self.subgroup_table)})")


def _subgroup_frame(subgroups, n: int) -> pd.DataFrame:
    if subgroups is None:
        return pd.DataFrame({"subgroup": np.full(n, ALL_CASES)})
    if isinstance(subgroups, pd.DataFrame):
        frame = subgroups.reset_index(drop=True)
    elif isinstance(subgroups, pd.Series):
        frame = subgroups.reset_index(drop=True).to_frame(name=subgroups.name or "subgroup")
    elif isinstance(subgroups, dict):
        frame = pd.DataFrame({str(k): np.asarray(v) for k, v in subgroups.items()})
    else:
        frame = pd.DataFrame({"subgroup": np.asarray(subgroups)})
    if frame.shape[1] == 0:
        return pd.DataFrame({"subgroup": np.full(n, ALL_CASES)})
    if len(frame) != n:
        raise InputError(f"subgroups: {len(frame)} row(s) for {n} score(s); they must align one to one")
    return frame.astype(str)


def subgroup_table(scores: np.ndarray, subgroups=None, confidence: float = 0.95) -> pd.DataFrame:
    """One row per subgroup (combination of columns): n, correct, accuracy, ci_low, ci_high."""
    y = check_scores(scores)
    frame = _subgroup_frame(subgroups, len(y))
    columns = list(frame.columns)
    grouped = frame.assign(_score=y).groupby(columns, sort=True, dropna=False)["_score"].agg(["size", "sum"])
    table = grouped.reset_index().rename(columns={"size": "n", "sum": "correct"})
    table["accuracy"] = table["correct"] / table["n"]
    low, high = wilson_interval(table["correct"].to_numpy(), table["n"].to_numpy(), confidence)
    table["ci_low"], table["ci_high"] = low, high
    return table[columns + ["n", "correct", "accuracy", "ci_low", "ci_high"]]


def replay(scores, params: AuditParams, subgroups=None, model_process: str = "SR-LR-UI",
           auditor_process: str = "AUD-LR-UI") -> Replay:
    """All six processes over the recorded scores, their first crossings, the dual decision of
    ``model_process`` vs ``auditor_process`` and the per-subgroup table."""
    check_roles(model_process, auditor_process)
    check_params(params)
    y = check_scores(scores)
    if y.ndim != 1 or len(y) == 0:
        raise InputError("replay: need a non-empty sequence of scores")
    trajectories = log_evalues(y, params)
    threshold = params.log_threshold
    stops = {name: first_crossing(trajectories[name], threshold) for name in PROCESS_NAMES}
    decisions = {
        name: INCONCLUSIVE if stops[name] is None else (FAILURE_FOUND if name in MODEL_PROCESSES else AUDIT_PASSED)
        for name in PROCESS_NAMES
    }
    decision, stop = dual_decision(stops[model_process], stops[auditor_process])
    dual = {"decision": decision, "stop": stop, "model_process": model_process,
            "auditor_process": auditor_process, "log_threshold": threshold}
    table = subgroup_table(y, subgroups)
    columns = tuple(c for c in table.columns if c not in ("n", "correct", "accuracy", "ci_low", "ci_high"))
    return Replay(n=len(y), params=params, log_e=trajectories, stops=stops, decisions=decisions,
                  dual=dual, subgroup_table=table, subgroup_columns=columns if subgroups is not None else ())
