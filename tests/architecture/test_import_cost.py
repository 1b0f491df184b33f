"""What an entry point imports before it does anything (issue 24: fast to start and fast to call).

The command line must answer ``--help`` and build its parsers without the numerical stack; a live
label must not load the synthesis solver; a page module brings heavy libraries only through the
use-case layer (``audit_core.analyses``, whose exports load on first use). Each check runs in a
fresh interpreter and reads ``sys.modules``; nothing here is timed.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("numpy", "pandas", "scipy", "ortools", "streamlit", "altair", "vl_convert", "typst", "pyarrow")


def _loaded_after(code: str, tmp_path: Path | None = None) -> dict:
    """Run ``code`` in a fresh interpreter (repository root on the path); return what it printed
    as JSON, with ``heavy``: the HEAVY top-level packages then in ``sys.modules``."""
    probe = (f"import sys, json\n{code}\n"
             f"print(json.dumps({{'heavy': sorted(m for m in {HEAVY!r} if m in sys.modules), "
             f"'extra': globals().get('extra')}}))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_importing_the_cli_loads_no_heavy_library():
    assert _loaded_after("import audit_core.cli")["heavy"] == []


def _commands() -> list[list[str]]:
    """Every command and sub-command, read from the parser itself (so a new one is covered)."""
    from audit_core.cli import build_parser

    def walk(parser, prefix):
        found = [prefix]
        for action in parser._actions:
            if action.__class__.__name__ == "_SubParsersAction":
                for name, sub in action.choices.items():
                    found += walk(sub, [*prefix, name])
        return found

    return walk(build_parser(), [])


def test_every_help_is_answered_without_heavy_libraries():
    commands = _commands()
    assert len(commands) >= 20 and ["audit", "label"] in commands and ["identify"] in commands
    code = ("import contextlib, io\nfrom audit_core.cli import main\nextra = []\n"
            f"for argv in {commands!r}:\n"
            "    out = io.StringIO()\n"
            "    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):\n"
            "        try:\n"
            "            main([*argv, '--help'])\n"
            "        except SystemExit:\n"
            "            pass\n"
            "    extra.append(out.getvalue().startswith('usage:'))\n")
    seen = _loaded_after(code)
    assert all(seen["extra"]), "every --help printed its usage"
    assert seen["heavy"] == [], f"--help imported {seen['heavy']}"


def test_the_check_sees_a_heavy_import():
    # Guards against a vacuous probe: importing the use case that needs pandas must show it.
    assert "pandas" in _loaded_after("from audit_core.analyses import replay_run")["heavy"]


def test_a_live_label_loads_no_solver_chart_or_study_library(tmp_path):
    db = tmp_path / "audits.sqlite"
    code = ("import contextlib, io, json\nfrom audit_core.cli import main\n"
            f"db = {str(db)!r}\n"
            "def call(*argv):\n"
            "    out = io.StringIO()\n"
            "    with contextlib.redirect_stdout(out):\n"
            "        assert main([*argv, '--db', db, '--json']) == 0\n"
            "    return json.loads(out.getvalue())\n"
            "call('audit', 'new', '--pool', 'gpqa:small', '--seed', '3')\n"
            "case = call('audit', 'next', '--audit', '1')['cases'][0]['case_id']\n"
            "labelled = call('audit', 'label', '--audit', '1', case, '1')\n"
            "status = call('audit', 'status', '--audit', '1')\n"
            "extra = [labelled['labelled']['case_id'] == case, status['n']]\n"
            "extra.append(sorted(m for m in ('ortools', 'scipy.optimize', 'scipy.stats', 'altair') if m in sys.modules))\n")
    seen = _loaded_after(code)
    assert seen["extra"][0] is True and seen["extra"][1] in (0, 1)
    assert seen["extra"][2] == [], f"a label imported {seen['extra'][2]}"
    assert "streamlit" not in seen["heavy"]


# Pages: pandas is allowed at module level (every page shows data frames, and its use case loads
# pandas on the first call anyway); the libraries below belong to engines and views that only some
# pages, or only some parts of a page, need.
PAGE_HEAVY = ("numpy", "scipy", "ortools", "altair", "vl_convert", "typst", "sklearn", "dask", "distributed")
PAGE_FILES = sorted((ROOT / "pages").glob("*.py")) + [ROOT / "app.py"]


def module_level_imports(path: Path) -> set[str]:
    """Modules imported by statements that run when the module is imported (not in functions)."""
    names: set[str] = set()

    def visit(nodes):
        for node in nodes:
            if isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            elif isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
                continue
            else:
                visit(ast.iter_child_nodes(node))

    visit(ast.parse(path.read_text(encoding="utf-8")).body)
    return names


@pytest.mark.parametrize("path", PAGE_FILES, ids=lambda p: p.name)
def test_pages_import_no_heavy_library_at_module_level(path):
    bad = sorted(n for n in module_level_imports(path) if n.split(".")[0] in PAGE_HEAVY)
    assert not bad, f"{path.name} imports {bad} at module level: reach them through audit_core.analyses"


def test_the_page_check_sees_a_module_level_import(tmp_path):
    sample = tmp_path / "page.py"
    sample.write_text("import streamlit as st\nif True:\n    from scipy.stats import norm\n"
                      "def later():\n    import ortools\n")
    assert module_level_imports(sample) == {"streamlit", "scipy.stats"}


def test_the_shared_page_modules_load_no_engine_library():
    # Every page imports these first: they must not pull a solver, a chart library or a renderer.
    seen = _loaded_after("import pages._page_config, pages._cache, pages._shared")
    assert not set(seen["heavy"]) & {"scipy", "ortools", "altair", "vl_convert", "typst"}, seen["heavy"]


LAZY_PACKAGES = ("analyses", "auditing", "identify", "live", "measure", "report", "sequential", "testbed")


def stub_names(name: str) -> tuple[dict[str, str], list[str]]:
    """The stub ``audit_core/<name>/__init__.pyi``: name -> its module, and the stub's ``__all__``."""
    tree = ast.parse((ROOT / "audit_core" / name / "__init__.pyi").read_text(encoding="utf-8"))
    imported, listed = {}, []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            assert node.level == 1, f"{name}/__init__.pyi: only `from .module import name` or `from . import module`"
            if node.module:
                imported.update({alias.name: f"audit_core.{name}.{node.module}" for alias in node.names})
            else:   # a submodule the package exports by its name (analyses.live)
                imported.update({alias.name: f"audit_core.{name}.{alias.name}" for alias in node.names})
        elif isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
            listed = ast.literal_eval(node.value)
        else:
            assert isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant), ast.unparse(node)  # docstring
    return imported, listed


@pytest.mark.parametrize("name", LAZY_PACKAGES)
def test_the_stub_matches_the_exports(name):
    # The packages load their exports on first use (lazy_loader, from the stub __init__.pyi that
    # editors and type checkers read): every name of the stub is the object its module defines,
    # and the package exports exactly the stub's names. A name mapped to the wrong module would
    # only fail when a page or command first asks for it.
    import importlib

    imported, listed = stub_names(name)
    package = importlib.import_module(f"audit_core.{name}")
    assert sorted(listed) == sorted(imported) == sorted(package.__all__), "the stub's imports, its __all__ and the exports"
    assert len(set(listed)) == len(listed)
    for export, module in imported.items():
        if module == f"audit_core.{name}.{export}" and export not in vars(importlib.import_module(module)):
            assert getattr(package, export) is importlib.import_module(module), export   # a submodule
        else:
            assert getattr(package, export) is getattr(importlib.import_module(module), export), export
    assert set(package.__all__) <= set(dir(package))
    init = ast.parse((ROOT / "audit_core" / name / "__init__.py").read_text(encoding="utf-8"))
    assert [ast.unparse(n) for n in init.body if isinstance(n, (ast.Import, ast.ImportFrom))] == ["import lazy_loader"]


def test_a_stub_with_a_wrong_name_fails(tmp_path, monkeypatch):
    # Guards against a vacuous check: a stub naming something its module lacks cannot be exported.
    import lazy_loader

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text("real = 1\n")
    (tmp_path / "pkg" / "__init__.py").write_text(
        "import lazy_loader\n__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)\n")
    (tmp_path / "pkg" / "__init__.pyi").write_text("from .mod import real, missing\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import pkg
    assert pkg.real == 1 and lazy_loader.__name__ == "lazy_loader"
    with pytest.raises(AttributeError):
        pkg.missing  # noqa: B018


def test_a_function_keeps_its_name_over_its_submodule():
    # sequential.replay and identify.lattice are functions, as with the eager imports, whichever
    # import ran first (the submodule binding is redirected to the function).
    code = ("import audit_core.sequential.replay, audit_core.identify.lattice\n"
            "from audit_core.sequential import replay\nfrom audit_core.identify import lattice\n"
            "extra = [callable(replay), callable(lattice), type(replay).__name__, type(lattice).__name__]\n")
    assert _loaded_after(code)["extra"] == [True, True, "function", "function"]
