"""The explorer's first view (bundled class, full support, τ_full) built through Altair, and the
command that stores it in ``views/bundled_charts.json`` (:mod:`audit_core.views.stored`):

    python -m audit_core.views.first_view

It sits above both :mod:`audit_core.views.identify` (the chart builders) and
:mod:`audit_core.views.stored` (the store they read), so neither imports the other's caller.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from audit_core.views import identify as views
from audit_core.views import stored


def first_view_specs() -> dict[str, dict]:
    """key -> spec of the charts of the explorer's first view (bundled class, full support, τ_full),
    built through Altair."""
    from audit_core.identify import estimand_values, identify, lattice
    from audit_core.identify.policies import frozen_policy_class

    pc = frozen_policy_class()
    built = {}
    views._TEMPLATES.clear()   # built here, not copied from this process's templates

    def keep(kind: str, inputs: dict, build: Callable[[], dict]) -> dict:
        spec = build()
        built[stored.spec_key(kind, inputs)] = spec
        return spec

    names = list(pc.component_names)
    views.lattice_spec(lattice(pc, estimand="tau_full"), names, "tau_full", views.support_key(names), store=keep)
    views.heatmap_spec(pc, estimand_values(pc, "tau_full"), identify(pc, components=names).cells, store=keep)
    return built


def main() -> None:
    """Rebuild ``views/bundled_charts.json``."""
    specs = first_view_specs()
    stored.STORE.write_text(json.dumps(specs, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {len(specs)} chart specs to {stored.STORE}")


if __name__ == "__main__":
    main()
