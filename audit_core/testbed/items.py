"""Items of the testbed: one per cell (world x mapping x readout) of every cluster, and their files.

The cells are those of the frozen policy class of paper 000 (:func:`frozen_policy_class`, 36 per
cluster, ids ``world:mapping:readout`` parsed with :func:`parse_cell_id`). A mapping such as
``ACB`` gives the letters of TRUE, FALSE, UNKNOWN in that order (TRUE→A, FALSE→C, UNKNOWN→B); the
options are listed in letter order. The readout is ``generated`` (the model writes one letter) or
``scoring`` (the letters A, B, C are scored as candidate continuations of the prompt and the best
one is the answer).

Two file forms, both JSON Lines with one item per line:

* items (:meth:`Item.to_dict`): cluster, cell, world, mapping, readout, direction, the world's edit,
  the machine-readable theory ``{"facts", "rules", "query"}``, the oracle, the correct letter, the
  options, the prompt and (scoring) the candidates. ``testbed check`` re-derives it all.
* Inspect AI samples (:func:`inspect_sample`): ``id``, ``input`` (theory and question without the
  option list, which Inspect's ``multiple_choice()`` solver adds), ``choices`` (the labels in letter
  order), ``target`` (the correct letter) and ``metadata`` (cell, axes, oracle, cluster, theory).
  Inspect's default field names are used, so ``json_dataset(path)`` reads it; this module does not
  import inspect_ai.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from audit_core.data import jsonio
from audit_core.data.files import read_file
from audit_core.errors import InputError
from audit_core.identify import frozen_policy_class, parse_cell_id
from audit_core.identify.policies import LABELS, letter
from audit_core.testbed.generator import ARROW, Cluster, Edit, parse_direction
from audit_core.testbed.theory import Theory, atom_of, is_negative

WORLD_AXIS, MAPPING_AXIS, READOUT_AXIS = "world", "mapping", "readout"
GENERATED, SCORING = "generated", "scoring"
SUBJECT = "the object"
OPTION_MEANING = {"TRUE": "the statement follows", "FALSE": "its negation follows",
                  "UNKNOWN": "neither follows"}


@lru_cache(maxsize=1)
def frozen_layout():
    """Axes and cells of the frozen policy class (the 36-cell layout the items follow); built once."""
    pc = frozen_policy_class()
    return pc.axes, pc.cells


def render_literal(literal: str) -> str:
    word = atom_of(literal).replace("_", " ")
    return f"{SUBJECT} is {'not ' if is_negative(literal) else ''}{word}"


def sentence(text: str) -> str:
    return text[0].upper() + text[1:] + "."


@lru_cache(maxsize=1024)
def render_theory(theory: Theory) -> str:
    """Facts and rules in plain English, one per line, in the theory's order (the 12 items of a
    world share one theory, so renderings are cached)."""
    lines = ["Facts:"] + [f"- {sentence(render_literal(f))}" for f in theory.facts]
    if not theory.facts:
        lines.append("- (none)")
    lines.append("Rules:")
    for rule in theory.rules:
        body = " and ".join(render_literal(x) for x in rule.body)
        lines.append(f"- If {body}, then {render_literal(rule.head)}.")
    if not theory.rules:
        lines.append("- (none)")
    return "\n".join(lines)


def render_question(theory: Theory) -> str:
    return (f'Question: using only the facts and rules above (nothing else is assumed true or false), '
            f'is the statement "{sentence(render_literal(theory.query))}" TRUE ({OPTION_MEANING["TRUE"]}), '
            f'FALSE ({OPTION_MEANING["FALSE"]}) or UNKNOWN ({OPTION_MEANING["UNKNOWN"]})?')


def options_of(mapping: str) -> tuple[tuple[str, str], ...]:
    """(letter, label) pairs in letter order under a mapping (letters of TRUE, FALSE, UNKNOWN)."""
    return tuple(sorted((letter(mapping, label), label) for label in LABELS))


def render_prompt(theory: Theory, mapping: str, readout: str) -> str:
    """The full prompt of one cell: theory, question, options, and the readout's instruction."""
    options = "\n".join(f"{x}. {label}" for x, label in options_of(mapping))
    ending = ("Reply with the letter of one option only." if readout == GENERATED else "Answer:")
    return f"{render_theory(theory)}\n\n{render_question(theory)}\n{options}\n{ending}"


@dataclass(frozen=True)
class Item:
    """One cell of one cluster (module docstring); ``edit`` is None in the base world."""

    cluster: str
    cell: str
    world: str
    mapping: str
    readout: str
    direction: str
    theory: Theory
    oracle: str
    correct: str
    options: tuple[tuple[str, str], ...]
    prompt: str
    edit: Edit | None = None
    # The oracle label of every world of the cluster (base, target, sham): a log of a reduced
    # support still knows them all (a policy's target answer can depend on the base oracle).
    oracles: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return f"Item({self.cluster}:{self.cell}, oracle {self.oracle} = {self.correct})"

    @property
    def id(self) -> str:
        return f"{self.cluster}:{self.cell}"

    @property
    def world_oracles(self) -> dict[str, str]:
        """world -> oracle label of the cluster in that world (empty when not known)."""
        axes, _ = frozen_layout()
        return dict(zip(axes[WORLD_AXIS], self.oracles, strict=True)) if self.oracles else {}

    @property
    def candidates(self) -> tuple[str, ...]:
        return tuple(x for x, _ in self.options) if self.readout == SCORING else ()

    def to_dict(self) -> dict[str, Any]:
        out = {"id": self.id, "cluster": self.cluster, "cell": self.cell, "world": self.world,
               "mapping": self.mapping, "readout": self.readout, "direction": self.direction,
               "edit": None if self.edit is None else self.edit.to_dict(),
               "theory": self.theory.to_dict(), "oracle": self.oracle, "correct": self.correct,
               "options": {x: label for x, label in self.options}, "prompt": self.prompt}
        if self.oracles:
            out["oracles"] = self.world_oracles
        if self.readout == SCORING:
            out["candidates"] = list(self.candidates)
        return out


def cluster_items(cluster: Cluster, support: Iterable[str] | None = None) -> tuple[Item, ...]:
    """The items of a cluster in the frozen class's cell order: all 36, or those of ``support``."""
    axes, cells = frozen_layout()
    if support is not None:
        wanted = set(support)
        cells = tuple(c for c in cells if c in wanted)
    worlds = {w: (cluster.world(w), label, None if w == "base" else getattr(cluster, f"{w}_edit"))
              for w, label in zip(axes[WORLD_AXIS], cluster.labels, strict=True)}
    direction = f"{cluster.direction[0]}{ARROW}{cluster.direction[1]}"
    items = []
    for cell in cells:
        parts = parse_cell_id(cell, axes)
        theory, label, edit = worlds[parts[WORLD_AXIS]]
        items.append(Item(cluster=cluster.name, cell=cell, world=parts[WORLD_AXIS],
                          mapping=parts[MAPPING_AXIS], readout=parts[READOUT_AXIS], direction=direction,
                          theory=theory, oracle=label, correct=letter(parts[MAPPING_AXIS], label),
                          options=options_of(parts[MAPPING_AXIS]),
                          prompt=render_prompt(theory, parts[MAPPING_AXIS], parts[READOUT_AXIS]), edit=edit,
                          oracles=tuple(cluster.labels)))
    return tuple(items)


def items_of(clusters: Iterable[Cluster], support: Iterable[str] | None = None) -> tuple[Item, ...]:
    """Items of every cluster: all 36 cells, or the cells of ``support`` (cell ids)."""
    support = None if support is None else tuple(support)
    return tuple(item for c in clusters for item in cluster_items(c, support))


def inspect_sample(item: Item) -> dict[str, Any]:
    """The item as an Inspect AI sample record (module docstring)."""
    return {"id": item.id,
            "input": f"{render_theory(item.theory)}\n\n{render_question(item.theory)}",
            "choices": [label for _, label in item.options], "target": item.correct,
            "metadata": {"cell": item.cell, "cluster": item.cluster, "world": item.world,
                         "mapping": item.mapping, "readout": item.readout, "direction": item.direction,
                         "oracle": item.oracle, "oracles": item.world_oracles, "theory": item.theory.to_dict()}}


def write_jsonl(records: Iterable[Mapping[str, Any]], path: str | Path) -> int:
    """Write one JSON object per line; returns the number of lines."""
    count = 0
    with open(path, "w", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
            count += 1
    return count


def _field(data: Mapping[str, Any], key: str, where: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise InputError(f"{where}: field {key!r} must be a non-empty string"
                         + ("" if value is None else f", got a {type(value).__name__}"))
    return value


def item_from_dict(data: Any, where: str = "item", theories: dict[str, Theory] | None = None) -> Item:
    """Parse one item record; InputError (naming ``where`` and the field) when it is malformed.

    ``theories`` (optional) caches parsed theories by their JSON text across the items of a file.
    """
    if not isinstance(data, Mapping):
        raise InputError(f"{where}: must be a JSON object, got {type(data).__name__}")
    axes, _ = frozen_layout()
    cell = _field(data, "cell", where)
    try:
        parse_cell_id(cell, axes)
    except InputError as exc:
        raise InputError(f"{where}: {exc}") from None
    options = data.get("options")
    if not isinstance(options, Mapping) or not all(isinstance(k, str) and isinstance(v, str)
                                                   for k, v in options.items()):
        raise InputError(f"{where}: field 'options' must be an object letter -> label, got {options!r}")
    direction = _field(data, "direction", where)
    try:
        parse_direction(direction)
    except InputError as exc:
        raise InputError(f"{where}: {exc}") from None
    cluster, readout = _field(data, "cluster", where), _field(data, "readout", where)
    if "id" in data and data["id"] != f"{cluster}:{cell}":
        raise InputError(f"{where}: id {data['id']!r} is not cluster:cell ({cluster}:{cell})")
    if "candidates" in data and (readout != SCORING or data["candidates"] != sorted(options)):
        raise InputError(f"{where}: candidates {data['candidates']!r} are given only for the scoring readout "
                         "and list the option letters in order")
    edit = data.get("edit")
    oracles = data.get("oracles")
    worlds = axes[WORLD_AXIS]
    if oracles is not None and (not isinstance(oracles, Mapping) or set(oracles) != set(worlds)
                                or not all(isinstance(v, str) for v in oracles.values())):
        raise InputError(f"{where}: field 'oracles' must be an object world -> label for the worlds "
                         f"{', '.join(worlds)}, got {oracles!r}")
    return Item(cluster=cluster, cell=cell, world=_field(data, "world", where),
                mapping=_field(data, "mapping", where), readout=readout,
                direction=direction, theory=_theory(data.get("theory"), where, theories),
                oracle=_field(data, "oracle", where), correct=_field(data, "correct", where),
                options=tuple(sorted(options.items())), prompt=_field(data, "prompt", where),
                edit=None if edit is None else Edit.from_dict(edit, f"{where} 'edit'"),
                oracles=() if oracles is None else tuple(oracles[w] for w in worlds))


def _theory(raw: Any, where: str, cache: dict[str, Theory] | None) -> Theory:
    if cache is None:
        return Theory.from_dict(raw, f"{where} 'theory'")
    key = json.dumps(raw)
    if key not in cache:
        cache[key] = Theory.from_dict(raw, f"{where} 'theory'")
    return cache[key]


MAX_ITEMS = 36_000  # 1,000 clusters of 36 cells (audit_core.testbed.generator.MAX_CLUSTERS)


def read_items(path: str | Path) -> tuple[Item, ...]:
    """Items of a JSONL file; InputError for a missing file, bad JSON or a malformed item."""
    name = str(path)
    try:
        text = read_file(path).decode("utf-8")  # a regular file only (no FIFO, device, /proc)
    except InputError as exc:
        raise InputError(f"items file {exc}") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"items file {name!r}: cannot read it ({exc})") from None
    return items_from_text(text, name)


def items_from_text(text: str, name: str = "items") -> tuple[Item, ...]:
    """Items of JSONL text (an uploaded items file); InputError for bad JSON or a malformed item."""
    lines = text.count("\n") + 1
    if lines > MAX_ITEMS and sum(1 for line in text.splitlines() if line.strip()) > MAX_ITEMS:
        raise InputError(f"items file {name!r}: more than the limit of {MAX_ITEMS:,} items per file (what "
                         "1,000 clusters give); check it in parts (docs/limits.md)")
    items, theories = [], {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = jsonio.loads(line, f"items file {name!r} line {number}")
        except json.JSONDecodeError as exc:
            raise InputError(f"items file {name!r} line {number}: not JSON ({exc.msg})") from None
        items.append(item_from_dict(data, f"items file {name!r} line {number}", theories))
    if not items:
        raise InputError(f"items file {name!r}: no items")
    return tuple(items)
