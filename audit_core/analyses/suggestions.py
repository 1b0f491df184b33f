"""The explorer's suggestions: the cheapest identifying support inside a support (τ identified), or
the cheapest one containing it (τ not identified), by CP-SAT (:func:`~audit_core.identify.minimum_supports`).

For the bundled frozen class the answers of every component subset and every estimand are stored
in ``frozen_suggestions.json`` next to this module (issue 24): a fresh server's first explorer page
then needs neither the solver's LP bound (scipy.optimize, ~0.3 s to import) nor a CP-SAT solve,
and every toggle on the bundled class gets its suggestion at once. The stored answers are the
solver's own: :func:`stored_table` makes them with :func:`solve_suggestions`, a test solves every
entry again and compares it field by field (all but ``seconds``, the solve's wall time when the
table was made), and an entry is used only for the very class it was made from (its content
fingerprint), the same time limit and the same solver code (``identify/synthesis.py``'s source).
Anything else (an uploaded or edited class, a custom cell
list, another time limit) is solved as before. Rebuild the file after changing the frozen class:

    python -m audit_core.analyses.suggestions
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
from dataclasses import fields
from pathlib import Path

from audit_core.identify import Identification, Synthesis, identify, minimum_supports
from audit_core.identify.io import policy_class_to_json

# CP-SAT budget of the suggestions shown with every toggle (cheapest support inside, repair).
SUGGESTION_TIME_LIMIT = 2.0
STORED_FILE = Path(__file__).with_name("frozen_suggestions.json")


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
    """:func:`solve_suggestions`, read from the stored table when ``bundled`` and the class is the
    one the table was made from."""
    if bundled:
        stored = _stored(fingerprint(pc), estimand, tuple(sorted(ident.cells)), float(time_limit))
        if stored is not None:
            return stored
    return solve_suggestions(pc, estimand, ident, time_limit)


def fingerprint(pc) -> str:
    """SHA-256 of the class's exchange-format document (policies, responses, τ, components)."""
    text = json.dumps(policy_class_to_json(pc), sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


@functools.lru_cache(maxsize=1)
def solver_fingerprint() -> str:
    """SHA-256 of the solver's source: a stored answer is used only with the code that made it."""
    from audit_core.identify import synthesis

    return hashlib.sha256(Path(synthesis.__file__).read_bytes()).hexdigest()


def _key(estimand: str, cells) -> str:
    return f"{estimand}|{','.join(sorted(cells))}"


def _to_json(result: Synthesis | None) -> dict | None:
    return None if result is None else {f.name: getattr(result, f.name) for f in fields(Synthesis)}


def _from_json(data: dict | None) -> Synthesis | None:
    if data is None:
        return None
    return Synthesis(**{**data, "supports": [tuple(s) for s in data["supports"]],
                        "unseparable_pairs": [tuple(p) for p in data["unseparable_pairs"]],
                        "mandatory_cells": tuple(data["mandatory_cells"]),
                        "in_every_optimum": tuple(data["in_every_optimum"])})


@functools.lru_cache(maxsize=1)
def _table() -> dict:
    try:
        return json.loads(STORED_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _stored(print_: str, estimand: str, cells: tuple[str, ...], time_limit: float):
    table = _table()
    if (table.get("fingerprint") != print_ or table.get("time_limit") != time_limit
            or table.get("solver") != solver_fingerprint()):
        return None
    entry = table.get("entries", {}).get(_key(estimand, cells))
    if entry is None:
        return None
    return _from_json(entry["inside"]), _from_json(entry["repair"])


def stored_table(pc, time_limit: float = SUGGESTION_TIME_LIMIT) -> dict:
    """The table of ``pc``: every estimand the class can evaluate x every subset of its components."""
    from audit_core.identify import available_estimands

    entries = {}
    names = list(pc.component_names)
    for estimand in available_estimands(pc):
        for size in range(len(names) + 1):
            for combo in itertools.combinations(names, size):
                ident = identify(pc, components=list(combo), estimand=estimand)
                inside, repair = solve_suggestions(pc, estimand, ident, time_limit)
                entries[_key(estimand, ident.cells)] = {"inside": _to_json(inside), "repair": _to_json(repair)}
    return {"fingerprint": fingerprint(pc), "time_limit": float(time_limit), "solver": solver_fingerprint(),
            "entries": entries}


def main() -> None:
    from audit_core.analyses.sources import policy_source

    table = stored_table(policy_source().value)   # the bundled class, as the pages load it
    STORED_FILE.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {len(table['entries'])} suggestions to {STORED_FILE}")


if __name__ == "__main__":
    main()
