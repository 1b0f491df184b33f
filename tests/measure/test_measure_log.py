"""Response-log loader: layout, oracle forms, and one clear InputError per kind of bad input."""

import numpy as np
import pytest

from audit_core.errors import InputError
from audit_core.identify import build_policy_class
from audit_core.measure import load_response_log, measure
from tests.measure.helpers import REFERENCE_ORACLE, frozen_units, log_bytes

GOOD = log_bytes(frozen_units())


def test_loads_frozen_units_completely():
    log = load_response_log(GOOD, name="good.csv")
    assert log.models[0] == "ideal" and len(log.models) == 7 and log.clusters == ("c1",)
    assert log.observed.all() and log.n_rows == 7 * 36 and log.notes == ()
    assert log.oracle_labels == (("TRUE", "UNKNOWN", "TRUE"),)
    # The ideal updater's row is exactly the oracle.
    assert log.correct[0].all() and not log.correct[1:].all(axis=1).any()


def _err(data: bytes, *fragments, **kwargs):
    with pytest.raises(InputError) as info:
        load_response_log(data, name="log.csv", **kwargs)
    message = str(info.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, message
    return message


def test_missing_columns_named():
    _err(b"model,cluster,cell\nm,c,base:ABC:generated\n", "missing column(s) 'response'", "log.csv")


def test_unknown_cell_id_names_column_row_and_value():
    data = GOOD.replace(b"ideal,c1,target:BAC:scoring", b"ideal,c1,target:BXC:scoring", 1)
    _err(data, "column 'cell'", "data row", "'BXC' is not a value of axis 'mapping'")
    _err(GOOD + b"m,c1,target:ABC,A,TRUE\n", "column 'cell'", "data row 253", "has 2 part(s)")


def test_blank_response_is_an_error_not_a_non_answer():
    data = GOOD.replace(b"ideal,c1,base:ABC:generated,A,", b"ideal,c1,base:ABC:generated,,", 1)
    _err(data, "column 'response' is blank at data row 1", "INVALID")


def test_conflicting_duplicate_rows_are_an_error():
    _err(GOOD + b"ideal,c1,sham:CBA:scoring,A,TRUE\n", "data rows", "253", "different responses")


def test_identical_duplicate_rows_are_counted_once_and_reported():
    first = GOOD.splitlines()[1]
    log = load_response_log(GOOD + first + b"\n", name="dup.csv")
    assert any("1 duplicate row(s)" in n and "data row 253" in n for n in log.notes)
    assert log.observed.sum() == 7 * 36


def test_oracle_must_be_consistent_within_cluster_and_world():
    lines = GOOD.splitlines()
    lines[5] = lines[5].rsplit(b",", 1)[0] + b",FALSE"  # a base-world row of ideal/c1
    _err(b"\n".join(lines) + b"\n", "column 'oracle'", "cluster 'c1' world", "data row 5", "same on every row")


def test_oracle_label_checked_and_case_insensitive():
    _err(GOOD.replace(b",TRUE\n", b",MAYBE\n"), "data row 1: the oracle is not one of TRUE, FALSE, UNKNOWN")
    log = load_response_log(GOOD.replace(b",TRUE\n", b",true\n"))
    assert log.oracle_labels == (("TRUE", "UNKNOWN", "TRUE"),)


def test_no_oracle_and_both_oracles_rejected():
    no_oracle = b"\n".join(line.rsplit(b",", 1)[0] for line in GOOD.splitlines()) + b"\n"
    _err(no_oracle, "no oracle", "oracle_base, oracle_target, oracle_sham")
    both = GOOD.replace(b"response,oracle\n", b"response,oracle,oracle_base\n", 1).replace(b"\n", b",x\n")
    both = both.replace(b"oracle_base,x\n", b"oracle_base\n", 1)
    _err(both, "not both")
    _err(b"model,cluster,cell,response,oracle_base\nm,c,base:ABC:generated,A,TRUE\n", "missing oracle_target")


def test_per_cluster_oracle_columns_give_the_same_result():
    rows = ["model,cluster,cell,response,oracle_base,oracle_target,oracle_sham"]
    for model, cluster, _oracle, answers in frozen_units():
        rows += [f"{model},{cluster},{c},{r},TRUE,UNKNOWN,TRUE" for c, r in answers.items()]
    wide = load_response_log("\n".join(rows).encode())
    long = load_response_log(GOOD)
    assert np.array_equal(wide.expected, long.expected) and np.array_equal(wide.correct, long.correct)
    bad = "\n".join(rows[:5] + [rows[5].replace(",UNKNOWN,", ",FALSE,")] + rows[6:]).encode()
    _err(bad, "column 'oracle_target'", "cluster 'c1' world 'target'", "data row 5")


def test_cluster_world_without_rows_has_unknown_oracle():
    data = b"model,cluster,cell,response,oracle\nm,c,base:ABC:generated,A,TRUE\n"
    _err(data, "cluster 'c' has no row in world 'target'")


def test_missing_cells_and_pairs_are_reported_not_dropped():
    units = frozen_units()
    del units[0][3]["sham:BAC:scoring"]
    units.append(("other-model", "c2", REFERENCE_ORACLE, dict(list(units[1][3].items()))))
    log = load_response_log(log_bytes(units))
    assert log.observed.sum() == 7 * 36 - 1 + 36
    notes = " | ".join(log.notes)
    assert "have no rows at all" in notes and "miss some of the 36 cells" in notes
    assert "'sham:BAC:scoring'" in notes or "ideal/c1" in notes
    m = measure(log, bootstrap=50)
    ideal = m.model("ideal")
    assert ideal.estimate("tau_full").n == 0 and ideal.n_complete_units == 0  # c2 has no rows, c1 lacks a cell
    assert ideal.estimate("base_accuracy").n == 11  # the BAC/scoring triple is incomplete
    assert any("paired unit(s) miss" in n for n in m.notes)


def test_custom_layout_without_mapping_uses_literal_oracle():
    axes = {"world": ["base", "target", "sham"], "style": ["plain", "fancy"]}
    base = {"world": ["base"], "style": ["plain"]}
    components = {"target": {"world": ["target"]}, "sham": {"world": ["sham"]}, "style": {"style": ["fancy"]}}
    cells = [f"{w}:{s}" for w in axes["world"] for s in axes["style"]]
    pc = build_policy_class(axes, base, components, {"p": {c: "x" for c in cells}})
    answers = {"base": "yes", "target": "no", "sham": "yes"}
    rows = ["model,cluster,cell,response,oracle"] + [f"m,k,{c},{answers[c.split(':')[0]]},{answers[c.split(':')[0]]}"
                                                     for c in cells]
    log = load_response_log("\n".join(rows).encode(), policy_class=pc)
    assert log.correct.all()
    m = measure(log, bootstrap=20)
    assert m.n_contexts == 2 and m.pooled.estimate("tau_full").successes == 1
    _err(b"model,cluster,cell,response,oracle\nm,k,base:plain,yes,INVALID\n", "blank or INVALID", policy_class=pc)
    _err(b"model,cluster,cell,response,oracle\nm,k,base:ABC:generated,A,TRUE\n", "has 3 part(s)", policy_class=pc)
