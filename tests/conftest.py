"""Shared pytest set-up. The package is importable from the repository root (``python -m pytest``
puts the working directory on ``sys.path``) or installed with ``pip install -e .``."""

import os
import shutil
import tempfile

import pytest

# Results the package keeps on disk (audit_core/results_cache.py): every test process, and every
# process it starts, uses a folder of its own, empty at its start, never the user's cache.
_CACHE = tempfile.mkdtemp(prefix="audit-test-cache-")
os.environ["AUDIT_CACHE_DIR"] = _CACHE


def pytest_unconfigure(config):
    shutil.rmtree(_CACHE, ignore_errors=True)


def _schedule_rank(item) -> int:
    """Longest first: 0 a browser test that starts its own Streamlit server, 1 another browser test
    or a Monte Carlo run (``slow``), 2 the rest."""
    fixtures = getattr(item, "fixturenames", ())
    if item.get_closest_marker("browser") and "chromium" in fixtures:
        return 0 if "app_server" not in fixtures else 1
    return 1 if item.get_closest_marker("slow") else 2


def _keep_xdist_groups(config, items) -> None:
    """pytest-xdist 3.8 puts a test in its ``xdist_group`` by appending ``@<group>`` to
    ``item._nodeid``; pytest 9 reads a node's id from ``item._id``, so the suffix was lost and
    ``--dist loadgroup`` handed out every test on its own (a module's shared fixture, such as the
    executed notebook, then ran once in each worker). Append it where this pytest reads it."""
    if not getattr(config.option, "loadgroup", False):
        return
    try:
        from _pytest.nodeid import coerce_node_id
    except ImportError:   # a pytest whose nodeid xdist's own suffix still reaches
        return
    for item in items:
        names = {str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
                 for mark in item.iter_markers("xdist_group")}
        suffix = "@" + "_".join(sorted(names))
        if names and not item.nodeid.endswith(suffix) and hasattr(item, "_id"):
            item._id = coerce_node_id(item.nodeid + suffix)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    # pytest-xdist (--dist loadgroup, see pyproject.toml) hands out tests in collection order (an
    # xdist_group of several tests first): the longest tests start first, so that no worker starts
    # a long one while the others run out of work. Within a rank the order stays the collection's.
    items.sort(key=_schedule_rank)
    _keep_xdist_groups(config, items)


@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium shared by the browser tests of this pytest process, in every folder
    (Playwright's sync API allows one per process; each test opens its own context)."""
    from tests.app.test_browser import launch_chromium

    with launch_chromium() as instance:
        yield instance
