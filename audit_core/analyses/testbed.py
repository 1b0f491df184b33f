"""Testbed use cases (paper 000's workflow before any model call): generate solver-grounded
items to send to models, and re-check an items file.

Each cluster is an open-world signed-Horn theory with a query, a target edit that changes the
three-valued oracle and a sham edit that keeps it; each item is one cell (world × mapping ×
readout) of the frozen 36-cell layout, with its theory in machine-readable form.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from audit_core.analyses.common import Verdict, plural
from audit_core.analyses.display import Displayed
from audit_core.errors import InputError
from audit_core.report.document import ReportSection, ReportTable
from audit_core.testbed import (
    DEFAULT_VOCABULARY,
    DIRECTIONS,
    CheckReport,
    GeneratorParams,
    check_items,
    direction_name,
    generate_clusters,
    inspect_sample,
    items_from_text,
    items_of,
    parse_direction,
    read_items,
)
from audit_core.testbed.items import frozen_layout
from audit_core.testbed.tasks import inspect_task_files, lmeval_task_files, testbed_tag

PREVIEW_ROWS = 200
FROZEN_CLASS_NAME = "frozen policy class"
ALL_DIRECTIONS = tuple(direction_name(d) for d in DIRECTIONS)  # the six base → target directions  # items shown on the page; the downloads hold all of them


@dataclass(frozen=True, repr=False)
class TestbedItems(Displayed):
    """Generated items: ``clusters``, ``items``, the ``jsonl`` and ``inspect_jsonl`` texts (one
    item or Inspect AI sample per line), summary and preview tables, section and verdict."""

    params: GeneratorParams
    seed: int
    clusters: tuple = field(repr=False)
    items: tuple = field(repr=False)
    jsonl: str = field(repr=False)
    inspect_jsonl: str = field(repr=False)
    summary_table: pd.DataFrame = field(repr=False)
    preview_table: pd.DataFrame = field(repr=False)
    section: ReportSection = field(repr=False)
    verdict: Verdict
    task_files: tuple[str, ...] = field(default=(), repr=False)  # runnable task files written for it
    support: tuple[str, ...] = ()  # the cells the items are made for (all 36 of the frozen layout by default)
    support_class: str = FROZEN_CLASS_NAME  # the class the support was chosen for
    support_origin: str = "full"  # "full", "cells" (given) or "cheapest" (the synthesis's optimum)

    _key_table = "summary_table"

    @property
    def manifest(self) -> dict:
        """Which support and class the files were made for (written as ``manifest.json`` beside
        the task files, and in the Inspect task's metadata)."""
        _, cells = frozen_layout()
        return {"testbed_seed": self.seed, "clusters": len(self.clusters), "class": self.support_class,
                "support": list(self.support), "support_origin": self.support_origin,
                "cells_per_cluster": len(self.support), "cells_per_cluster_full": len(cells),
                "model_calls_per_model": len(self.items),
                "model_calls_per_model_full": len(self.clusters) * len(cells),
                "params": self.params.validated().to_dict()}

    def to_dict(self) -> dict:
        """What ``testbed generate --json`` prints about the items (the command adds the files it wrote)."""
        clusters = self.clusters
        return {"clusters": len(clusters), "items": len(self.items), "seed": self.seed,
                "support": list(self.support), "cells_per_cluster": len(self.support),
                "support_origin": self.support_origin, "class": self.support_class,
                "params": self.params.validated().to_dict(),
                "directions": dict(Counter(direction_name(c.direction) for c in clusters)),
                "target_edits": dict(Counter(c.target_edit.kind for c in clusters)),
                "sham_edits": dict(Counter(c.sham_edit.kind for c in clusters))}

    @property
    def tags(self) -> dict:
        """cluster name -> testbed tag (seed and cluster fingerprint) carried by runnable tasks."""
        return testbed_tag(self.seed, self.clusters)

    def inspect_task(self, task_path: str | Path) -> dict[str, str]:
        """{file name: text} of the Inspect AI task file and its samples file."""
        return {**inspect_task_files(self.items, self.tags, self.seed, task_path), MANIFEST: testbed_manifest_text(self)}

    def lmeval_task(self, folder: str | Path) -> dict[str, str]:
        """{file name: text} of the lm-eval task folder (YAML and data per readout)."""
        return {**lmeval_task_files(self.items, self.tags, folder), MANIFEST: testbed_manifest_text(self)}


MANIFEST = "manifest.json"


def testbed_manifest_text(view: TestbedItems) -> str:
    return json.dumps(view.manifest, indent=1, ensure_ascii=False) + "\n"


def testbed_support(support: str | Sequence[str] | None = None, cost: Mapping[str, float] | None = None,
                    time_limit: float = 10.0) -> tuple[tuple[str, ...], str]:
    """(cells, origin) of the support to generate items for: None = the 36 cells of the frozen
    layout ("full"); ``"cheapest"`` = the first optimum of ``minimum_supports`` on the frozen class
    with ``cost`` (default 1 per cell, as ``synthesize``); else cell ids (canonical order)."""
    from audit_core.identify import frozen_policy_class
    from audit_core.identify.equivalence import resolve_support
    pc = frozen_policy_class()
    if support is None:
        return pc.cells, "full"
    if isinstance(support, str) and support.strip().lower() == "cheapest":
        from audit_core.identify import minimum_supports
        result = minimum_supports(pc, cost=cost, enumerate_all=False, time_limit=time_limit)
        if not result.identifies or not result.supports:
            raise InputError(f"support 'cheapest': the synthesis found no identifying support ({result.status})")
        return tuple(result.supports[0]), "cheapest"
    cells = [c.strip() for c in support.split(",")] if isinstance(support, str) else [str(c).strip() for c in support]
    cells = [c for c in cells if c]
    if not cells:
        raise InputError("support: give at least one cell id, or 'cheapest'")
    try:
        _, ordered = resolve_support(pc, cells=cells)
    except InputError as exc:
        raise InputError(f"support: {exc}") from None
    return ordered, "cells"


def _jsonl(records) -> str:
    return "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in records)


def generate_testbed(n_clusters: int, seed: int = 0, directions: Sequence[str] | None = None, depth: int = 3,
                     distractors: int = 6, vocabulary: Sequence[str] | None = None,
                     support: str | Sequence[str] | None = None,
                     cost: Mapping[str, float] | None = None) -> TestbedItems:
    """``generate_clusters`` with the controls, the items of every cluster on ``support`` (cell ids,
    ``"cheapest"`` or None = all 36 cells, :func:`testbed_support`), and their exports."""
    params = GeneratorParams(depth=depth, distractors=distractors,
                             vocabulary=tuple(vocabulary or DEFAULT_VOCABULARY),
                             directions=tuple(parse_direction(d) for d in directions) if directions else DIRECTIONS)
    cells, origin = testbed_support(support, cost)
    clusters = generate_clusters(n_clusters, seed, params)
    recheck = check_items(items_of(clusters))  # the solver re-derives every label and edit of the clusters
    items = items_of(clusters, cells)
    counts = Counter(direction_name(c.direction) for c in clusters)
    summary = pd.DataFrame([{"direction": d, "clusters": n} for d, n in sorted(counts.items())])
    preview = pd.DataFrame([{"id": i.id, "world": i.world, "mapping": i.mapping, "readout": i.readout,
                             "direction": i.direction, "oracle": i.oracle, "correct letter": i.correct,
                             "prompt": i.prompt} for i in items[:PREVIEW_ROWS]])
    verdict = Verdict("good" if recheck.ok else "bad",
                      f"{plural(len(clusters), 'cluster')} × {plural(len(cells), 'cell')} = {plural(len(items), 'item')}"
                      + ("" if origin == "full" else f" (support {', '.join(cells)}: {len(cells)} of 36 cells, "
                                                     f"{origin})") + "; "
                      + ("every label re-derived, every target edit changes the oracle and every sham edit keeps it."
                         if recheck.ok else f"{plural(recheck.n_mismatches, 'mismatch', 'mismatches')} on re-checking."))
    section = ReportSection(
        key="testbed", title=f"Testbed: {len(items)} solver-grounded items", source=f"generated with seed {seed}",
        parameters={**params.validated().to_dict(), "clusters": n_clusters, "seed": seed,
                    "support": ", ".join(cells), "support origin": origin},
        summary=(verdict.text,), tables=(ReportTable("Clusters per oracle direction", summary),),
        numbers={"clusters": len(clusters), "items": len(items), "directions": dict(counts)})
    return TestbedItems(params=params, seed=seed, clusters=clusters, items=items,
                        jsonl=_jsonl(i.to_dict() for i in items), inspect_jsonl=_jsonl(inspect_sample(i) for i in items),
                        summary_table=summary, preview_table=preview, section=section, verdict=verdict,
                        support=tuple(cells), support_origin=origin)


@dataclass(frozen=True, repr=False)
class TestbedCheck(Displayed):
    """An items file re-derived: the engine's :class:`~audit_core.testbed.CheckReport`, a table of
    the first mismatches, verdict."""

    name: str
    report: CheckReport
    mismatch_table: pd.DataFrame = field(repr=False)
    verdict: Verdict

    _key_table = "mismatch_table"

    def to_dict(self) -> dict:
        """The document ``testbed check --json`` prints."""
        return {"items_file": self.name, **self.report.to_dict()}


def check_testbed(data: bytes | str | Path, name: str = "items.jsonl") -> TestbedCheck:
    """Re-derive every label and every edit's effect of an items file: JSONL bytes or text, or
    a file path."""
    if isinstance(data, Path):
        items, name = read_items(data), str(data)
        data = None
    elif isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError(f"items file {name!r}: not UTF-8 text") from None
    report = check_items(items if data is None else items_from_text(data, name))
    table = pd.DataFrame({"mismatch": list(report.mismatches)})
    if report.ok:
        verdict = Verdict("good", f"{name}: every label and edit of {plural(report.n_items, 'item')} in "
                                  f"{plural(report.n_clusters, 'cluster')} re-derived.")
    else:
        verdict = Verdict("bad", f"{name}: {plural(report.n_mismatches, 'mismatch', 'mismatches')} among "
                                 f"{plural(report.n_items, 'item')}.")
    return TestbedCheck(name=name, report=report, mismatch_table=table, verdict=verdict)
