"""The instant numbers of the explorer: for every support, the numbers the page's metrics show."""

import itertools

from audit_core.identify import frozen_policy_class, identify, lattice
from audit_core.views.identify import SUPPORT_METRICS, support_metrics, support_metrics_by_key


def test_every_support_has_the_numbers_identify_gives_it():
    pc = frozen_policy_class()
    for estimand in ("tau_full", "static_correctness", "local_response"):
        table = support_metrics_by_key(lattice(pc, estimand))
        names = pc.component_names
        assert len(table) == 2 ** len(names)
        for rank in range(len(names) + 1):
            for combo in itertools.combinations(names, rank):
                r = identify(pc, combo, estimand)           # brute force, support by support
                assert table[",".join(combo)] == support_metrics(len(r.cells), r.n_classes, r.n_collisions,
                                                                 r.identified)
        assert set(table[""]) == set(SUPPORT_METRICS)


def test_the_shown_values_are_the_page_formatting():
    assert support_metrics(36, 7, 0, True) == {"Cells in support": "36", "Equivalence classes": "7",
                                               "Collisions": "0", "τ identified": "yes"}
    assert support_metrics(1, 1, 6, False)["τ identified"] == "no"
