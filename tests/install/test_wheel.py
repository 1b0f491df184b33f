"""Issue 29 item 4: the built wheel, installed into a fresh virtual environment and used from another
folder, finds its bundled data and starts the dashboard.

The wheel is built from a copy of the project's files (no build/ or egg-info in the checkout) without
build isolation (no download; setuptools >= 70.1 from requirements/test.txt). The fresh venv has no
pip and no packages of its own: a ``.pth`` file lists this interpreter's site-packages, so the
dependencies are not downloaded again, while the venv's own site-packages, holding only the wheel,
comes first on ``sys.path`` (a ``.pth`` line adds a folder, it does not run that folder's ``.pth``
files, so an editable install of the checkout there stays inactive); every command asserts it ran
the installed copy, from a temporary folder, with no PYTHONPATH.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import socket
import subprocess
import sys
import time
import tomllib
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# What the sdist would hold: the package, the dashboard, the data and what the build reads.
PROJECT_FILES = ("pyproject.toml", "README.md", "requirements", "audit_core", "app.py", "pages", "data",
                 ".streamlit/config.toml")


def test_packages_listed_in_pyproject_are_audit_cores_folders():
    """pyproject.toml lists its packages (the root is mapped to audit_core.app): a new subpackage
    must be listed, or the wheel would lack it."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    on_disk = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "audit_core").rglob("__init__.py")}
    assert listed == on_disk | {"audit_core.app"}


def _setuptools_builds_wheels() -> bool:
    try:
        import setuptools
    except ImportError:
        return False
    return tuple(int(x) for x in setuptools.__version__.split(".")[:2]) >= (70, 1)


def _copy_project(target: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in PROJECT_FILES:
        source = ROOT / name
        if not source.exists():
            continue
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=ignore)
        else:
            shutil.copy2(source, target / name)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(venv bin folder, environment, working folder) with the wheel installed."""
    if not _setuptools_builds_wheels():
        pytest.skip("building the wheel offline needs setuptools >= 70.1 (requirements/test.txt)")
    base = tmp_path_factory.mktemp("wheel")
    source, dist, venv, work = base / "source", base / "dist", base / "venv", base / "elsewhere"
    _copy_project(source)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "-w", str(dist), str(source)], check=True, capture_output=True, timeout=120)
    wheel = next(dist.glob("evaluation_audit_workbench-*.whl"))
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60)
    python = venv / "bin" / "python"
    venv_site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                    check=True, capture_output=True, text=True).stdout.strip())
    (venv_site / "_outer_site.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "AUDIT_DATA_DIR")}
    env["AUDIT_HOME"] = str(base / "home")
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", str(wheel)],
                   check=True, capture_output=True, timeout=120, env=env)
    work.mkdir()
    shown = subprocess.run([str(python), "-c", "import audit_core; print(audit_core.__file__)"], cwd=work, env=env,
                           check=True, capture_output=True, text=True).stdout.strip()
    assert Path(shown).is_relative_to(venv_site), shown   # the installed copy, not the checkout
    return venv / "bin", env, work


def _cli(installed, *argv, timeout=120):
    bin_dir, env, work = installed
    done = subprocess.run([str(bin_dir / "audit-workbench"), *argv], cwd=work, env=env, capture_output=True,
                          text=True, timeout=timeout)
    assert done.returncode == 0, (argv, done.stderr[-2000:])
    return done.stdout


@pytest.mark.slow
def test_installed_wheel_reads_bundled_names_from_another_folder(installed):
    for name in ("sdoh", "recorded_run"):
        payload = json.loads(_cli(installed, "replay", name, "--json"))
        assert payload["n"] > 0 and payload["decision"]["decision"], name


@pytest.mark.slow
def test_installed_wheel_measures_the_example_and_starts_an_audit(installed):
    measured = json.loads(_cli(installed, "measure", "example", "--bootstrap", "20", "--json"))
    assert {m["model"] for m in measured["models"]} == {"synthetic-model-A", "synthetic-model-B"}
    _, _, work = installed
    started = json.loads(_cli(installed, "audit", "new", "--pool", "sdoh", "--db", str(work / "audits.sqlite"),
                              "--json"))
    assert started["audit_id"] >= 1 and started["pool"] == "sdoh"


@pytest.mark.slow
def test_installed_dashboard_entry_point_starts_and_runs_the_app(installed):
    bin_dir, env, work = installed
    port = _free_port()
    server = subprocess.Popen([str(bin_dir / "audit-workbench"), "app", "--port", str(port), "--address", "127.0.0.1",
                               "--", "--server.headless", "true", "--server.scriptHealthCheckEnabled", "true"],
                              cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                # Runs app.py once in a headless session: "ok" only when the packaged app and its
                # first page ran without an exception.
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/script-health-check", timeout=60) as r:
                    status, body = r.status, r.read().decode()
                break
            except OSError:
                assert server.poll() is None, server.stdout.read()[-2000:]
                assert time.monotonic() < deadline, "the dashboard did not answer within 60 s"
                time.sleep(0.5)
        assert (status, body) == (200, "ok")
    finally:
        server.terminate()
        server.wait(timeout=20)


def test_app_command_runs_streamlit_on_the_project_app():
    from audit_core.cli import build_parser
    from audit_core.cli.app_cmd import streamlit_argv

    args = build_parser().parse_args(["app", "--port", "8600", "--", "--server.headless", "true"])
    argv = streamlit_argv(args)
    assert argv[:2] == ["streamlit", "run"] and Path(argv[2]) == ROOT / "app.py"
    assert argv[3:] == ["--server.headless", "true", "--server.port", "8600"]
