"""Property tests on random small classes against brute force (hypothesis, seeded profile)."""

import itertools

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from audit_core.identify import build_policy_class, cell_costs, identify, minimum_supports
from audit_core.identify.distinguish import distinguishing_cells

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def small_classes(draw):
    """2 axes (sizes 1-3 x 1-3), one component per axis, 2-7 policies over 3 responses."""
    n_a, n_b = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    axes = {"w": [f"w{i}" for i in range(n_a)], "r": [f"r{i}" for i in range(n_b)]}
    cells = [f"{a}:{b}" for a in axes["w"] for b in axes["r"]]
    n = draw(st.integers(2, 7))
    responses = draw(st.lists(st.lists(st.sampled_from("xyz"), min_size=len(cells), max_size=len(cells)),
                              min_size=n, max_size=n))
    tau = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    components = {}
    if n_a > 1:
        components["W"] = {"w": axes["w"][1:]}
    if n_b > 1:
        components["R"] = {"r": axes["r"][1:]}
    names = [f"p{i}" for i in range(n)]
    pc = build_policy_class(
        axes, {"w": ["w0"], "r": ["r0"]}, components,
        {name: dict(zip(cells, row, strict=False)) for name, row in zip(names, responses, strict=False)},
        tau=dict(zip(names, tau, strict=False)), source="random",
    )
    subset = draw(st.lists(st.sampled_from(list(components) or ["W"]), unique=True)) if components else []
    return pc, [c for c in subset if c in components]


def brute_classes(pc, cells):
    cols = pc.columns(cells)
    rows = [tuple(r) for r in pc.responses[:, cols]]
    classes = []
    for i, r in enumerate(rows):
        for cl in classes:
            if rows[cl[0]] == r:
                cl.append(i)
                break
        else:
            classes.append([i])
    return classes


@SETTINGS
@given(small_classes())
def test_classes_equal_brute_force(case):
    pc, comps = case
    r = identify(pc, comps, estimand="file")
    brute = brute_classes(pc, r.cells)
    assert r.classes == [[pc.names[i] for i in cl] for cl in brute]
    pairs = [(pc.names[a], pc.names[b]) for a in range(len(pc.names)) for b in range(len(pc.names))
             if pc.tau[a] == 1 and pc.tau[b] == 0 and any(a in cl and b in cl for cl in brute)]
    assert sorted(r.collisions, key=lambda p: (pc.names.index(p[0]), pc.names.index(p[1]))) == r.collisions
    assert sorted(r.collisions) == sorted(pairs) and r.n_collisions == len(pairs)
    assert r.identified == (not pairs)


@st.composite
def classes_with_costs(draw):
    pc, _ = draw(small_classes())
    costs = {c: draw(st.integers(1, 3)) for c in pc.cells}
    return pc, costs


@SETTINGS
@given(classes_with_costs())
def test_synthesis_matches_brute_force(case):
    pc, costs = case
    s = minimum_supports(pc, estimand="file", cost=costs)
    dsets = distinguishing_cells(pc, "file")
    need = [set(d) for d in dsets.values() if d]
    assert sorted(s.unseparable_pairs) == sorted(p for p, d in dsets.items() if not d)
    cost_of = cell_costs(pc, costs)
    index = pc.cell_index
    best, optima = None, set()
    for k in range(len(pc.cells) + 1):
        for sub in itertools.combinations(pc.cells, k):
            if all(set(sub) & d for d in need):
                c = sum(cost_of[index[x]] for x in sub)
                if best is None or c < best - 1e-9:
                    best, optima = c, {sub}
                elif abs(c - best) < 1e-9:
                    optima.add(sub)
    assert s.solver_status == "OPTIMAL" and s.complete
    assert s.status == ("NOT_IDENTIFIABLE" if s.unseparable_pairs else "OPTIMAL")
    assert s.fallback_for_separable_pairs is bool(s.unseparable_pairs)
    assert abs(s.cost - best) < 1e-9                       # no cheaper support exists
    assert set(s.supports) == optima                       # enumeration finds every optimum
    for sup in s.supports:                                 # every synthesized support identifies
        r = identify(pc, cells=sup, estimand="file")
        assert set(r.collisions) <= set(s.unseparable_pairs)
    for cell in s.mandatory_cells:
        assert all(cell in sup for sup in optima)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.integers(2, 40), st.integers(1, 12), st.integers(1, 4), st.integers(0, 2**31 - 1))
def test_row_hashing_equals_pairwise(n, m, k, seed):
    from audit_core.identify import row_classes
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, k, size=(n, m)).astype(np.uint8)
    labels, n_classes = row_classes(codes)
    same = (codes[:, None, :] == codes[None, :, :]).all(axis=2)
    assert np.array_equal(same, labels[:, None] == labels[None, :])
    assert n_classes == len(set(map(bytes, codes)))
