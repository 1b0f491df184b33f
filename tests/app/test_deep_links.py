"""One file per page, named by its URL path, and each runs the router first (pages/_first_run.py).

A fresh server's first run matches the URL path against the names of pages/*.py (Streamlit's own
pages/ handling) and runs the matching file itself; the browser tests open deep links on a fresh
server, these checks cover every page file.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from streamlit.source_util import page_icon_and_name

ROOT = Path(__file__).resolve().parents[2]
PAGES_DIR = ROOT / "pages"


def router_pages() -> list[dict]:
    """file and default of every ``st.Page(...)`` call in app.py, read from its source."""
    found = []
    for node in ast.walk(ast.parse((ROOT / "app.py").read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "Page":
            keywords = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
            found.append({"file": ast.literal_eval(node.args[0]), "url_path": keywords.get("url_path"),
                          "default": keywords.get("default", False)})
    return found


def legacy_url(path: Path) -> str:
    """The URL path Streamlit's own pages/ handling gives a file (its own function)."""
    return page_icon_and_name(path)[1]


def test_app_py_declares_every_page_once_with_one_default():
    pages = router_pages()
    files = {p["file"] for p in pages}
    assert len(files) == len(pages) >= 8 and sum(p["default"] for p in pages) == 1


def test_every_page_file_is_named_by_its_url_path_and_pages_holds_no_other_page():
    pages = router_pages()
    assert all(p["url_path"] is None for p in pages), "the file name is the URL path; no url_path= beside it"
    declared = {(ROOT / p["file"]).resolve() for p in pages}
    page_files = {p.resolve() for p in PAGES_DIR.glob("*.py") if not p.name.startswith("_")}
    assert page_files == declared   # every page file is routed, and nothing else in pages/ is a page
    # st.Page infers the URL path from the file name with the same function as Streamlit's first
    # run (page_icon_and_name), so the documented URLs are the page files' names.
    documented = re.findall(r"^\|[^|]*\|[^|]*\| `/([a-z0-9-]*)`", (ROOT / "docs" / "dashboard.md").read_text("utf-8"), re.M)
    assert len(documented) >= 10 and "minimal-supports" in documented
    assert set(documented) == {legacy_url(p) for p in declared} - {"start"}   # start: the hidden default page at /


def test_no_shared_module_has_the_url_of_a_page():
    # A shared module (pages/_*.py) Streamlit's first run would run instead of a page.
    urls = {legacy_url(ROOT / p["file"]) for p in router_pages()}
    assert not urls & {legacy_url(p) for p in PAGES_DIR.glob("_*.py")}


def test_every_page_file_runs_the_router_first():
    for path in sorted(p for p in PAGES_DIR.glob("*.py") if not p.name.startswith("_")):
        body = [n for n in ast.parse(path.read_text(encoding="utf-8")).body
                if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))        # docstring
                and not (isinstance(n, ast.ImportFrom) and n.module == "__future__")]
        first, second = body[0], body[1]
        assert isinstance(first, ast.ImportFrom) and first.module == "pages._first_run", path.name
        assert ast.unparse(second) == "through_router()", path.name
