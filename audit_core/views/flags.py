"""The run-level statements about subgroups below q, in the words every view uses (page, report,
PDF, command line). Plain text from a replay's numbers: no chart library, so the replay use case
and the command line can say them without loading Altair."""

from __future__ import annotations

from audit_core.presets import FAMILY_FLAG, SUBGROUP_FLAG  # noqa: F401 (re-exported)
from audit_core.report import format as fmt
from audit_core.sequential.replay import DECLARED, FAMILY_WISE, PER_SUBGROUP


def family_note(result) -> str:
    """What the family-wise intervals are: α/K over K declared subgroups, or α spent by order of
    first appearance (:mod:`audit_core.sequential.replay`)."""
    if result.family_rule == DECLARED:
        return f"α = {fmt.rate(result.family_level, 3)} over K = {fmt.count(result.family_size)} declared subgroups, each at α/K"
    return f"α = {fmt.rate(result.family_level, 3)} spent by order of first appearance (j-th subgroup: α·2^-(2⌊log₂ j⌋+1))"


def family_scope(result) -> str:
    """The family-wise statement's scope, in the words of the verdict and the report."""
    level = f"α = {fmt.rate(result.family_level)}"
    if result.family_rule == DECLARED:
        return f"{level} over all {fmt.count(result.family_size)} declared subgroups at once"
    return (f"{level} over all subgroups at once, spent by order of first appearance because the run "
            "does not declare its subgroups")


def family_caption(result) -> str:
    """What a family-wise flag guarantees and why, for the Replay page's subgroup table: only what
    is proven (issue 28 item 1)."""
    if result.family_rule == DECLARED:
        shares = (f"each subgroup's anytime-valid interval at α/K, K = {fmt.count(result.family_size)} "
                  "subgroups declared before the data")
    else:
        shares = ("each subgroup's anytime-valid interval at its share of α by order of first appearance "
                  "(α/2 for the first subgroup, α/8 for the second and third, α/32 for the fourth to seventh, …: "
                  "the run does not declare its subgroups, and dividing α by the number seen would let the "
                  "auditor choose K)")
    return (f"**Below q (family-wise)** uses {shares}. The shares sum to at most α, so the chance that any "
            "family-wise flag is false is at most α, however the cases were chosen and whenever the run "
            "stopped, provided the cases of one subgroup share its accuracy.")


def _names(subgroups) -> str:
    return fmt.listing((" / ".join(map(str, p.label)) for p in subgroups), empty="")


def subgroup_caption(result) -> str:
    """The caption of the subgroup table: its columns, then what each flag claims."""
    return ("n = cases, correct = sum of scores, accuracy with its anytime-valid interval (cs, valid however "
            "the run stopped), its family-wise anytime-valid interval (fw, at the level fw_alpha) and the "
            "95% Wilson interval (ci), which holds only at a sample size fixed in advance and is not the "
            "audit's evidence. " + family_caption(result) + " **Below q (this subgroup alone)** is a claim "
            "about that one subgroup at 95%; across many subgroups some such flag is wrong more often. "
            "Neither is the dual test above, which compares the two e-processes over the whole run. "
            "Intervals are [low, high]; the CSV keeps each bound as a number, with correct (the sum of "
            "scores) and share (of the replayed cases, drawn in the chart above).")


def flag_statements(result) -> tuple[str, ...]:
    """The run-level statement about subgroups below q, in the words every view uses (page,
    report, PDF, CLI): the family-wise flags first (the default claim), then the per-subgroup
    flags that are not family-wise, labelled as claims about one subgroup each."""
    q, k = result.params.q, len(result.subgroup_table)
    family = result.flagged(FAMILY_WISE)
    alone = [p for p in result.flagged(PER_SUBGROUP) if p not in family]
    level = f"α = {fmt.rate(result.family_level)}"
    scope = family_scope(result)
    if k <= 1 and result.family_size <= 1:
        head = (f"The anytime-valid interval ({level}) lies below q = {q:g}." if family else
                f"The anytime-valid interval ({level}) does not lie below q = {q:g}.")
        return (head,)
    if family:
        lines = [f"Below q = {q:g}, family-wise ({scope}): "
                 + "; ".join(f"{' / '.join(map(str, p.label))} (upper bound {fmt.rate(p.fw_high)})"
                             for p in family) + "."]
    else:
        lines = [f"No subgroup is below q = {q:g} family-wise ({scope})."]
    if alone:
        lines.append(f"Per-subgroup only (each interval at {result.confidence:.0%} on its own, not corrected for "
                     f"{fmt.count(result.family_size)} subgroups, so no run-level claim): {_names(alone)}.")
    return tuple(lines)
