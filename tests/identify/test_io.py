"""Policy-class loaders: JSON and long CSV, with one clear InputError per kind of bad input."""

import copy
import json
from pathlib import Path

import numpy as np
import pytest

from audit_core.errors import InputError
from audit_core.identify import frozen_policy_class, identify, load_policy_class, policy_class_to_json


@pytest.fixture(scope="module")
def doc():
    return policy_class_to_json(frozen_policy_class())


def load_doc(d):
    return load_policy_class(json.dumps(d).encode(), name="test.json")


def frozen_long_csv(pc, tau=True):
    lines = ["policy,cell,response" + (",tau" if tau else "")]
    for i, n in enumerate(pc.names):
        for c in pc.cells:
            lines.append(f"{n},{c},{pc.response(n, c)}" + (f",{int(pc.tau[i])}" if tau else ""))
    return "\n".join(lines) + "\n"


def test_json_bytes_path_and_file_object(tmp_path, doc):
    p = tmp_path / "c.json"
    p.write_text(json.dumps(doc))
    for src in (p, str(p), p.read_bytes(), p.open("rb")):
        assert load_policy_class(src).names == frozen_policy_class().names


def test_long_csv_with_frozen_layout_matches_code():
    pc = frozen_policy_class()
    loaded = load_policy_class(frozen_long_csv(pc).encode(), name="long.csv")
    assert loaded.axes == pc.axes and loaded.components == pc.components
    assert np.array_equal(loaded.responses, pc.responses)
    for comps, (k, coll) in {(): (1, 6), ("target",): (2, 3), None: (7, 0)}.items():
        r = identify(loaded, comps)
        assert (r.n_classes, r.n_collisions) == (k, coll)


def test_long_csv_semicolon_delimiter_and_bom():
    text = frozen_long_csv(frozen_policy_class()).replace(",", ";")
    loaded = load_policy_class(b"\xef\xbb\xbf" + text.encode(), name="semi.csv")
    assert len(loaded.names) == 7


def test_example_csv_infers_layout_and_mixture():
    pc = load_policy_class(Path("data/example_policies.csv"))
    assert pc.axes == {"axis1": ("base", "edit"), "axis2": ("plain", "json")}
    assert pc.component_names == ("axis1", "axis2")
    assert pc.mixtures == {"coin_flip": {"faithful": 0.5, "stubborn": 0.5}}
    assert identify(pc).identified
    assert identify(pc, ["axis1"]).collisions == [("faithful", "format_bound")]
    assert pc.label("stubborn") == "ignores the edit"


def _without_response(d):
    d["policies"][2]["responses"].pop("sham:CBA:scoring")


def _unknown_cell(d):
    d["policies"][0]["responses"]["moon:ABC:generated"] = "A"


def _mixture_unknown(d):
    d["policies"][-1]["mixture"] = {"ideal": 0.5, "nobody": 0.5}


def _weights(d):
    d["policies"][-1]["mixture"] = {"ideal": 0.5, "target_inertia": 0.4}


def _tau_two(d):
    d["policies"][1]["tau"] = 2


def _tau_string(d):
    d["policies"][1]["tau"] = "yes"


def _duplicate(d):
    d["policies"][3]["name"] = "ideal"


def _tau_partial(d):
    del d["policies"][4]["tau"]


def _mixture_of_mixture(d):
    d["policies"].append({"name": "m2", "mixture": {"half_inert": 1.0}})


def _no_axes(d):
    del d["axes"]


def _bad_component_axis(d):
    d["components"]["moon"] = {"planet": ["x"]}


def _response_not_string(d):
    d["policies"][0]["responses"]["base:ABC:generated"] = 1


@pytest.mark.parametrize(
    "mutate, message",
    [
        (_without_response, "policy 'any_edit_reactor' has no response for 1 cell"),
        (_unknown_cell, "'moon' is not a value of axis 'world'"),
        (_mixture_unknown, "mixture 'half_inert' names an unknown policy 'nobody'"),
        (_weights, "weights sum to 0.9, not 1"),
        (_tau_two, "τ must be 0 or 1, got 2"),
        (_tau_string, "τ must be 0 or 1, got 'yes'"),
        (_duplicate, "policy name 'ideal' appears twice"),
        (_tau_partial, "has no τ"),
        (_mixture_of_mixture, "names another mixture 'half_inert'"),
        (_no_axes, "missing top-level field 'axes'"),
        (_bad_component_axis, "component 'moon' names unknown axis 'planet'"),
        (_response_not_string, "is not a string"),
    ],
)
def test_bad_json_classes(doc, mutate, message):
    d = copy.deepcopy(doc)
    mutate(d)
    with pytest.raises(InputError, match=message) as info:
        load_doc(d)
    assert "test.json" in str(info.value) and "\n" not in str(info.value)


def test_empty_and_invalid_json():
    with pytest.raises(InputError, match="empty"):
        load_policy_class(b"   \n", name="e.json")
    with pytest.raises(InputError, match=r"invalid JSON at line 1, column \d+"):
        load_policy_class(b'{"axes": [', name="x.json")
    with pytest.raises(InputError, match="must be an object"):
        load_policy_class(b"[1, 2]", name="x.json")


CSV_HEAD = "policy,cell,response,tau\n"


@pytest.mark.parametrize(
    "body, message",
    [
        ("a,x:1,yes,1\na,x:2,no,1\nb,x:1,yes,0\n", "policy 'b' has no response for 1 cell"),
        ("a,x:1,yes,1\na,x:1,no,1\n", "answers cell 'x:1' twice"),
        ("a,x:1,yes,2\n", "column 'tau' must be 0 or 1"),
        ("a,x:1,yes,1\na,y:1,yes,0\n", "has τ=0 but τ=1 on data row 1"),
        ("a,x:1,yes,1\nb,x,yes,0\n", "has 1 part"),
        (",x:1,yes,1\n", "column 'policy' is blank"),
    ],
)
def test_bad_long_csv(body, message):
    with pytest.raises(InputError, match=message):
        load_policy_class((CSV_HEAD + body).encode(), name="bad.csv")


def test_csv_mixture_checks():
    head = "policy,cell,response,tau,component,weight\n"
    rows = "a,x,yes,1,,\nb,x,no,0,,\n"
    with pytest.raises(InputError, match="names an unknown policy 'c'"):
        load_policy_class((head + rows + "m,,,,a,0.5\nm,,,,c,0.5\n").encode(), name="m.csv")
    with pytest.raises(InputError, match="weights sum to 0.8"):
        load_policy_class((head + rows + "m,,,,a,0.5\nm,,,,b,0.3\n").encode(), name="m.csv")
    with pytest.raises(InputError, match="'weight' is not a number"):
        load_policy_class((head + rows + "m,,,,a,half\n").encode(), name="m.csv")
    ok = load_policy_class((head + rows + "m,,,,a,0.25\nm,,,,b,0.75\n").encode(), name="m.csv")
    assert ok.mixtures == {"m": {"a": 0.25, "b": 0.75}}


def test_csv_missing_column_and_empty():
    with pytest.raises(InputError, match="missing column 'response'"):
        load_policy_class(b"policy,cell\na,x\n", name="c.csv")
    with pytest.raises(InputError, match="empty"):
        load_policy_class(b"", name="c.csv")


def test_long_csv_unknown_cell_id_in_frozen_layout():
    text = frozen_long_csv(frozen_policy_class()) + "ideal,moon:ABC:generated,A,1\n"
    with pytest.raises(InputError, match="'moon' is not a value of axis 'world'"):
        load_policy_class(text.encode(), name="typo.csv")


def test_deeply_nested_json_is_one_input_error():
    deep = ("[" * 100_000 + "]" * 100_000).encode()
    with pytest.raises(InputError, match="nested too deeply"):
        load_policy_class(deep, name="deep.json")
    with pytest.raises(InputError, match="nested too deeply"):
        load_policy_class(b'{"axes": ' + b'{"a": ' * 50_000 + b'1' + b'}' * 50_000 + b'}', name="x")
