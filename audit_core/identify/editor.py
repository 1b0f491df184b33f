"""Edit a policy class: add, replace, duplicate or delete a policy, composed from the behaviour
vocabulary of the frozen class or given as a response row.

Paper 000 warns that "additional policies may require more support": these edits let a designer
add a policy and watch the classes, collisions and minimal supports change. Every edit goes
through the exchange format (:func:`policy_class_to_json` → edit → :func:`policy_class_from_json`),
so an edited class is validated exactly as a loaded file is. :func:`encode_class` /
:func:`decode_class` give a compact, URL-safe text form of a small class.
"""

from __future__ import annotations

import base64
import json
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from audit_core.data import jsonio
from audit_core.errors import InputError
from audit_core.identify.cells import split_cell_id
from audit_core.identify.io import policy_class_from_json, policy_class_to_json
from audit_core.identify.policies import (
    FROZEN_AXES,
    PolicyClass,
    _fixed_label,
    _generated_only_failure,
    _ideal,
    _inertia,
    _mapping_shortcut,
    _reactor,
    _scoring_only_success,
)

# The behaviour vocabulary of the frozen policies: a response for every (world, mapping, readout).
BEHAVIOURS = {
    "ideal": _ideal,
    "inertia": _inertia,
    "any-edit": _reactor,
    "fixed-label": _fixed_label,
    "mapping-conditional": _mapping_shortcut,
    "generated-only failure": _generated_only_failure,
    "scoring-only success": _scoring_only_success,
}
MAX_LINK_CHARS = 1800  # a class whose compact form is longer does not travel in a link
MAX_DECODED_BYTES = 1 << 20  # a link's class is inflated no further than this


@dataclass(frozen=True)
class BehaviourRule:
    """Where ``axis`` = ``value``, answer as ``behaviour`` (later rules override earlier ones)."""

    axis: str
    value: str
    behaviour: str

    def to_dict(self) -> dict:
        return {"axis": self.axis, "value": self.value, "behaviour": self.behaviour}


def composable(pc: PolicyClass) -> bool:
    """Can policies of this class be composed from the vocabulary (the frozen class's axes)?"""
    return {a: tuple(v) for a, v in pc.axes.items()} == {a: tuple(v) for a, v in FROZEN_AXES.items()}


def compose_responses(pc: PolicyClass, behaviour: str, rules: Sequence[BehaviourRule] = ()) -> dict[str, str]:
    """The response in every cell of ``pc`` of a policy that answers as ``behaviour`` except where
    a rule says otherwise (e.g. ideal, but inertia where world = target and readout = scoring)."""
    if not composable(pc):
        raise InputError("policy class: behaviours compose only on the world × mapping × readout layout of the "
                         "frozen class; edit the response row instead")
    for name in [behaviour, *(r.behaviour for r in rules)]:
        if name not in BEHAVIOURS:
            raise InputError(f"behaviour: expected one of {', '.join(BEHAVIOURS)}, got {name!r}")
    for rule in rules:
        if rule.axis not in pc.axes or rule.value not in pc.axes[rule.axis]:
            raise InputError(f"behaviour rule: {rule.axis}={rule.value} is not a value of the class's axes")
    responses = {}
    axes = list(pc.axes)
    for cell in pc.cells:
        values = dict(zip(axes, split_cell_id(cell), strict=True))
        chosen = behaviour
        for rule in rules:
            if values[rule.axis] == rule.value:
                chosen = rule.behaviour
        responses[cell] = BEHAVIOURS[chosen](values["world"], values["mapping"], values["readout"])
    return responses


def _document(pc: PolicyClass) -> dict:
    return policy_class_to_json(pc)


def _rebuild(document: dict, source: str) -> PolicyClass:
    return policy_class_from_json(document, source=source)


def with_policy(pc: PolicyClass, name: str, responses: Mapping[str, str], tau: int | None = None,
                description: str = "") -> PolicyClass:
    """The class with policy ``name`` added (or replaced) with these responses and τ."""
    name = str(name).strip()
    if not name:
        raise InputError("policy name: give a name")
    missing = [c for c in pc.cells if c not in responses]
    if missing:
        raise InputError(f"policy {name!r}: no response for cell {missing[0]!r} ({len(missing)} missing)")
    document = _document(pc)
    entry = {"name": name, "responses": {c: str(responses[c]) for c in pc.cells}}
    if description:
        entry["description"] = description
    if pc.tau is not None or tau is not None:
        if tau not in (0, 1):
            raise InputError(f"policy {name!r}: τ must be 0 or 1 in a class with τ per policy, got {tau!r}")
        entry["tau"] = int(tau)
    policies = [p for p in document["policies"] if p.get("name") != name]
    index = next((i for i, p in enumerate(document["policies"]) if p.get("name") == name), None)
    policies.insert(len(policies) if index is None else index, entry)
    document["policies"] = policies
    return _rebuild(document, f"{pc.source} (edited)")


def without_policy(pc: PolicyClass, name: str) -> PolicyClass:
    """The class without policy ``name`` (and without mixtures that use it)."""
    if name not in pc.names:
        raise InputError(f"policy {name!r}: not in the class")
    if len(pc.names) < 2:
        raise InputError("policy class: the last policy cannot be deleted")
    document = _document(pc)
    document["policies"] = [p for p in document["policies"]
                            if p.get("name") != name and name not in (p.get("mixture") or {})]
    return _rebuild(document, f"{pc.source} (edited)")


def duplicate_policy(pc: PolicyClass, name: str, new_name: str) -> PolicyClass:
    """The class with a copy of policy ``name`` under ``new_name`` (same responses and τ)."""
    if name not in pc.names:
        raise InputError(f"policy {name!r}: not in the class")
    if new_name in pc.names:
        raise InputError(f"policy name {new_name!r}: already in the class")
    i = list(pc.names).index(name)
    row = {c: pc.codebook[int(code)] for c, code in zip(pc.cells, pc.responses[i], strict=True)}
    tau = None if pc.tau is None else int(pc.tau[i])
    return with_policy(pc, new_name, row, tau, pc.descriptions.get(name, ""))


def rename_axes(pc: PolicyClass, names: Mapping[str, str]) -> PolicyClass:
    """The class with axes renamed (``old → new``); a component named after its axis (as a long
    CSV's components are) follows the axis's new name."""
    renamed = {a: str(names.get(a, a)).strip() for a in pc.axes}
    if any(not n for n in renamed.values()) or len(set(renamed.values())) != len(renamed):
        raise InputError("axis names: give every axis a distinct, non-empty name")
    if any(":" in n or "," in n for n in renamed.values()):
        raise InputError("axis names: a name may not contain ':' or ','")
    document = _document(pc)
    document["axes"] = {renamed[a]: v for a, v in document["axes"].items()}
    document["base"] = {renamed[a]: v for a, v in document["base"].items()}
    document["components"] = {renamed.get(c, c): {renamed[a]: v for a, v in comp.items()}
                               for c, comp in document["components"].items()}
    return _rebuild(document, f"{pc.source} (edited)")


def class_json(pc: PolicyClass) -> str:
    """The exchange-format JSON text of the class (to download, or to upload again)."""
    return json.dumps(_document(pc), indent=1, sort_keys=False)


def encode_class(pc: PolicyClass) -> str | None:
    """A compact URL-safe form of the class, or None when it is longer than MAX_LINK_CHARS."""
    packed = base64.urlsafe_b64encode(zlib.compress(json.dumps(_document(pc), separators=(",", ":")).encode(), 9))
    text = packed.decode("ascii").rstrip("=")
    return text if len(text) <= MAX_LINK_CHARS else None


def decode_class(text: str) -> PolicyClass:
    """The class of :func:`encode_class`'s text; InputError for text that is not one."""
    try:
        inflater = zlib.decompressobj()
        raw = inflater.decompress(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)), MAX_DECODED_BYTES)
        if inflater.unconsumed_tail:  # more than MAX_DECODED_BYTES: not a small class
            raise ValueError("too large")
        document = jsonio.loads(raw.decode("utf-8"), "class from a link")
    except (ValueError, zlib.error, UnicodeDecodeError, RecursionError):
        raise InputError("the class in the link is not a readable class; it was left out") from None
    return _rebuild(document, "class from a link")
