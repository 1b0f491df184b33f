"""Views of identifiability results: tables, Altair specs and report sections.

Built from :class:`~audit_core.identify.Identification`, :class:`~audit_core.identify.Lattice` and
:class:`~audit_core.identify.Synthesis`; nothing here computes a statistic, it only arranges what
the engine returned so a number looks the same on a page, in the CLI's report and in a download.
"""

from __future__ import annotations

import copy
import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np
import pandas as pd

from audit_core.identify import parse_cell_id
from audit_core.report.document import ReportChart, ReportSection, ReportTable
from audit_core.views.charts import (
    MAX_CHART_ROWS,
    chart_spec,
    frequency_heatmap,
    hasse_chart,
    lattice_levels_chart,
    letters_with_ink,
    response_heatmap,
    shorten_rows,
)

EMPTY_SUPPORT_KEY = "∅"


def build_spec(kind: str, inputs: dict, build) -> dict:  # noqa: ARG001 (the store protocol)
    """The default ``store`` of the class charts: build the chart (``kind`` and ``inputs`` name it
    for a store that keeps it, such as the use-case layer's on-disk cache of the bundled class)."""
    return build()


def support_name(components: Sequence[str]) -> str:
    """Name of a component support used everywhere: "base only" or "target + sham"."""
    return " + ".join(components) if components else "base only"


def support_key(components: Sequence[str]) -> str:
    """Selection key of a lattice node ("∅" for the base support)."""
    return "+".join(components) if components else EMPTY_SUPPORT_KEY


def components_of_key(key: str) -> list[str]:
    return [] if key == EMPTY_SUPPORT_KEY else key.split("+")


def abbreviations(names: Sequence[str]) -> dict[str, str]:
    """One capital letter per component when the initials are unique, else the full names."""
    initials = [n[:1].upper() for n in names]
    if len(set(initials)) == len(initials) and all(initials):
        return dict(zip(names, initials, strict=True))
    return {n: n for n in names}


def _cell_count(cells) -> int:
    return cells if isinstance(cells, (int, np.integer)) else len(cells)


MAX_HASSE_COMPONENTS = 5  # 2^5 = 32 nodes still read as a diagram; more are drawn level by level


SUPPORT_METRICS = ("Cells in support", "Equivalence classes", "Collisions", "τ identified")


def support_metrics(n_cells: int, n_classes: int, n_collisions: int, identified: bool) -> dict[str, str]:
    """The explorer's four numbers of a support, as shown (one formatting for the page's metrics
    and for :func:`support_metrics_by_key`)."""
    return dict(zip(SUPPORT_METRICS, (str(n_cells), str(n_classes), str(n_collisions),
                                      "yes" if identified else "no"), strict=True))


def support_metrics_by_key(lat) -> dict[str, dict[str, str]]:
    """:func:`support_metrics` of every support of the lattice, keyed by its components joined
    with "," in the class's listing order ("" for the base support): the numbers a browser can show
    the moment a toggle flips, before the rerun brings the rest (the same numbers)."""
    return {",".join(node.components): support_metrics(len(node.cells), node.n_classes, node.n_collisions,
                                                       node.identified) for node in lat.supports}


def lattice_levels_spec(lat, component_names: Sequence[str], estimand: str, current: str | None) -> dict:
    """The lattice level by level (rank = number of components): how many supports of each rank
    identify τ, with the fewest collisions among the others; the current support's rank marked."""
    rows = []
    current_rank = None if current is None or current == "" else len(components_of_key(current))
    for node in lat.supports:
        rows.append({"rank": len(node.components), "identified": bool(node.identified),
                     "n_collisions": int(node.n_collisions)})
    frame = pd.DataFrame(rows)
    levels = frame.groupby("rank").agg(supports=("identified", "size"), identified=("identified", "sum"),
                                       fewest=("n_collisions", "min")).reset_index()
    long = pd.concat([levels.assign(status="identified", count=levels["identified"], end=levels["identified"]),
                      levels.assign(status="not identified", count=levels["supports"] - levels["identified"],
                                    end=levels["supports"])])
    long["current"] = long["rank"] == current_rank
    return chart_spec(lattice_levels_chart(long, title=f"Support lattice for {estimand}, level by level",
                                           subtitle=[f"{len(component_names)} components: {len(frame)} supports",
                                                     "bars = supports with that many components",
                                                     "outlined = the level of the current support"]))


def lattice_spec(lat, component_names: Sequence[str], estimand: str, current: str | None,
                 store=build_spec, template: bool = True) -> dict:
    """Hasse diagram of ``lattice()``: rank = number of components, ``current`` node outlined.
    Above MAX_HASSE_COMPONENTS components the levels view (:func:`lattice_levels_spec`) is drawn.
    ``store(kind, inputs, build)``: where the class's chart may be kept (default: built). ``template``: copy the
    class's chart and set the current node (see :func:`_class_template`); False: build this
    support's chart through Altair (the definition the copy is tested against)."""
    if len(component_names) > MAX_HASSE_COMPONENTS:
        return lattice_levels_spec(lat, component_names, estimand, current)
    short = abbreviations(component_names)
    rows = []
    for node in lat.supports:
        comps = tuple(node.components)
        rows.append({"key": support_key(comps), "label": "base" if not comps else "+".join(short[c] for c in comps),
                     "rank": len(comps), "n_collisions": int(node.n_collisions), "n_classes": int(node.n_classes),
                     "cells": _cell_count(node.cells), "identified": bool(node.identified),
                     "status": "identified" if node.identified else "not identified", "members": set(comps)})
    nodes = pd.DataFrame(rows)
    # Nodes of one rank spread evenly around x = 0, in the engine's order (rank, then name).
    nodes["x"] = nodes.groupby("rank").cumcount().astype(float)
    nodes["x"] = 1.6 * (nodes["x"] - nodes.groupby("rank")["x"].transform("mean"))
    nodes["current"] = nodes["key"] == current
    x_of = dict(zip(nodes["key"], nodes["x"], strict=True))
    edges = pd.DataFrame([{"x": x_of[lo["key"]], "y": lo["rank"], "x2": x_of[up["key"]], "y2": up["rank"]}
                          for lo in rows for up in rows
                          if up["rank"] == lo["rank"] + 1 and lo["members"] <= up["members"]],
                         columns=["x", "y", "x2", "y2"])
    legend = ", ".join(f"{v} = {k}" for k, v in short.items() if v != k)
    nodes, title = nodes.drop(columns=["members"]), f"Support lattice for {estimand}"
    if not template:
        return chart_spec(hasse_chart(nodes, edges, title=title, legend=legend))
    plain = nodes.assign(current=False)
    inputs = {"nodes": plain.to_dict("records"), "edges": edges.to_dict("records"), "title": title, "legend": legend}
    spec = _class_template("hasse", inputs, lambda: chart_spec(hasse_chart(plain, edges, title=title, legend=legend)),
                           store)
    for data in spec.get("datasets", {}).values():
        if data and isinstance(data[0], dict) and "current" in data[0] and "key" in data[0]:
            for row in data:
                row["current"] = row["key"] == current
    return spec


# Supports of one class differ in the lattice and heat-map charts only in data columns (the
# lattice's current node; the heat map's in-support flags and letter ink) and the heat map's title:
# chart_spec's positional data-set names keep everything else identical. So each chart is built
# through Altair once per class (~0.25 s of CPU for both, most of a toggle's work), from the rows of
# no support, kept here (and for the bundled class on disk, ``store``), and every support gets
# a copy with its own rows (tests: equal to Altair's own build of that support).
_TEMPLATES: OrderedDict[str, dict] = OrderedDict()
_TEMPLATES_MAX = 32
_TEMPLATES_LOCK = threading.Lock()


def _class_template(kind: str, inputs: dict, build, store) -> dict:
    """A copy of the chart ``build()`` makes from ``inputs`` (the class's rows of no support)."""
    key = hashlib.sha256(json.dumps([kind, inputs], sort_keys=True, default=str).encode()).hexdigest()
    with _TEMPLATES_LOCK:
        spec = _TEMPLATES.get(key)
        if spec is not None:
            _TEMPLATES.move_to_end(key)
    if spec is None:
        spec = store(kind, inputs, build)
        with _TEMPLATES_LOCK:
            _TEMPLATES[key] = spec
            while len(_TEMPLATES) > _TEMPLATES_MAX:
                _TEMPLATES.popitem(last=False)
    return copy.deepcopy(spec)


def heatmap_spec(pc, tau: np.ndarray, support: Sequence[str], store=build_spec, template: bool = True) -> dict:
    """Policy × cell responses of the deterministic policies, support cells outlined.

    At most :data:`~audit_core.views.charts.MAX_CHART_ROWS` rectangles are drawn: with more
    policies x cells the first policies (and, for a huge layout, the first cells) are shown and the
    subtitle says how many; the class table lists every policy. ``template``: as for
    :func:`lattice_spec` (the class's chart with this support's rows and title)."""
    n_cells = min(len(pc.cells), MAX_CHART_ROWS)
    n_policies = min(len(pc.names), max(1, MAX_CHART_ROWS // n_cells))
    labels = [f"{name} (τ={int(t)})" for name, t in zip(pc.names, tau, strict=True)]
    codebook = list(pc.codebook)
    inside = set(support)
    long = pd.DataFrame([{"policy": labels[i], "cell": cell, "response": codebook[int(pc.responses[i, j])] or "(empty)",
                          "in_support": cell in inside,
                          "support": "in support" if cell in inside else "outside support"}
                         for i in range(n_policies) for j, cell in enumerate(pc.cells[:n_cells])])
    note = ""
    if n_policies < len(pc.names) or n_cells < len(pc.cells):
        note = (f"showing the first {n_policies} of {len(pc.names)} policies and {n_cells} of {len(pc.cells)} "
                "cells (a chart draws at most {:,} rectangles); the tables list every policy".format(MAX_CHART_ROWS))
    title = f"Policy × cell responses ({len(inside)} of {len(pc.cells)} cells observed)"
    cell_title = f"cell ({':'.join(pc.axes)})"
    if not template:
        return chart_spec(response_heatmap(long, title=title, cell_title=cell_title, note=note))
    plain = long.assign(in_support=False, support="outside support")   # the class's rows, no support
    inputs = {"long": plain.to_dict("records"), "cell_title": cell_title, "note": note}
    spec = _class_template("heatmap", inputs,
                           lambda: chart_spec(response_heatmap(plain, title="", cell_title=cell_title, note=note)),
                           store)
    cells, letters = long.to_dict("records"), letters_with_ink(long).to_dict("records")
    for name, data in spec.get("datasets", {}).items():
        if data and isinstance(data[0], dict) and "in_support" in data[0]:
            spec["datasets"][name] = letters if "ink" in data[0] else cells
            shorten_rows(spec["datasets"][name])
    spec["title"]["text"] = title
    return spec


def class_table(ident, tau: dict[str, int]) -> pd.DataFrame:
    return pd.DataFrame([{"class": i + 1,
                          "τ values": ", ".join(str(v) for v in sorted({tau[m] for m in members if m in tau})),
                          "size": len(members), "members": ", ".join(members)}
                         for i, members in enumerate(ident.classes)],
                        columns=["class", "τ values", "size", "members"])


def mixture_table(ident) -> pd.DataFrame:
    return pd.DataFrame([{"mixture": k, "classes occupied": ", ".join(str(i + 1) for i in v)}
                         for k, v in ident.mixture_signatures.items()], columns=["mixture", "classes occupied"])


def collision_table(ident, tau: dict[str, int]) -> pd.DataFrame:
    return pd.DataFrame([{"policy A": a, "policy B": b, "τ(A)": tau.get(a), "τ(B)": tau.get(b),
                          "cells that would separate them": ", ".join(ident.separating_cells.get((a, b), ())),
                          "# separating cells": len(ident.separating_cells.get((a, b), ()))}
                         for a, b in ident.collisions],
                        columns=["policy A", "policy B", "τ(A)", "τ(B)", "cells that would separate them",
                                 "# separating cells"])


def leave_one_out_table(lat) -> pd.DataFrame:
    """Leave-one-out rows of a lattice (no rows without a lattice)."""
    return pd.DataFrame([] if lat is None else [{"removed": row.removed, "collisions": row.n_collisions,
                          "witnesses": "; ".join(f"{a} ≡ {b}" for a, b in row.witnesses),
                          "exclusive witnesses": "; ".join(f"{a} ≡ {b}" for a, b in row.exclusive_witnesses),
                          "corollary": row.corollary} for row in lat.leave_one_out],
                        columns=["removed", "collisions", "witnesses", "exclusive witnesses", "corollary"])


def lattice_table(lat) -> pd.DataFrame:
    return pd.DataFrame([{"support": support_name(node.components), "cells": _cell_count(node.cells),
                          "classes": node.n_classes, "collisions": node.n_collisions,
                          "identified": node.identified} for node in lat.supports])


def identification_section(ident, lat, tau: dict[str, int], estimand: str, support_label: str, source: str,
                           components: Sequence[str], custom_cells: Sequence[str] | None,
                           charts: Sequence[ReportChart], verdict: str = "", lattice_note: str = "") -> ReportSection:
    """Report section of one support; ``lat`` None (too many components) leaves out the lattice
    tables and says why in ``lattice_note``."""
    status = "identified" if ident.identified else "not identified"
    lattice_lines = (f"No lattice: {lattice_note}",) if lat is None else tuple(
        f"Without {row.removed}: {row.corollary}" for row in lat.leave_one_out)
    lattice_tables = () if lat is None else (
        ReportTable("Lattice of component supports", lattice_table(lat)),
        ReportTable("Leave one component out", leave_one_out_table(lat)))
    return ReportSection(
        key="explorer", title=f"Identifiability of {estimand} on {support_label}", source=source,
        parameters={"estimand": estimand, "components": list(components), "custom cells": list(custom_cells or ())},
        summary=(*((verdict,) if verdict else ()),
                 f"{len(ident.cells)} cells observed; {ident.n_classes} equivalence classes; "
                 f"{ident.n_collisions} cross-estimand collisions; {estimand} {status}.",
                 *lattice_lines),
        tables=(ReportTable("Equivalence classes", class_table(ident, tau)),
                ReportTable("Collisions", collision_table(ident, tau)), *lattice_tables),
        charts=tuple(charts),
        numbers={"identification": ident.to_dict(), "lattice": None if lat is None else lat.to_dict()})


def optima_table(result, checks: Sequence) -> pd.DataFrame:
    """Every optimal support with the re-check by ``identify`` (collisions, identifies τ)."""
    return pd.DataFrame({"#": range(1, len(result.supports) + 1),
                         "cells": [", ".join(s) for s in result.supports],
                         "size": [len(s) for s in result.supports],
                         "collisions": [c.n_collisions for c in checks],
                         "identifies τ": ["yes" if c.identified else "NO" for c in checks]})


def cell_frequency_spec(pc, supports: Sequence[Sequence[str]], must_include: Sequence[str] = (),
                        exclude: Sequence[str] = ()) -> dict:
    """Heat map of how many optimal supports use each cell: x = the axis with most values, y = the rest."""
    counts = pd.Series([cell for s in supports for cell in s], dtype=object).value_counts()
    axes = list(pc.axes)
    parsed = pd.DataFrame([parse_cell_id(c, pc.axes) for c in pc.cells])
    x_axis = max(axes, key=lambda a: len(pc.axes[a]))
    y_axes = [a for a in axes if a != x_axis]
    y_name = " × ".join(y_axes) if y_axes else "cell"
    freq = pd.DataFrame({x_axis: parsed[x_axis],
                         y_name: parsed[y_axes].agg(":".join, axis=1) if y_axes else "all",
                         "count": [int(counts.get(c, 0)) for c in pc.cells]})
    freq["share"] = freq["count"] / max(len(supports), 1)
    required, excluded = set(must_include), set(exclude)
    freq["constraint"] = ["required" if c in required else "excluded" if c in excluded else "" for c in pc.cells]
    freq["label"] = [f"{n} {'R' if k == 'required' else 'X'}" if k else str(n)
                     for n, k in zip(freq["count"], freq["constraint"], strict=True)]
    return chart_spec(frequency_heatmap(freq, x_axis, y_name))


def synthesis_section(result, optima: pd.DataFrame, freq_spec: dict | None, estimand: str, source: str,
                      cost: dict | None, must_include: Sequence[str], exclude: Sequence[str],
                      verdict: str = "") -> ReportSection:
    return ReportSection(
        key="supports", title=f"Minimal identifying supports for {estimand}", source=source,
        parameters={"estimand": estimand, "cost": cost or "1 per cell", "must include": list(must_include),
                    "exclude": list(exclude)},
        summary=(*((verdict,) if verdict else ()),
                 f"Status {result.status}; optimal cost {result.cost}; {result.size} cells; "
                 f"{result.n_optimal} optimal supports (complete list: {result.complete}); "
                 f"{(optima['identifies τ'] == 'yes').sum()} of {len(optima)} re-checked as identifying.",),
        tables=(ReportTable("All optimal supports", optima),),
        charts=(ReportChart("Cell frequency among optimal supports", freq_spec),) if freq_spec else (),
        numbers=result.to_dict())


