"""The layering of the package, read from the import statements of every module.

Engine areas import only downward; the engine never imports Streamlit, the CLI, the use-case
layer or the views; views never import the use-case layer; pages import only the use-case layer,
views, report and errors (plus Streamlit and their own page-side modules).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ("errors", "data", "identify", "sequential", "auditing", "measure", "report", "presets", "live", "testbed")
ABOVE_ENGINE = ("audit_core.analyses", "audit_core.views", "audit_core.cli", "audit_core.api")
PAGE_ALLOWED = ("audit_core.analyses", "audit_core.views", "audit_core.report", "audit_core.errors")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def modules_of(area: str) -> list[Path]:
    base = ROOT / "audit_core" / area
    return sorted(base.rglob("*.py")) if base.is_dir() else [base.with_suffix(".py")]


def _starts(name: str, prefixes) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


@pytest.mark.parametrize("path", sorted((ROOT / "audit_core").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_audit_core_never_imports_streamlit(path):
    assert not any(_starts(n, ("streamlit", "pages")) for n in imported_modules(path))


@pytest.mark.parametrize("area", ENGINE)
def test_engine_imports_nothing_above_it(area):
    for path in modules_of(area):
        bad = sorted(n for n in imported_modules(path) if _starts(n, ABOVE_ENGINE))
        assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_views_never_import_the_use_case_layer_or_cli():
    for path in modules_of("views"):
        bad = sorted(n for n in imported_modules(path) if _starts(n, ("audit_core.analyses", "audit_core.cli")))
        assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_use_case_layer_never_imports_the_cli_or_the_api():
    for path in modules_of("analyses"):
        names = imported_modules(path) | _imported_names(path)
        assert not any(_starts(n, ("audit_core.cli", "audit_core.api")) for n in names), path


def _imported_names(path: Path) -> set[str]:
    """``from audit_core import api`` -> ``audit_core.api`` (what imported_modules calls ``audit_core``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return {f"{node.module}.{alias.name}" for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 for alias in node.names}


def _attribute_calls(function: ast.FunctionDef, owner: str) -> set[str]:
    """The ``owner.<name>(...)`` calls in a function body."""
    return {node.func.attr for node in ast.walk(function)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name) and node.func.value.id == owner}


API_COMMANDS = ("identify_cmd", "measure_cmd", "replay_cmd", "simulate_cmd", "report_cmd", "compare_cmd",
                "combine_cmd", "plan_cmd", "testbed_cmd", "audit_cmd")


@pytest.mark.parametrize("name", API_COMMANDS)
def test_cli_commands_call_the_python_api(name):
    # The API is what the command line calls, not a second path: every run function of these
    # commands (or the helper it delegates to) calls audit_core.api.
    path = ROOT / "audit_core" / "cli" / f"{name}.py"
    assert "audit_core.api" in _imported_names(path), name
    tree = ast.parse(path.read_text(encoding="utf-8"))
    functions = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    runs = [f for n, f in functions.items() if n == "run" or n.startswith("run_")]
    assert runs, name
    for run in runs:
        helpers = {c.func.id for c in ast.walk(run) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}
        reached = _attribute_calls(run, "api").union(*(_attribute_calls(functions[h], "api")
                                                        for h in helpers if h in functions))
        assert reached, f"{name}.{run.name} does not call audit_core.api"


def test_every_api_call_goes_through_the_use_case_layer():
    # Each public call of audit_core.api names the analyses use case it runs (or a live action).
    tree = ast.parse((ROOT / "audit_core" / "api.py").read_text(encoding="utf-8"))
    import audit_core.api as api
    functions = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    for name in api.__all__:
        if name not in functions:
            continue  # a result class
        body = functions[name]
        helpers = {c.func.id for c in ast.walk(body) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}
        used = _attribute_calls(body, "analyses") | _attribute_calls(body, "live")
        used |= set().union(*(_attribute_calls(functions[h], "analyses") for h in helpers if h in functions))
        if name == "write_report":  # assembles the sections of results the other calls returned
            continue
        assert used, f"audit_core.api.{name} calls no use case"


def test_import_audit_core_exposes_the_api_lazily():
    import subprocess
    import sys
    code = ("import sys, audit_core; heavy = [m for m in ('numpy', 'pandas', 'scipy', 'ortools', 'streamlit') "
            "if m in sys.modules]; assert not heavy, heavy; assert callable(audit_core.replay); "
            "assert audit_core.replay is __import__('audit_core.api').api.replay; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.stdout.strip() == "ok", out.stderr


@pytest.mark.parametrize("path", sorted((ROOT / "pages").glob("*.py")) + [ROOT / "app.py"],
                         ids=lambda p: p.name)
def test_pages_import_only_the_use_case_layer_views_report_and_errors(path):
    engine = sorted(n for n in imported_modules(path)
                    if _starts(n, ("audit_core",)) and n != "audit_core" and not _starts(n, PAGE_ALLOWED))
    assert not engine, f"{path.name} imports {engine}"


def test_the_layering_test_sees_a_violation(tmp_path):
    # The parser must find a violation where there is one (guards against a vacuous test).
    sample = tmp_path / "page.py"
    sample.write_text("import streamlit as st\nfrom audit_core.data.loader import load_audit_csv\n")
    found = imported_modules(sample)
    assert "audit_core.data.loader" in found and not _starts("audit_core.data.loader", PAGE_ALLOWED)


def test_cli_commands_reach_the_engine_through_the_use_case_layer():
    # Commands that compute something assemble nothing themselves: they import analyses.
    for name in ("identify_cmd", "measure_cmd", "replay_cmd", "simulate_cmd", "report_cmd", "compare_cmd",
                 "combine_cmd", "plan_cmd", "testbed_cmd", "audit_cmd"):
        names = imported_modules(ROOT / "audit_core" / "cli" / f"{name}.py")
        assert "audit_core.analyses" in names or "audit_core" in names, name
        assert not any(_starts(n, ("audit_core.views",)) for n in names), name


# ------------------------------------------------------------------------------ no import cycle

def _module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")


def _package_exports(root: Path, package: str, init: Path) -> dict[str, str]:
    """name -> the module that defines it, for the names a package exports lazily: its ``.pyi``
    stub's imports, its ``TYPE_CHECKING`` imports, or an ``_EXPORTS`` table (submodule -> names)."""
    found: dict[str, str] = {}
    for source in (init.with_suffix(".pyi"), init):
        if not source.exists():
            continue
        tree = ast.parse(source.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = _absolute(package, True, node)
                for alias in node.names:
                    found.setdefault(alias.asname or alias.name, base)
            elif isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "_EXPORTS" for t in node.targets):
                for sub, names in ast.literal_eval(node.value).items():
                    for name in names:
                        found.setdefault(name, sub if "." in sub else f"{package}.{sub}")
    return found


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module if is_package else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        base = base.rpartition(".")[0]
    return f"{base}.{node.module}" if node.module else base


def import_graph(root: Path, top: str = "audit_core") -> dict[str, set[str]]:
    """module -> the modules it imports, anywhere in its body (a function's import is an edge too).

    ``from package import name`` is an edge to the submodule ``name`` or to the module the package
    takes ``name`` from; a package's lazy exports (stub, ``TYPE_CHECKING``) are no edges of its own.
    """
    paths = {_module_name(root, p): p for p in sorted((root / top).rglob("*.py"))}
    exports = {m: _package_exports(root, m, p) for m, p in paths.items() if p.name == "__init__.py"}

    def targets(module: str, node) -> set[str]:
        if isinstance(node, ast.Import):
            return {a.name for a in node.names if a.name in paths}
        base = _absolute(module, paths[module].name == "__init__.py", node)
        out = set()
        for alias in node.names:
            if f"{base}.{alias.name}" in paths:
                out.add(f"{base}.{alias.name}")
            elif alias.name in exports.get(base, {}):
                out.add(exports[base][alias.name])
            elif base in paths:
                out.add(base)
        return out

    def imports(module: str, nodes) -> set[str]:
        found = set()
        for node in nodes:
            if _is_type_checking(node):
                continue
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                found |= targets(module, node)
            found |= imports(module, ast.iter_child_nodes(node))
        return found

    return {m: imports(m, ast.parse(p.read_text(encoding="utf-8")).body) - {m} for m, p in paths.items()}


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return cycles


def test_audit_core_has_no_import_cycle():
    graph = import_graph(ROOT)
    assert len(graph) > 100 and graph["audit_core.analyses.live"]     # the whole package was read
    assert import_cycles(graph) == []


def test_the_cycle_check_finds_a_deliberate_cycle(tmp_path):
    # A temporary package: a imports b at module level, b imports a inside a function (the shape
    # of the cycles removed in issue 30), c imports a's lazy export through the package.
    package = tmp_path / "audit_core"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text('_EXPORTS = {"a": ("helper",)}\n')
    (package / "sub" / "a.py").write_text("from audit_core.sub.b import thing\n\ndef helper():\n    return thing\n")
    (package / "sub" / "b.py").write_text("def thing():\n    from audit_core.sub.a import helper\n    return helper\n")
    (package / "sub" / "c.py").write_text("from audit_core.sub import helper\n")
    graph = import_graph(tmp_path)
    assert graph["audit_core.sub.c"] == {"audit_core.sub.a"}
    assert import_cycles(graph) == [["audit_core.sub.a", "audit_core.sub.b"]]
    (package / "sub" / "b.py").write_text("def thing():\n    return 1\n")      # the cycle removed
    assert import_cycles(import_graph(tmp_path)) == []
