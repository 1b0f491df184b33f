"""Identifiability use cases (paper 000): explore one support, the lattice, minimal supports.

* :func:`explore_support`: classes and collisions on a support (Theorem 1: τ is identified iff no
  two policies with different τ answer every observed cell alike), the cheapest identifying
  support inside it, or the cheapest cells to add when τ is not identified.
* :func:`support_lattice`: every subset of components and the leave-one-out witnesses
  (:func:`lattice_overview` adds its tables, chart and verdict).
* :func:`check_supports`: the cheapest identifying supports under costs and constraints
  (weighted minimum hitting set on CP-SAT), each re-checked with ``identify``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import pandas as pd

from audit_core import results_cache
from audit_core.analyses.common import Verdict, plural
from audit_core.analyses.display import Displayed
from audit_core.analyses.sources import Source, edited_class_source
from audit_core.analyses.suggestions import SUGGESTION_TIME_LIMIT, suggestions  # noqa: F401 (re-exported)
from audit_core.identify import (
    Identification,
    Lattice,
    LatticeTooLarge,
    Synthesis,
    editor,
    estimand_values,
    identify,
    lattice,
    minimum_supports,
)
from audit_core.report import format as fmt
from audit_core.report.document import ReportChart, ReportSection
from audit_core.views import identify as views

BEHAVIOURS = tuple(editor.BEHAVIOURS)
BehaviourRule = editor.BehaviourRule
composable = editor.composable



@dataclass(frozen=True, repr=False)
class SupportExploration(Displayed):
    """One support of a policy class, explained.

    Attributes
    ----------
    identification : the engine's :class:`~audit_core.identify.Identification` on the support.
    lattice : the component lattice of the class for the estimand, or None above
        ``MAX_LATTICE_COMPONENTS`` components (``lattice_note`` then says why; no lattice chart).
    tau : τ of every deterministic policy (name → 0/1).
    support_label : "target + sham", "base only" or "custom 2-cell support".
    inside : cheapest identifying support using only the support's cells (when τ is identified
        and a suggestion was asked for), else None.
    repair : cheapest identifying support containing the support's cells (when τ is not
        identified and some support identifies it), else None.
    class_table, collision_table, mixture_table, leave_one_out_table : display tables.
    lattice_chart, heatmap_chart : Vega-Lite specs.
    lattice_clickable : True when ``lattice_chart`` is the Hasse diagram, whose nodes select a
        support (up to ``MAX_HASSE_COMPONENTS`` components); the level-by-level chart of larger
        classes has no selection.
    section : the report section; verdict : the one-line verdict.
    """

    source: Source
    estimand: str
    components: tuple[str, ...]
    custom_cells: tuple[str, ...] | None
    identification: Identification = field(repr=False)
    lattice: Lattice | None = field(repr=False)
    tau: dict = field(repr=False)
    support_label: str
    inside: Synthesis | None = field(repr=False)
    repair: Synthesis | None = field(repr=False)
    class_table: pd.DataFrame = field(repr=False)
    collision_table: pd.DataFrame = field(repr=False)
    mixture_table: pd.DataFrame = field(repr=False)
    leave_one_out_table: pd.DataFrame = field(repr=False)
    lattice_chart: dict | None = field(repr=False)
    heatmap_chart: dict = field(repr=False)
    section: ReportSection = field(repr=False)
    verdict: Verdict
    lattice_note: str = ""
    lattice_clickable: bool = False

    _key_table = "class_table"
    _key_chart = "lattice_chart"

    def to_dict(self) -> dict:
        """The document ``identify --json`` prints: the engine's identification on the support."""
        return self.identification.to_dict()

    # The lists as wrapped text (the explorer shows a short list as one text element, a long one as
    # its table): written once per support, not on every toggle's rerun.
    @cached_property
    def class_text(self) -> str:
        """One paragraph per equivalence class: its τ values, size and members."""
        return "\n\n".join(f"Class {row['class']} (τ = {row['τ values']}; {row['size']} "
                            f"polic{'y' if row['size'] == 1 else 'ies'}): {row['members']}"
                            for row in self.class_table.to_dict(orient="records"))

    @cached_property
    def mixture_text(self) -> str:
        """One line per mixture: the classes it occupies."""
        return "\n".join(f"{row['mixture']}: class{'es' if ',' in row['classes occupied'] else ''} "
                         f"{row['classes occupied']}" for row in self.mixture_table.to_dict(orient="records"))

    @cached_property
    def collision_text(self) -> str:
        """One paragraph per collision: the pair, its τ values and the cells that would separate it."""
        return "\n\n".join(f"{row['policy A']} ≡ {row['policy B']} (τ {row['τ(A)']} vs {row['τ(B)']}): "
                            f"any one of {row['# separating cells']} cells separates them: "
                            f"{row['cells that would separate them']}"
                            for row in self.collision_table.to_dict(orient="records"))


def identify_support(policy: Source, components: Sequence[str] | None = None, estimand: str = "tau_full",
                     cells: Sequence[str] | None = None) -> Identification:
    """Is τ identified on the support (components, default all; or explicit ``cells``)? The
    pipeline gate: only ``identify``, no lattice and no suggestions."""
    if cells is not None:
        return identify(policy.value, estimand=estimand, cells=list(cells))
    return identify(policy.value, components=None if components is None else list(components), estimand=estimand)


def load_solver() -> None:
    """Import the libraries of a minimal-support search (OR-Tools, and scipy.optimize for its LP
    bound) ahead of the first search. The explorer's first view of the bundled class needs neither
    once its suggestions are kept on disk (:mod:`.suggestions`), the Minimal supports page both: the dashboard loads them in the
    background once the first page is drawn, so that page's first load does not pay for them."""
    import scipy.optimize  # noqa: F401
    from ortools.sat.python import cp_model  # noqa: F401


def chart_store(policy: Source):
    """Where the class charts of ``policy`` are kept (the ``store`` of :func:`views.lattice_spec`):
    on disk for a bundled class, computed at first use (:mod:`audit_core.results_cache`, keyed by
    the chart's rows and texts, Altair's version and the package's code); built for any other."""
    return _kept_chart if policy.bundled else views.build_spec


def _kept_chart(kind: str, inputs: dict, build) -> dict:
    return results_cache.cached("chart", {"kind": kind, "inputs": inputs, "altair": results_cache.package_version("altair")}, build,
                                decode=_a_spec)


def _a_spec(value) -> dict:
    if not isinstance(value, dict) or "datasets" not in value:
        raise TypeError("not a chart spec")
    return value


def support_lattice(policy: Source, estimand: str = "tau_full") -> Lattice:
    """All 2^k component supports with classes and collisions, and leave-one-out witnesses."""
    return lattice(policy.value, estimand=estimand)


@dataclass(frozen=True, repr=False)
class LatticeOverview(Displayed):
    """Every subset of a class's components with its classes and collisions, and the leave-one-out
    witnesses from the full support.

    Attributes
    ----------
    lattice : the engine's :class:`~audit_core.identify.Lattice`.
    supports_table : one row per subset; leave_one_out_table : one row per removed component.
    lattice_chart : the Hasse diagram; verdict : how many supports identify τ, the smallest ones.
    """

    source: Source
    estimand: str
    lattice: Lattice = field(repr=False)
    supports_table: pd.DataFrame = field(repr=False)
    leave_one_out_table: pd.DataFrame = field(repr=False)
    lattice_chart: dict = field(repr=False)
    verdict: Verdict

    _key_table = "supports_table"
    _key_chart = "lattice_chart"

    def to_dict(self) -> dict:
        """The document ``lattice --json`` prints: the engine's lattice."""
        return self.lattice.to_dict()


def lattice_overview(policy: Source, estimand: str = "tau_full") -> LatticeOverview:
    """:func:`support_lattice` with its tables, Hasse diagram and verdict."""
    lat = support_lattice(policy, estimand)
    identifying = [n for n in lat.supports if n.identified]
    if identifying:
        fewest = min(len(n.components) for n in identifying)
        smallest = [views.support_name(n.components) for n in identifying if len(n.components) == fewest]
        verdict = Verdict("good", f"{estimand} is identified on {len(identifying)} of {len(lat.supports)} supports; "
                                  f"the smallest: {'; '.join(smallest)}.")
    else:
        verdict = Verdict("bad", f"{estimand} is identified on none of the {len(lat.supports)} supports.")
    return LatticeOverview(source=policy, estimand=estimand, lattice=lat, supports_table=views.lattice_table(lat),
                           leave_one_out_table=views.leave_one_out_table(lat),
                           lattice_chart=views.lattice_spec(lat, policy.value.component_names, estimand, None,
                                                            store=chart_store(policy)),
                           verdict=verdict)


def _components(policy: Source, components: Sequence[str] | None) -> tuple[str, ...]:
    return tuple(policy.value.component_names) if components is None else tuple(components)


def _explore_verdict(estimand: str, label: str, ident: Identification, inside, repair, added) -> Verdict:
    if ident.identified:
        text = (f"{estimand} is identified on {label}: {plural(ident.n_classes, 'equivalence class', 'equivalence classes')}, "
                "no collision.")
        if inside is not None and inside.supports and not inside.supports[0]:
            # No cell needed (τ takes one value on the class): never "0 cells ... identify it: ."
            text += " No cell is needed to identify it: every policy of the class has the same value."
        elif inside is not None and inside.supports and len(inside.supports[0]) < len(ident.cells):
            text += (f" {plural(len(inside.supports[0]), 'cell')} of its {len(ident.cells)} already identify it: "
                     + fmt.listing(inside.supports[0]) + ".")
        return Verdict("good", text)
    pairs = plural(ident.n_collisions, "colliding pair")
    if repair is not None and added:
        return Verdict("bad", f"{estimand} is not identified on {label}: {pairs}. Adding "
                              + ", ".join(added) + " separates all of them.")
    return Verdict("bad", f"{estimand} is not identified on {label}: {pairs}, and no support of this "
                          "class separates them all.")


def explore_support(policy: Source, components: Sequence[str] | None = None, estimand: str = "tau_full",
                    cells: Sequence[str] | None = None, lattice_result: Lattice | None = None,
                    suggest: bool = True) -> SupportExploration:
    """Classes, collisions, lattice, suggestions, tables, charts and report section of a support.

    ``components`` (default all) pick the support unless ``cells`` lists explicit cell ids.
    ``lattice_result`` reuses a lattice already computed for this class and estimand.
    """
    pc = policy.value
    components = _components(policy, components)
    custom = tuple(cells) if cells else None
    ident = identify(pc, estimand=estimand, cells=list(custom)) if custom else \
        identify(pc, components=list(components), estimand=estimand)
    lat, lattice_note = lattice_result, ""
    if lat is None:
        try:
            lat = support_lattice(policy, estimand)
        except LatticeTooLarge as exc:  # the support itself is still explained, without the lattice
            lat, lattice_note = None, str(exc)
    tau_values = estimand_values(pc, estimand)
    tau = dict(zip(pc.names, tau_values.astype(int).tolist(), strict=True))
    label = f"custom {len(custom)}-cell support" if custom else views.support_name(components)
    # a bundled class's suggestions are kept on disk at first use (analyses/suggestions.py)
    inside, repair = suggestions(pc, estimand, ident, bundled=policy.bundled) if suggest else (None, None)
    added = () if repair is None else tuple(c for c in repair.supports[0] if c not in set(ident.cells))
    verdict = _explore_verdict(estimand, label, ident, inside, repair, added)
    current = views.support_key(components) if not custom else ""
    store = chart_store(policy)
    lattice_chart = None if lat is None else views.lattice_spec(lat, pc.component_names, estimand, current, store=store)
    heatmap_chart = views.heatmap_spec(pc, tau_values, ident.cells, store=store)
    charts = ((ReportChart("Support lattice (Hasse diagram)", lattice_chart),) if lattice_chart else ()) + (
        ReportChart("Policy × cell responses", heatmap_chart),)
    section = views.identification_section(
        ident, lat, tau, estimand, label, policy.description, components, custom, charts, verdict=verdict.text,
        lattice_note=lattice_note)
    return SupportExploration(
        source=policy, estimand=estimand, components=components, custom_cells=custom, identification=ident,
        lattice=lat, tau=tau, support_label=label, inside=inside, repair=repair,
        class_table=views.class_table(ident, tau), collision_table=views.collision_table(ident, tau),
        mixture_table=views.mixture_table(ident), leave_one_out_table=views.leave_one_out_table(lat), lattice_chart=lattice_chart,
        heatmap_chart=heatmap_chart, section=section, verdict=verdict, lattice_note=lattice_note,
        lattice_clickable=lattice_chart is not None and len(pc.component_names) <= views.MAX_HASSE_COMPONENTS)


@dataclass(frozen=True, repr=False)
class SupportSearch(Displayed):
    """The cheapest identifying supports of a class under costs and constraints.

    Attributes
    ----------
    synthesis : the engine's :class:`~audit_core.identify.Synthesis`.
    checks : ``identify`` on every listed optimum (the re-check shown next to it).
    optima_table : every optimum with its re-check; frequency_chart : how often each cell is used
        by the optima (None without optima); section; verdict.
    """

    source: Source
    estimand: str
    cost: Mapping[str, float] | None
    must_include: tuple[str, ...]
    exclude: tuple[str, ...]
    synthesis: Synthesis
    checks: tuple[Identification, ...] = field(repr=False)
    optima_table: pd.DataFrame = field(repr=False)
    frequency_chart: dict | None = field(repr=False)
    section: ReportSection = field(repr=False)
    verdict: Verdict

    _key_table = "optima_table"
    _key_chart = "frequency_chart"

    def to_dict(self) -> dict:
        """The document ``synthesize --json`` prints: the engine's synthesis."""
        return self.synthesis.to_dict()


def _search_verdict(estimand: str, result: Synthesis, checks, time_limit: float | None = None) -> Verdict:
    if result.unseparable_pairs:
        pairs = "; ".join(f"{a} ≡ {b}" for a, b in result.unseparable_pairs)
        fallback = (f" The supports listed (cost {result.cost:g}) separate only the other pairs: a fallback, "
                    "not an identifying support." if result.fallback_for_separable_pairs and result.supports else "")
        return Verdict("bad", f"No support identifies {estimand}: {plural(len(result.unseparable_pairs), 'pair')} "
                              f"with different τ answer every cell alike ({pairs}).{fallback}")
    if not result.supports:
        if result.status == "INFEASIBLE":
            return Verdict("bad", f"No support identifies {estimand} under these constraints: the excluded cells "
                                  "leave some pair with different τ inseparable (solver status INFEASIBLE).")
        return Verdict("neutral", f"The solver stopped before it found a support for {estimand} (status "
                                  f"{result.status}); nothing is known yet about these constraints. Allow more time.")
    ok = sum(c.identified for c in checks)
    if result.status != "OPTIMAL":
        within = f"within the {time_limit:g} s time limit" if time_limit else "within the time limit"
        bound = "–" if result.lower_bound is None else f"{result.lower_bound:g}"
        gap = "–" if result.gap is None else f"{result.gap:g}"
        return Verdict("neutral" if ok == len(checks) else "bad",
                       f"The best identifying support of {estimand} found {within} costs {result.cost:g} with "
                       f"{plural(result.size, 'cell')}; it is not proven cheapest (status {result.status}): no "
                       f"support costs less than {bound}, a gap of {gap}. {ok} of {len(checks)} re-checked as "
                       "identifying; allow more time to narrow the gap.")
    listed = (f"all {result.n_optimal} optimal supports listed" if result.complete
              else f"{result.n_optimal} optimal supports listed, the list may be incomplete")
    return Verdict("good" if ok == len(checks) else "bad",
                   f"The cheapest identifying support of {estimand} costs {result.cost:g} with "
                   f"{plural(result.size, 'cell')} (proven cheapest: the lower bound meets it); {listed}; "
                   f"{ok} of {len(checks)} re-checked as identifying.")


def check_supports(policy: Source, estimand: str = "tau_full", cost: Mapping[str, float] | None = None,
                   must_include: Sequence[str] = (), exclude: Sequence[str] = (), enumerate_all: bool = True,
                   time_limit: float = 10.0) -> SupportSearch:
    """Minimum-cost identifying supports (``minimum_supports``), each re-checked by ``identify``."""
    pc = policy.value
    result = minimum_supports(pc, estimand=estimand, cost=dict(cost) if cost else None,
                              must_include=tuple(must_include), exclude=tuple(exclude),
                              enumerate_all=enumerate_all, time_limit=time_limit)
    checks = tuple(identify(pc, estimand=estimand, cells=list(s)) for s in result.supports)
    optima = views.optima_table(result, checks)
    chart = (views.cell_frequency_spec(pc, result.supports, must_include, exclude) if result.supports
             else None)
    verdict = _search_verdict(estimand, result, checks, time_limit)
    section = views.synthesis_section(result, optima, chart, estimand, policy.description,
                                      dict(cost) if cost else None, tuple(must_include), tuple(exclude),
                                      verdict=verdict.text)
    return SupportSearch(source=policy, estimand=estimand, cost=dict(cost) if cost else None,
                         must_include=tuple(must_include), exclude=tuple(exclude), synthesis=result, checks=checks,
                         optima_table=optima, frequency_chart=chart, section=section, verdict=verdict)


# ------------------------------------------------------------------------------ class editing

def _edited(pc, origin: Source) -> Source:
    """The edited class; a class edited again keeps naming the class the edits started from."""
    return edited_class_source(pc, editor.class_json(pc).encode("utf-8"), origin.edited_from or origin.name)


def class_file(policy: Source) -> bytes:
    """The class as an exchange-format JSON file (to download and upload again)."""
    return editor.class_json(policy.value).encode("utf-8")


def add_policy(policy: Source, name: str, behaviour: str | None = None,
               rules: Sequence[editor.BehaviourRule] = (), responses: Mapping[str, str] | None = None,
               tau: int | None = None) -> Source:
    """The class with a policy added or replaced: composed from the behaviour vocabulary
    (``behaviour`` plus ``rules``) or given as a response row (``responses``)."""
    pc = policy.value
    row = dict(responses) if responses is not None else editor.compose_responses(pc, behaviour or "ideal", rules)
    description = "" if responses is not None else " then ".join(
        [behaviour or "ideal"] + [f"{r.behaviour} where {r.axis}={r.value}" for r in rules])
    return _edited(editor.with_policy(pc, name, row, tau, description), policy)


def remove_policy(policy: Source, name: str) -> Source:
    return _edited(editor.without_policy(policy.value, name), policy)


def copy_policy(policy: Source, name: str, new_name: str) -> Source:
    return _edited(editor.duplicate_policy(policy.value, name, new_name), policy)


def rename_axes(policy: Source, names: Mapping[str, str]) -> Source:
    """The class with its axes (and the components named after them) renamed."""
    return _edited(editor.rename_axes(policy.value, names), policy)


def policy_row(policy: Source, name: str) -> dict[str, str]:
    """The responses of one policy, cell by cell (to edit as a row)."""
    pc = policy.value
    i = list(pc.names).index(name)
    return {c: pc.codebook[int(code)] for c, code in zip(pc.cells, pc.responses[i], strict=True)}


def class_link(policy: Source) -> str | None:
    """The compact form of a small class for a link (None: too large to travel)."""
    return editor.encode_class(policy.value)


def class_from_link(text: str) -> Source:
    pc = editor.decode_class(text)
    return _edited(pc, Source("policy_class", "link", "class from a link", "", pc))
