"""Shared pytest set-up. The package is importable from the repository root (``python -m pytest``
puts the working directory on ``sys.path``) or installed with ``pip install -e .``."""


def _schedule_rank(item) -> int:
    """Longest first: 0 a browser test that starts its own Streamlit server, 1 another browser test
    or a Monte Carlo run (``slow``), 2 the rest."""
    fixtures = getattr(item, "fixturenames", ())
    if item.get_closest_marker("browser") and "chromium" in fixtures:
        return 0 if "app_server" not in fixtures else 1
    return 1 if item.get_closest_marker("slow") else 2


def pytest_collection_modifyitems(config, items):
    # pytest-xdist (--dist loadgroup, see pyproject.toml) hands out tests in collection order (an
    # xdist_group of several tests first): the longest tests start first, so that no worker starts
    # a long one while the others run out of work. Within a rank the order stays the collection's.
    items.sort(key=_schedule_rank)
