"""Issue 18, item 3: a class from a link or a file is bounded by the work it implies.

Before: a ``?class=`` link of 12 components x 512 policies made the explorer take 59 s and 4 GB
(the 2^12-support lattice over 512 policies), and ``lattice`` on it ran past 120 s."""

import json
import time

import pytest

from audit_core import analyses
from audit_core.cli import main
from audit_core.errors import InputError
from audit_core.identify import MAX_LATTICE_WORK, LatticeTooLarge, lattice, policy_class_from_json
from audit_core.identify.policies import MAX_POLICIES
from tests.bounds.bigclass import big_class, link_text
from tests.load import busy_factor


def test_lattice_refuses_twelve_components_by_512_policies_before_work():
    pc = policy_class_from_json(big_class(12, 512), "big")
    start = time.perf_counter()
    with pytest.raises(LatticeTooLarge, match=f"limited to {MAX_LATTICE_WORK:,} \\(supports x policies\\)"):
        lattice(pc)
    assert time.perf_counter() - start < 1.0


def test_lattice_at_the_limit_still_runs():
    pc = policy_class_from_json(big_class(8, MAX_LATTICE_WORK // 256), "fits")
    assert len(lattice(pc).supports) == 256


def test_explorer_analysis_of_the_linked_class_degrades_to_no_lattice():
    source = analyses.class_from_link(link_text(big_class(12, 512)))
    start = time.perf_counter()
    view = analyses.explore_support(source)
    assert time.perf_counter() - start < 30 * busy_factor()  # was 59 s unloaded; a few seconds on a loaded machine
    assert view.lattice is None and f"{MAX_LATTICE_WORK:,}" in view.lattice_note
    assert view.identification.n_classes >= 1


def test_lattice_cli_refuses_with_one_line(tmp_path, capsys):
    path = tmp_path / "big.json"
    path.write_text(json.dumps(big_class(12, 512)))
    assert main(["lattice", "--policies", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{MAX_LATTICE_WORK:,}" in err[0]


def test_a_class_with_too_many_policies_is_refused_naming_the_limit():
    with pytest.raises(InputError, match=f"at most {MAX_POLICIES:,} policies"):
        policy_class_from_json(big_class(2, MAX_POLICIES + 1), "many")
