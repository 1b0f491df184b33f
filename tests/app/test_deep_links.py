"""Every deep link has its router hand-over file in pages/ (see the note above st.navigation in app.py).

A fresh server's first run matches the URL path against the names of pages/*.py (Streamlit's legacy
multipage handling); the browser test opens one deep link on a fresh server, these checks cover all.
"""

from __future__ import annotations

import ast
from pathlib import Path

from streamlit.source_util import page_icon_and_name

ROOT = Path(__file__).resolve().parents[2]


def router_pages() -> list[dict]:
    """file, url_path and default of every ``st.Page(...)`` call in app.py, read from its source."""
    found = []
    for node in ast.walk(ast.parse((ROOT / "app.py").read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "Page":
            keywords = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
            found.append({"file": ast.literal_eval(node.args[0]), "url_path": keywords.get("url_path"),
                          "default": keywords.get("default", False)})
    return found


def legacy_url(path: Path) -> str:
    """The URL path Streamlit's legacy pages/ handling gives a file (its own function)."""
    return page_icon_and_name(path)[1]


def hand_over_files() -> dict[str, Path]:
    bodies = {(ROOT / p["file"]).resolve() for p in router_pages()}
    return {legacy_url(p): p for p in sorted((ROOT / "pages").glob("*.py"))
            if p.resolve() not in bodies and not p.name.startswith("_")}


def test_app_py_declares_every_page_once_with_one_default():
    pages = router_pages()
    files = {p["file"] for p in pages}
    assert len(files) == len(pages) >= 8 and sum(p["default"] for p in pages) == 1
    assert all(p["url_path"] for p in pages)


def test_every_deep_link_has_a_hand_over_file_and_no_other_exists():
    deep_links = {p["url_path"] for p in router_pages() if not p["default"]}  # the default page is "/"
    assert "minimal-supports" in deep_links
    assert set(hand_over_files()) == deep_links


def test_hand_over_files_only_run_the_router():
    for path in hand_over_files().values():
        calls = [n for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(n, ast.Call)]
        run_path = [c for c in calls if isinstance(c.func, ast.Attribute) and c.func.attr == "run_path"]
        assert len(run_path) == 1, f"{path.name} must run app.py once"
        assert "app.py" in ast.unparse(run_path[0].args[0]), path.name
        assert {k.arg: ast.literal_eval(k.value) for k in run_path[0].keywords} == {"run_name": "__main__"}
        assert "streamlit" not in path.read_text(encoding="utf-8").split('"""')[-1], path.name


def test_no_url_path_runs_a_page_file_without_the_router():
    # A url_path equal to the legacy name of a page body (or of _shared/_cache) would run that file
    # directly, without app.py, on a fresh server.
    others = {legacy_url(p) for p in (ROOT / "pages").glob("*.py") if p not in hand_over_files().values()}
    assert not others & {p["url_path"] for p in router_pages()}
