"""The explorer's suggestions: the cheapest identifying support inside a support (τ identified), or
the cheapest one containing it (τ not identified), by CP-SAT (:func:`~audit_core.identify.minimum_supports`).

For a bundled class each answer is kept on disk at its first solve (:mod:`audit_core.results_cache`,
keyed by the class's content, the estimand, the support's cells, the time limit, OR-Tools' version
and the package's code): a server started again draws the explorer's first page with neither the
solver's LP bound (scipy.optimize, ~0.3 s to import) nor a CP-SAT solve. An uploaded or edited
class is solved every time (its results never reach the disk).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import fields

from audit_core import results_cache
from audit_core.identify import Identification, Synthesis, minimum_supports
from audit_core.identify.io import policy_class_to_json

# CP-SAT budget of the suggestions shown with every toggle (cheapest support inside, repair).
SUGGESTION_TIME_LIMIT = 2.0


def solve_suggestions(pc, estimand: str, ident: Identification,
                      time_limit: float = SUGGESTION_TIME_LIMIT) -> tuple[Synthesis | None, Synthesis | None]:
    """(cheapest identifying support inside the support, cheapest one containing it), solved."""
    cells = set(ident.cells)
    if ident.identified:
        outside = tuple(c for c in pc.cells if c not in cells)
        return minimum_supports(pc, estimand, exclude=outside, enumerate_all=False, time_limit=time_limit), None
    repair = minimum_supports(pc, estimand, must_include=tuple(ident.cells), enumerate_all=False,
                              time_limit=time_limit)
    return None, (repair if repair.supports and not repair.unseparable_pairs else None)


def suggestions(pc, estimand: str, ident: Identification, bundled: bool = False,
                time_limit: float = SUGGESTION_TIME_LIMIT) -> tuple[Synthesis | None, Synthesis | None]:
    """:func:`solve_suggestions`, kept on disk at first use when ``bundled``."""
    if not bundled:
        return solve_suggestions(pc, estimand, ident, time_limit)
    inputs = {"class": fingerprint(pc), "estimand": estimand, "cells": sorted(ident.cells),
              "time_limit": float(time_limit), "ortools": results_cache.package_version("ortools")}
    return results_cache.cached("suggestions", inputs, lambda: solve_suggestions(pc, estimand, ident, time_limit),
                                encode=lambda pair: [_to_json(r) for r in pair],
                                decode=lambda data: (_from_json(data[0]), _from_json(data[1])))


def fingerprint(pc) -> str:
    """SHA-256 of the class's exchange-format document (policies, responses, τ, components)."""
    text = json.dumps(policy_class_to_json(pc), sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _to_json(result: Synthesis | None) -> dict | None:
    return None if result is None else {f.name: getattr(result, f.name) for f in fields(Synthesis)}


def _from_json(data: dict | None) -> Synthesis | None:
    if data is None:
        return None
    return Synthesis(**{**data, "supports": [tuple(s) for s in data["supports"]],
                        "unseparable_pairs": [tuple(p) for p in data["unseparable_pairs"]],
                        "mandatory_cells": tuple(data["mandatory_cells"]),
                        "in_every_optimum": tuple(data["in_every_optimum"])})
