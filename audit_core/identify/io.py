"""Load and save policy classes: the JSON exchange format and a long CSV (docs/formats.md).

JSON: ``{"axes", "base", "components", "policies": [{"name", "tau", "responses"} |
{"name", "mixture"}], "oracle"?}`` (``oracle`` and ``description`` are optional extensions).

Long CSV: columns ``policy, cell, response`` (one row per policy and cell), optional ``tau``
(0/1, the same on every row of a policy), ``description``, and for mixtures ``component`` +
``weight`` (a row with a component names the mixture in ``policy`` and leaves cell/response
blank). A CSV has no room for the layout, so it is inferred from the cell ids: the frozen
world/mapping/readout layout when every id fits it, otherwise one axis per id position
(``axis1``, ``axis2``, ...), values in order of appearance, the first row's cell as the base and one
component per axis that widens it to all its values.
"""

from __future__ import annotations

import json
from typing import Any

from audit_core.data import jsonio
from audit_core.data.csvio import CsvSource, decode_utf8, read_bytes, read_csv_frame
from audit_core.errors import InputError
from audit_core.identify.cells import parse_cell_id, split_cell_id
from audit_core.identify.policies import (
    FROZEN_AXES,
    FROZEN_BASE,
    FROZEN_COMPONENTS,
    PolicyClass,
    build_policy_class,
)


def load_policy_class(source: CsvSource, name: str | None = None) -> PolicyClass:
    """Load a policy class from JSON or long CSV (auto-detected) given as path, bytes or file."""
    raw, display = read_bytes(source, name)
    start = raw.removeprefix(b"\xef\xbb\xbf").lstrip()[:1]
    is_json = display.lower().endswith(".json") or start in (b"{", b"[")
    text = decode_utf8(raw, display, kind="JSON" if is_json else "CSV")
    if not text.strip():
        raise InputError(f"{display}: the file is empty")
    if is_json:
        try:
            document = jsonio.loads(text, display)
        except json.JSONDecodeError as exc:
            raise InputError(f"{display}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
        except RecursionError:
            raise InputError(f"{display}: the JSON is nested too deeply to be a policy class") from None
        return policy_class_from_json(document, display)
    return _from_long_csv(raw, display)


def policy_class_from_json(document: Any, source: str = "policy class") -> PolicyClass:
    """Build a class from a parsed JSON document of the exchange format."""
    if not isinstance(document, dict):
        raise InputError(f"{source}: the JSON document must be an object with axes, base, components, policies")
    for key in ("axes", "base", "components", "policies"):
        if key not in document:
            raise InputError(f"{source}: missing top-level field {key!r}")
    entries = document["policies"]
    if not isinstance(entries, list) or not entries:
        raise InputError(f"{source}: 'policies' must be a non-empty list")
    policies: dict[str, dict[str, str]] = {}
    tau: dict[str, Any] = {}
    mixtures: dict[str, dict[str, Any]] = {}
    descriptions: dict[str, str] = {}
    for i, entry in enumerate(entries, start=1):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or not entry["name"].strip():
            raise InputError(f"{source}: policies[{i}] must be an object with a non-empty 'name'")
        pname = entry["name"]
        if pname in policies or pname in mixtures:
            raise InputError(f"{source}: policy name {pname!r} appears twice (policies[{i}])")
        has_resp, has_mix = "responses" in entry, "mixture" in entry
        if has_resp == has_mix:
            raise InputError(f"{source}: policy {pname!r} needs exactly one of 'responses' or 'mixture'")
        if has_mix:
            if "tau" in entry:
                raise InputError(f"{source}: mixture {pname!r} cannot carry τ (it is a set of weighted policies)")
            mixtures[pname] = entry["mixture"]
        else:
            policies[pname] = entry["responses"]
            if "tau" in entry:
                tau[pname] = entry["tau"]
        if entry.get("description"):
            descriptions[pname] = str(entry["description"])
    return build_policy_class(
        document["axes"], document["base"], document["components"], policies, tau=tau,
        mixtures=mixtures, oracle=document.get("oracle"), descriptions=descriptions, source=source,
    )


def policy_class_to_json(pc: PolicyClass) -> dict:
    """The exchange-format document of ``pc`` (inverse of :func:`policy_class_from_json`)."""
    policies: list[dict] = []
    for i, pname in enumerate(pc.names):
        entry: dict[str, Any] = {"name": pname}
        if pname in pc.descriptions:
            entry["description"] = pc.descriptions[pname]
        if pc.tau is not None:
            entry["tau"] = int(pc.tau[i])
        entry["responses"] = {c: pc.codebook[int(code)] for c, code in zip(pc.cells, pc.responses[i], strict=True)}
        policies.append(entry)
    for mname, weights in pc.mixtures.items():
        entry = {"name": mname}
        if mname in pc.descriptions:
            entry["description"] = pc.descriptions[mname]
        entry["mixture"] = dict(weights)
        policies.append(entry)
    document: dict[str, Any] = {
        "axes": {a: list(v) for a, v in pc.axes.items()},
        "base": {a: list(v) for a, v in pc.base.items()},
        "components": {n: {a: list(v) for a, v in spec.items()} for n, spec in pc.components.items()},
    }
    if pc.oracle is not None:
        document["oracle"] = dict(zip(pc.cells, pc.oracle, strict=True))
    document["policies"] = policies
    return document


def _infer_layout(cells: list[str], source: str) -> tuple[dict, dict, dict]:
    """Layout for a CSV: the frozen one when every cell id fits it, else one axis per position."""
    frozen_parts = list(FROZEN_AXES.values())
    fits = [
        len(p) == 3 and all(v in vals for v, vals in zip(p, frozen_parts, strict=True))
        for p in (split_cell_id(c) for c in cells)
    ]
    if all(fits):
        return dict(FROZEN_AXES), dict(FROZEN_BASE), dict(FROZEN_COMPONENTS)
    if sum(fits) * 2 >= len(fits):
        # Mostly frozen ids: the odd ones out are typos, not a different layout.
        bad = cells[fits.index(False)]
        try:
            parse_cell_id(bad, FROZEN_AXES)
        except InputError as exc:
            raise InputError(f"{source}: {exc}") from None
    width = len(split_cell_id(cells[0]))
    values: list[dict[str, None]] = [dict() for _ in range(width)]
    for c in cells:
        parts = split_cell_id(c)
        if len(parts) != width:
            raise InputError(
                f"{source}: cell id {c!r} has {len(parts)} part(s) but {cells[0]!r} has {width}; "
                "all cell ids need one value per axis"
            )
        for slot, v in zip(values, parts, strict=True):
            slot.setdefault(v, None)
    axes = {f"axis{k + 1}": tuple(slot) for k, slot in enumerate(values)}
    first = split_cell_id(cells[0])
    base = {axis: (v,) for axis, v in zip(axes, first, strict=True)}
    components = {axis: {axis: tuple(x for x in vals if x != base[axis][0])} for axis, vals in axes.items() if len(vals) > 1}
    return axes, base, components


def _from_long_csv(raw: bytes, source: str) -> PolicyClass:
    frame = read_csv_frame(raw, source)
    columns = {c.strip().lower(): c for c in frame.columns}
    for needed in ("policy", "cell", "response"):
        if needed not in columns:
            raise InputError(
                f"{source}: missing column {needed!r} (a long policy CSV needs policy, cell, response; "
                f"found: {', '.join(frame.columns)})"
            )

    def col(key: str) -> list[str] | None:
        return list(frame[columns[key]]) if key in columns else None

    pol, cell, resp = col("policy"), col("cell"), col("response")
    tau_col, desc_col, comp_col, weight_col = col("tau"), col("description"), col("component"), col("weight")
    if (comp_col is None) != (weight_col is None):
        raise InputError(f"{source}: mixture rows need both a 'component' and a 'weight' column")

    policies: dict[str, dict[str, str]] = {}
    tau_text: dict[str, tuple[str, int]] = {}
    mixtures: dict[str, dict[str, float]] = {}
    descriptions: dict[str, str] = {}
    for i in range(len(frame)):
        row = i + 1  # data row number as read_csv_frame reports it
        pname = pol[i].strip()
        if not pname:
            raise InputError(f"{source}: data row {row}: column 'policy' is blank")
        if desc_col is not None and desc_col[i].strip():
            descriptions.setdefault(pname, desc_col[i].strip())
        if comp_col is not None and comp_col[i].strip():
            if pname in policies:
                raise InputError(f"{source}: data row {row}: {pname!r} is both a policy and a mixture")
            comp = comp_col[i].strip()
            try:
                weight = float(weight_col[i])
            except ValueError:
                raise InputError(f"{source}: data row {row}: column 'weight' is not a number") from None
            mix = mixtures.setdefault(pname, {})
            if comp in mix:
                raise InputError(f"{source}: data row {row}: mixture {pname!r} lists component {comp!r} twice")
            mix[comp] = weight
            continue
        if pname in mixtures:
            raise InputError(f"{source}: data row {row}: {pname!r} is both a mixture and a policy")
        cid = cell[i].strip()
        if not cid:
            raise InputError(f"{source}: data row {row}: column 'cell' is blank")
        answers = policies.setdefault(pname, {})
        if cid in answers:
            raise InputError(f"{source}: data row {row}: policy {pname!r} answers cell {cid!r} twice")
        answers[cid] = resp[i].strip()
        if tau_col is not None and tau_col[i].strip():
            text = tau_col[i].strip()
            if text not in ("0", "1"):
                raise InputError(f"{source}: data row {row}: column 'tau' must be 0 or 1")
            previous = tau_text.setdefault(pname, (text, row))
            if previous[0] != text:
                raise InputError(
                    f"{source}: data row {row}: policy {pname!r} has τ={text} but τ={previous[0]} on data row {previous[1]}"
                )
    if not policies:
        raise InputError(f"{source}: no deterministic policy rows (only mixture rows)")
    all_cells = list(dict.fromkeys(c for answers in policies.values() for c in answers))
    axes, base, components = _infer_layout(all_cells, source)
    tau = {p: int(t[0]) for p, t in tau_text.items()}
    return build_policy_class(
        axes, base, components, policies, tau=tau, mixtures=mixtures, descriptions=descriptions, source=source,
    )
