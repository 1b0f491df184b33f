"""The population an auditor samples from: cases, their scores, features and (known) strata.

A :class:`Pool` is built from a bundled key (``gpqa:large``, ``gpqa:medium``, ``gpqa:small``,
``gpqa:none``, ``sdoh``) or from any labelled audit CSV (read by
:func:`audit_core.data.loader.load_audit_csv`). The adaptive and pre-learned auditors see only
``features``; the strata (combinations of the subgroup columns) are used by the stratified,
oracle and informed-prior strategies, by scenario (b)'s bank and by the summaries.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from audit_core.data.bundled import BUNDLED
from audit_core.errors import InputError
from audit_core.presets import BUNDLED_POOLS


@dataclass(frozen=True, repr=False)
class Pool:
    """Cases of one audit population.

    ``labels``: the recorded score of every case in [0, 1]; ``truth``: true per-case accuracy when
    known (simulations then draw fresh Bernoulli labels per replicate), else None (the recorded
    labels are used as they are); ``features``: (n, d) standardised numeric features (may have
    d = 0: the adaptive auditor then learns only an intercept); ``strata``: stratum code of every
    case into ``stratum_names`` (one stratum when no subgroup column is given);
    ``subgroup_values``: (n, k) subgroup column values, for matching ``suspects``.
    """

    name: str
    case_ids: np.ndarray
    labels: np.ndarray
    features: np.ndarray
    strata: np.ndarray
    stratum_names: tuple[str, ...]
    subgroup_columns: tuple[str, ...]
    subgroup_values: np.ndarray
    truth: np.ndarray | None = None
    style: str | None = None
    suspects: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())

    @property
    def n(self) -> int:
        return len(self.labels)

    @property
    def accuracy(self) -> np.ndarray:
        """Per-case accuracy the studies treat as true: ``truth`` if known, else the labels."""
        return self.truth if self.truth is not None else self.labels

    def stratum_accuracy(self) -> np.ndarray:
        """Mean true accuracy of every stratum (in ``stratum_names`` order)."""
        sums = np.bincount(self.strata, weights=self.accuracy, minlength=len(self.stratum_names))
        counts = np.bincount(self.strata, minlength=len(self.stratum_names))
        return sums / np.maximum(counts, 1)

    def stratum_sizes(self) -> np.ndarray:
        return np.bincount(self.strata, minlength=len(self.stratum_names))

    def suspect_mask(self, suspects=None) -> np.ndarray:
        """Cases in any named subgroup: a name matches a subgroup value or a stratum name."""
        names = tuple(self.suspects if suspects is None else suspects)
        if not names:
            raise InputError(f"pool {self.name}: the informed-prior strategy needs suspect subgroups (name the suspect subgroups)")
        wanted = set(names)
        by_value = np.isin(self.subgroup_values, list(wanted)).any(axis=1) if self.subgroup_values.size else \
            np.zeros(self.n, dtype=bool)
        by_stratum = np.isin(np.asarray(self.stratum_names, dtype=object)[self.strata], list(wanted))
        mask = by_value | by_stratum
        if not mask.any():
            known = ", ".join(self.stratum_names[:8])
            raise InputError(f"pool {self.name}: suspect subgroup(s) {', '.join(names)} match no case "
                             f"(subgroups include: {known})")
        return mask

    def failure_strata(self, q: float) -> np.ndarray:
        """Strata the oracle knows to be below q; without any, the single lowest stratum."""
        acc = self.stratum_accuracy()
        below = np.flatnonzero(acc < q - 1e-9)  # a stratum exactly at q is not a failure
        return below if below.size else np.array([int(np.argmin(acc))])

    def lifted_to(self, q: float) -> tuple[Pool, tuple[str, ...]]:
        """The pool with every subgroup (stratum) whose mean accuracy μ is below q lifted to q, and
        the names of the lifted subgroups: the model's null made true, for null-validity studies.

        Each case of a lifted stratum keeps its share of the errors: p' = 1 − (1 − p)(1 − q)/(1 − μ),
        so the stratum's mean is exactly q and a stratum of equal accuracies becomes q everywhere.
        ``truth`` is lifted when known (labels are then drawn from it), else the recorded scores
        (0 becomes the fractional score 1 − (1 − q)/(1 − μ)). Strata at or above q are unchanged.
        """
        acc = self.stratum_accuracy()
        below = np.flatnonzero((acc < q - 1e-9) & (self.stratum_sizes() > 0))
        if not below.size:
            return self, ()
        factor = np.ones(len(self.stratum_names))
        factor[below] = (1.0 - q) / (1.0 - acc[below])
        values = self.truth if self.truth is not None else self.labels
        lifted = np.clip(1.0 - (1.0 - values) * factor[self.strata], 0.0, 1.0)
        changes = {"truth": lifted} if self.truth is not None else {"labels": lifted}
        names = tuple(self.stratum_names[i] for i in below)
        note = f"null mode: {len(names)} subgroup(s) below q = {q:g} lifted to q ({', '.join(names[:5])}" + (
            ", ...)" if len(names) > 5 else ")")
        return replace(self, **changes, notes=(*self.notes, note)), names

    def to_dict(self) -> dict:
        return {"name": self.name, "n": self.n, "n_features": int(self.features.shape[1]),
                "strata": list(self.stratum_names), "subgroup_columns": list(self.subgroup_columns),
                "has_truth": self.truth is not None, "style": self.style, "suspects": list(self.suspects),
                "notes": list(self.notes)}

    def __repr__(self) -> str:
        return (f"Pool({self.name!r}, n={self.n}, features={self.features.shape[1]}, "
                f"strata={len(self.stratum_names)}, truth={'yes' if self.truth is not None else 'no'})")


def build_pool(name: str, labels, features=None, subgroups=None, truth=None, case_ids=None,
               subgroup_columns=None, style=None, suspects=(), notes=()) -> Pool:
    """A :class:`Pool` from arrays. ``subgroups``: (n, k) array of subgroup values or None."""
    labels = np.asarray(labels, dtype=float)
    n = labels.shape[0]
    if labels.ndim != 1 or n == 0:
        raise InputError(f"pool {name}: needs at least one scored case")
    if not np.all(np.isfinite(labels)) or labels.min() < 0 or labels.max() > 1:
        raise InputError(f"pool {name}: scores must lie in [0, 1]")
    x = np.zeros((n, 0)) if features is None else np.asarray(features, dtype=float).reshape(n, -1)
    if not np.all(np.isfinite(x)):
        bad_row, bad_col = np.argwhere(~np.isfinite(x))[0]
        raise InputError(f"pool {name}: feature {bad_col + 1} of row {bad_row + 1} is not a finite number")
    if x.shape[1]:
        spread = x.std(axis=0)
        x = (x - x.mean(axis=0)) / np.where(spread > 0, spread, 1.0)
    if subgroups is None or np.asarray(subgroups).size == 0:
        values = np.zeros((n, 0), dtype=object)
        strata = np.zeros(n, dtype=int)
        stratum_names: tuple[str, ...] = ("all cases",)
    else:
        values = np.asarray(subgroups, dtype=object).reshape(n, -1)
        joined = np.array([" / ".join(str(v) for v in row) for row in values], dtype=object)
        stratum_names_arr, strata = np.unique(joined, return_inverse=True)
        stratum_names = tuple(str(s) for s in stratum_names_arr)
    if truth is not None:
        truth = np.asarray(truth, dtype=float)
        if truth.shape != (n,) or not np.all(np.isfinite(truth)) or truth.min() < 0 or truth.max() > 1:
            raise InputError(f"pool {name}: true accuracies must be n numbers in [0, 1]")
    ids = np.asarray([str(i + 1) for i in range(n)] if case_ids is None else [str(c) for c in case_ids],
                     dtype=object)
    return Pool(name=name, case_ids=ids, labels=labels, features=x, strata=np.asarray(strata, dtype=int),
                stratum_names=stratum_names, subgroup_columns=tuple(subgroup_columns or ()),
                subgroup_values=values, truth=truth, style=style, suspects=tuple(suspects), notes=tuple(notes))


def load_pool(spec, score=None, subgroups=None, features=None, truth=None, suspects=None) -> Pool:
    """Pool from a bundled key (``gpqa:large|gpqa:medium|gpqa:small|gpqa:none|sdoh``) or a CSV path.

    For a CSV, columns not named are auto-detected by the labelled-audit loader; a column named
    ``p_correct`` (true per-case accuracy) is used as ``truth`` and never as a feature.
    """
    from audit_core.data.loader import load_audit_csv  # the one labelled-audit loader

    if isinstance(spec, str) and spec in BUNDLED and spec != "recorded_run":
        info = BUNDLED[spec]
        data = load_audit_csv(info.path, name=info.path.name, score=info.score, subgroups=list(info.subgroups),
                              id=info.id, features=list(info.features))
        frame = data.frame
        return build_pool(spec, data.scores, frame[list(info.features)].to_numpy(float),
                          frame[list(info.subgroups)].to_numpy(object),
                          truth=frame[info.truth].to_numpy(float) if info.truth else None,
                          case_ids=frame[info.id].to_numpy(), subgroup_columns=info.subgroups,
                          style=info.style, suspects=info.suspects if suspects is None else suspects,
                          notes=(info.description,))
    if isinstance(spec, str) and ":" in spec and not Path(spec).exists():
        raise InputError(f"pool {spec!r}: not a bundled pool ({', '.join(BUNDLED_POOLS)}) and not a file")
    path = Path(spec)
    data = load_audit_csv(path, name=str(path), score=score, subgroups=list(subgroups) if subgroups else None,
                          features=list(features) if features else None)
    frame = data.frame
    truth_col = truth or ("p_correct" if "p_correct" in frame.columns and "p_correct" != data.score else None)
    feature_cols = [c for c in data.features if c != truth_col]
    notes = list(data.notes)
    if truth_col is not None:
        if truth_col not in frame.columns:
            raise InputError(f"{path}: truth column {truth_col!r} not found")
        notes.append(f"column {truth_col!r} used as the true per-case accuracy (labels redrawn per replicate)")
    truth_values = None
    if truth_col is not None:
        try:
            truth_values = frame[truth_col].astype(float).to_numpy()
        except (TypeError, ValueError):
            raise InputError(f"{path}: column {truth_col!r} must hold numbers in [0, 1]") from None
    return build_pool(path.name, data.scores, frame[feature_cols].to_numpy(float) if feature_cols else None,
                      frame[list(data.subgroups)].to_numpy(object) if data.subgroups else None,
                      truth=truth_values, case_ids=frame[data.id].to_numpy() if data.id else None,
                      subgroup_columns=data.subgroups, suspects=tuple(suspects or ()), notes=tuple(notes))
