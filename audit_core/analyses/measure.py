"""Measure use case (paper 000, key empirical results): estimand-separated rates of a response log.

Static correctness, target-follow and sham-stay given base-correct, local response and
full-support response are reported side by side with Wilson and cluster-bootstrap intervals,
never folded into one score, with the behavioural composition of the paired units.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from audit_core.analyses.common import Verdict, plural
from audit_core.analyses.display import Displayed
from audit_core.analyses.identify import identify_support
from audit_core.analyses.sources import Source
from audit_core.identify import Identification
from audit_core.measure import ALL_MODELS, Measurement, measure
from audit_core.measure.identified import IdentifiedTau, covered_cells, identified_tau
from audit_core.measure.invariance import Invariance, measure_invariance
from audit_core.measure.log import mapping_axis
from audit_core.report.document import ReportSection
from audit_core.views import measure as views

INTERVALS = views.INTERVALS


@dataclass(frozen=True, repr=False)
class LogMeasurement(Displayed):
    """A measured response log.

    Attributes
    ----------
    result : the engine's :class:`~audit_core.measure.Measurement`.
    invariance : mapping/readout invariance, balanced transitions and the transition asymmetry
        (paper 000 results 3-5), or None when the log's layout has no mapping axis.
    estimates_table, composition_table, transitions_table, units_table : display tables.
    estimates_chart, composition_chart : Vega-Lite specs (error bars of ``interval``).
    section; verdict.
    identification : ``identify`` of τ_full on the support the log covers (the cells observed in
        at least one unit), under the log's layout and its policies; ``support_verdict`` says it
        next to the measured τ_full (issue 20: identification and measurement side by side).
    identified : when the log covers only part of the layout and that part identifies τ_full, τ_full
        through identification (:func:`~audit_core.measure.identified_tau`): each unit's answers on
        the support pick out its equivalence class; ``identified_table`` per model and pooled.
    """

    source: Source
    interval: str
    result: Measurement = field(repr=False)
    invariance: Invariance | None = field(repr=False)
    invariance_table: pd.DataFrame | None = field(repr=False)
    estimates_table: pd.DataFrame = field(repr=False)
    composition_table: pd.DataFrame = field(repr=False)
    transitions_table: pd.DataFrame = field(repr=False)
    units_table: pd.DataFrame = field(repr=False)
    estimates_chart: dict = field(repr=False)
    composition_chart: dict = field(repr=False)
    section: ReportSection = field(repr=False)
    verdict: Verdict
    identification: Identification | None = field(default=None, repr=False)
    support_verdict: Verdict | None = None
    identified: IdentifiedTau | None = field(default=None, repr=False)
    identified_table: pd.DataFrame | None = field(default=None, repr=False)

    _key_table = "estimates_table"
    _key_chart = "estimates_chart"

    def to_dict(self) -> dict:
        """The document ``measure --json`` prints: the engine's measurement and, when the log's layout
        has a mapping axis, the invariance results."""
        payload = self.result.to_dict()
        if self.invariance is not None:  # paper 000 results 3-5 need a mapping axis
            payload["invariance"] = self.invariance.to_dict()
        if self.identification is not None:  # is τ_full identified on the cells the log covers?
            ident = self.identification
            payload["support"] = {"estimand": "tau_full", "cells_covered": len(ident.cells),
                                  "identified": ident.identified, "n_collisions": ident.n_collisions,
                                  "text": self.support_verdict.text}
        if self.identified is not None:  # τ_full through identification on a reduced support
            payload["identified_tau"] = self.identified.to_dict()
        return payload


def _rate(estimate) -> str:
    return "n/a" if estimate.rate is None else f"{estimate.rate:.3f} ({estimate.successes}/{estimate.n})"


def _verdict(result: Measurement) -> Verdict:
    pooled = result.pooled
    who = ALL_MODELS if len(result.models) > 1 else result.models[0].model
    base, local = pooled.estimate("base_accuracy"), pooled.estimate("local_given_base")
    text = (f"{who}: base accuracy {_rate(base)}, but local response given a correct base answer "
            f"{_rate(local)} and full-support response {_rate(pooled.estimate('tau_full'))}.")
    return Verdict("neutral", text, caveat="Each rate is a separate estimand: a high base accuracy says "
                                           "nothing about the response to edits (paper 000).")


SUPPORT_ESTIMAND = "tau_full"



def _support_verdict(ident: Identification, n_cells: int, tau) -> Verdict:
    """The measured τ_full next to whether the covered support identifies it (Theorem 1: it does
    iff no two policies of different τ answer every covered cell alike)."""
    measured = (f"τ_full is not measured (no unit has all {n_cells} cells)" if tau is None or tau.rate is None
                else f"measured τ_full = {tau.rate:.2f} ({tau.successes}/{tau.n} complete units)")
    where = f"{plural(len(ident.cells), 'cell')} of {n_cells}"
    if ident.identified:
        return Verdict("good", f"{measured} on a support that identifies it ({where} covered; "
                               f"{plural(ident.n_classes, 'equivalence class', 'equivalence classes')}, no collision).")
    return Verdict("bad", f"{measured} on a support where it is not identified ({where} covered; "
                          f"{plural(ident.n_collisions, 'colliding pair')} of policies that answer every covered "
                          "cell alike but differ in τ_full).",
                   caveat="On this support two policies with different τ_full leave the same log, so no log of it "
                          "can tell them apart; the Protocol explorer and Minimal supports show which cells to add.")


def identified_verdict(result: IdentifiedTau) -> Verdict:
    """τ through identification, the share outside the class, the cost saved and the assumption."""
    pooled = result.pooled
    t, o = pooled.tau, pooled.outside
    rate = "n/a" if t.rate is None else f"{t.rate:.3f} ({t.successes}/{t.n} identified units)"
    saved = result.model_calls_full - result.model_calls
    text = (f"{result.estimand} through identification = {rate}; outside the class: {o.successes} of {o.n} "
            f"complete units. {len(result.cells)} of {result.n_cells_full} cells per cluster: "
            f"{result.model_calls:,} model calls instead of {result.model_calls_full:,} ({saved:,} saved).")
    return Verdict("bad" if o.successes else "good", text,
                   caveat=f"Assumption: {result.assumption}. {result.statement}")


def identified_table(result: IdentifiedTau) -> pd.DataFrame:
    """One row per model (and pooled): τ through identification with both intervals, units outside."""
    rows = []
    blocks = result.models + ((result.pooled,) if len(result.models) > 1 else ())
    for m in blocks:
        t = m.tau
        rows.append({"model": m.model, "τ (identified)": t.rate, "k/n": f"{t.successes}/{t.n}",
                     "Wilson low": t.wilson_low, "Wilson high": t.wilson_high, "bootstrap low": t.boot_low,
                     "bootstrap high": t.boot_high, "outside the class": f"{m.outside.successes}/{m.outside.n}",
                     "share outside": m.outside.rate, "incomplete units": m.n_incomplete})
    return pd.DataFrame(rows)


def measure_log(source: Source, bootstrap: int = 2000, seed: int = 0, confidence: float = 0.95,
                interval: str = "bootstrap") -> LogMeasurement:
    """``measure`` on the source's response log, with its tables, charts and report section; on a
    log that covers only an identifying part of the layout, τ_full through identification too."""
    result = measure(source.value, bootstrap=bootstrap, seed=seed, confidence=confidence)
    invariance = (measure_invariance(source.value, bootstrap=bootstrap, seed=seed, confidence=confidence)
                  if mapping_axis(source.value.layout) is not None else None)
    invariance_table = views.invariance_table(invariance) if invariance is not None else None
    interval = interval if bootstrap > 0 else "wilson"
    verdict = _verdict(result)
    cells = covered_cells(source.value)
    layout = Source("policy_class", f"layout:{source.key}", "layout of the log", f"policy class of {source.name}",
                    source.value.layout, bundled=source.bundled)
    ident = identify_support(layout, estimand=SUPPORT_ESTIMAND, cells=cells)
    support_verdict = _support_verdict(ident, len(source.value.cells), result.pooled.estimate("tau_full"))
    identified = table = None
    if ident.identified and len(cells) < len(source.value.cells):
        identified = identified_tau(source.value, cells=cells, bootstrap=bootstrap, seed=seed, confidence=confidence)
        table = identified_table(identified)
        support_verdict = Verdict("good", f"{support_verdict.text} {identified_verdict(identified).text}",
                                  caveat=identified_verdict(identified).caveat)
    charts = (views.estimates_spec(result, interval), views.composition_spec(result))
    section = views.measurement_section(result, interval, verdict=f"{verdict.text} {support_verdict.text}",
                                        charts=charts, invariance_table=invariance_table)
    return LogMeasurement(source=source, interval=interval, result=result, invariance=invariance,
                          invariance_table=invariance_table,
                          estimates_table=views.estimates_table(result),
                          composition_table=views.composition_table(result),
                          transitions_table=views.transitions_table(result), units_table=views.units_table(result),
                          estimates_chart=charts[0], composition_chart=charts[1], section=section, verdict=verdict,
                          identification=ident, support_verdict=support_verdict, identified=identified,
                          identified_table=table)
