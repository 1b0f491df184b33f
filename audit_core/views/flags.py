"""The run-level statements about subgroups below q, in the words every view uses (page, report,
PDF, command line). Plain text from a replay's numbers: no chart library, so the replay use case
and the command line can say them without loading Altair."""

from __future__ import annotations

from audit_core.report import format as fmt
from audit_core.sequential.replay import FAMILY_WISE, PER_SUBGROUP


def family_note(result) -> str:
    """What the family-wise intervals are: level α over K subgroups, each at α/K."""
    k = result.family_size
    return f"α = {fmt.rate(result.family_level, 3)} over K = {fmt.count(k)} subgroups, each at α/K"


def _names(subgroups) -> str:
    return fmt.listing((" / ".join(map(str, p.label)) for p in subgroups), empty="")


def flag_statements(result) -> tuple[str, ...]:
    """The run-level statement about subgroups below q, in the words every view uses (page,
    report, PDF, CLI): the family-wise flags first (the default claim), then the per-subgroup
    flags that are not family-wise, labelled as claims about one subgroup each."""
    q, k = result.params.q, result.family_size
    family = result.flagged(FAMILY_WISE)
    alone = [p for p in result.flagged(PER_SUBGROUP) if p not in family]
    level = f"α = {fmt.rate(result.family_level)}"
    if k <= 1:
        head = (f"The anytime-valid interval ({level}) lies below q = {q:g}." if family else
                f"The anytime-valid interval ({level}) does not lie below q = {q:g}.")
        return (head,)
    if family:
        lines = [f"Below q = {q:g}, family-wise ({level} over all {fmt.count(k)} subgroups at once): "
                 + "; ".join(f"{' / '.join(map(str, p.label))} (upper bound {fmt.rate(p.fw_high)})"
                             for p in family) + "."]
    else:
        lines = [f"No subgroup is below q = {q:g} family-wise ({level} over all {fmt.count(k)} subgroups at once)."]
    if alone:
        lines.append(f"Per-subgroup only (each interval at {result.confidence:.0%} on its own, not corrected for "
                     f"{fmt.count(k)} subgroups, so no run-level claim): {_names(alone)}.")
    return tuple(lines)
