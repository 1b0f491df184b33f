"""``identify``, ``lattice`` and ``synthesize`` commands (docs/cli.md).

Without ``--policies`` the frozen seven-policy class of paper 000 is used. ``identify`` exits 1
when τ is not identified on the chosen support, so it can gate a pipeline. ``synthesize`` exits 1
when it returns no support that identifies τ: ``NOT_IDENTIFIABLE`` (some pair with different τ
differs on no cell; the supports printed are only the labelled fallback for the separable pairs),
``INFEASIBLE`` (the exclusions leave a pair unseparated) or a solver that gave up.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from audit_core import analyses, api
from audit_core.cli import emit, flag
from audit_core.errors import InputError
from audit_core.identify.estimands import ESTIMANDS

if TYPE_CHECKING:
    from audit_core.analyses import Source


def policy_source(path: str | None) -> Source:
    """The frozen class, or the class in ``--policies FILE``."""
    with flag("--policies"):
        return analyses.policy_source(path)


def _names(text: str | None) -> list[str] | None:
    """Comma list; ``none``/``base``/empty mean the empty list (the base support)."""
    if text is None:
        return None
    text = text.strip()
    if text.lower() in ("", "none", "base"):
        return []
    return [t.strip() for t in text.split(",") if t.strip()]


def parse_cost(text: str | None) -> dict[str, float] | None:
    """``generated=1,scoring=3`` -> ``{"generated": 1.0, "scoring": 3.0}``."""
    if not text:
        return None
    out: dict[str, float] = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or not key:
            raise InputError(f"--cost: expected KEY=NUMBER pairs separated by commas, got {part.strip()!r}")
        try:
            out[key] = float(value)
        except ValueError:
            raise InputError(f"--cost: {key}={value.strip()!r} is not a number") from None
    return out


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--policies", metavar="FILE", help="policy class (JSON or long CSV); default: the frozen class")
    p.add_argument("--estimand", default="tau_full", choices=list(ESTIMANDS), help="estimand τ (default tau_full)")
    p.add_argument("--json", action="store_true", help="print one JSON document")


def register(subparsers) -> None:
    p = subparsers.add_parser("identify", help="equivalence classes and collisions on a support",
                              description="Is τ point-identified on a support? Exit 1 when it is not.")
    _common(p)
    p.add_argument("--components", metavar="A,B", help="components of the support (default all; 'none' = base)")
    p.add_argument("--cells", metavar="CELL,CELL", help="explicit cell ids instead of components")
    p.set_defaults(func=run_identify)

    p = subparsers.add_parser("lattice", help="all 2^k component subsets and leave-one-out",
                              description="Classes and collisions for every subset of components.")
    _common(p)
    p.set_defaults(func=run_lattice)

    p = subparsers.add_parser("synthesize", help="minimum-cost identifying supports (CP-SAT)",
                              description="Smallest-cost set of cells that identifies τ.")
    _common(p)
    p.add_argument("--cost", metavar="KEY=N,...", help="cost per axis value or cell id, e.g. generated=1,scoring=3")
    p.add_argument("--all", action="store_true", help="enumerate every optimal support")
    p.add_argument("--include", metavar="CELL,CELL", help="cells the support must contain")
    p.add_argument("--exclude", metavar="CELL,CELL", help="cells the support must not contain")
    p.add_argument("--time-limit", type=float, default=10.0, help="seconds for the whole search, reductions included (default 10)")
    p.set_defaults(func=run_synthesize)


def run_identify(args: argparse.Namespace) -> int:
    policy = policy_source(args.policies)
    cells = _names(args.cells) if args.cells is not None else None
    # The pipeline gate: classes and collisions only, no suggestions from the solver.
    view = api.identify_support(_names(args.components), cells=cells, estimand=args.estimand, policies=policy,
                                suggest=False)
    emit(view.to_dict(), args.json, _identify_text)
    return 0 if view.identification.identified else 1


def _identify_text(d: dict) -> str:
    comps = d["components"]
    what = "explicit cells" if comps is None else f"components: {', '.join(comps) or 'none (base)'}"
    lines = [f"Support: {d['cells']} cells ({what}); estimand {d['estimand']}",
             f"Equivalence classes: {d['n_classes']}"]
    for i, members in enumerate(d["classes"], start=1):
        lines.append(f"  {i:>3}  " + ", ".join(f"{m} (τ={d['tau'][m]})" for m in members))
    lines.append(f"Cross-estimand collisions: {d['n_collisions']}")
    for a, b in d["collisions"]:
        lines.append(f"  {a} ≡ {b}")
    if d["collisions_truncated"]:
        lines.append(f"  ... ({d['n_collisions'] - len(d['collisions'])} more)")
    for m in d["mixtures"].values():
        lines.append(f"Mixture: {m['statement']}")
    lines.append("τ is point-identified on this support." if d["identified"] else "τ is NOT identified on this support.")
    return "\n".join(lines)


def run_lattice(args: argparse.Namespace) -> int:
    view = api.support_lattice(policy_source(args.policies), estimand=args.estimand)
    emit(view.to_dict(), args.json, _lattice_text)
    return 0


def _lattice_text(d: dict) -> str:
    lines = [f"Lattice of supports (estimand {d['estimand']})",
             f"  {'components':<40} {'cells':>5} {'classes':>7} {'collisions':>10}  identified"]
    for n in d["supports"]:
        lines.append(f"  {'+'.join(n['components']) or 'base':<40} {n['cells']:>5} {n['n_classes']:>7} "
                     f"{n['n_collisions']:>10}  {'yes' if n['identified'] else 'no'}")
    lines.append("Leave one out (from full support)")
    for loo in d["leave_one_out"]:
        lines.append(f"  -{loo['removed']:<20} {loo['n_collisions']:>3} collision(s): "
                     + ("; ".join(f"{a} ≡ {b}" for a, b in loo["witnesses"]) or "none"))
        lines.append(f"      {loo['corollary']}")
    return "\n".join(lines)


def run_synthesize(args: argparse.Namespace) -> int:
    search = api.synthesize(policy_source(args.policies), estimand=args.estimand, cost=parse_cost(args.cost),
                            include=_names(args.include) or (), exclude=_names(args.exclude) or (), all=args.all,
                            time_limit=args.time_limit)
    emit(search.to_dict(), args.json, _synthesis_text)
    return 0 if search.synthesis.identifies else 1


_MAX_PAIRS_SHOWN = 20


def _synthesis_text(d: dict) -> str:
    lines = []
    if d["fallback_for_separable_pairs"]:
        pairs = d["unseparable_pairs"]
        lines.append(f"Status: NOT_IDENTIFIABLE: no support identifies τ; {len(pairs)} pair(s) with different τ "
                     "differ on no cell:")
        lines += [f"  {a} ≡ {b}" for a, b in pairs[:_MAX_PAIRS_SHOWN]]
        if len(pairs) > _MAX_PAIRS_SHOWN:
            lines.append(f"  ... ({len(pairs) - _MAX_PAIRS_SHOWN} more, see --json)")
        lines.append("Fallback for the separable pairs only (these supports do NOT identify τ):")
        head = f"  Solver status: {d['solver_status']}"
    else:
        head = f"Status: {d['status']}"
    lines += [f"{head}   cost: {d['cost']}   lower bound: {d['lower_bound']}   gap: {d['gap']}   size: {d['size']}"
              f"   optimal supports listed: {d['n_optimal']}   complete: {'yes' if d['complete'] else 'no'}",
              d["message"]]
    if d["mandatory_cells"]:
        lines.append("Mandatory cells: " + ", ".join(d["mandatory_cells"]))
    for i, s in enumerate(d["supports"], start=1):
        lines.append(f"  {i:>4}  " + ", ".join(s))
    return "\n".join(lines)
