"""A real PostgreSQL for the live-audit tests (issue 35), and the ``db`` fixture over both stores.

``postgres`` (session): Debian's server binaries (``/usr/lib/postgresql/*/bin``) run ``initdb`` into
a temporary directory and start ``postgres`` listening only on a Unix socket in it
(``listen_addresses=''``): no system service, no TCP port. initdb refuses to run as root, so under
root (CI's fresh container) the cluster is owned by ``nobody`` (``runuser``). Without the binaries
the PostgreSQL tests skip with the reason; with ``AUDIT_REQUIRE_POSTGRES=1`` (set by ``.ci/run``)
or ``CI=true`` they fail instead.

``db``: a fresh workspace per test, a SQLite file or a PostgreSQL URL (one new database per test).
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass

import pytest

PG_PASSWORD = "s3cret-Pw"   # the role ``auditpw`` (wrong-credentials tests); never a real secret


def _require_postgres() -> bool:
    return os.environ.get("AUDIT_REQUIRE_POSTGRES") == "1" or os.environ.get("CI", "").lower() == "true"


def _bin_dir() -> str | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return os.path.dirname(found[-1])
    initdb = shutil.which("initdb")
    return os.path.dirname(initdb) if initdb else None


@dataclass
class PgServer:
    """A running test cluster: ``socket_dir``, ``user`` (its superuser), ``bin_dir``, ``data``."""

    socket_dir: str
    user: str
    bin_dir: str
    data: str
    as_user: list

    def url(self, database: str = "postgres", user: str | None = None, password: str | None = None) -> str:
        auth = (user or self.user) + (f":{password}" if password else "")
        return f"postgresql://{auth}@/{database}?host={self.socket_dir}"

    def admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(sql)

    def pg_ctl(self, *args: str) -> None:
        subprocess.run([*self.as_user, f"{self.bin_dir}/pg_ctl", "-D", self.data, "-w", "-s", *args],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)

    def stop(self) -> None:
        self.pg_ctl("stop", "-m", "fast")

    def start(self) -> None:
        self.pg_ctl("start", "-l", f"{self.data}/server.log",
                    "-o", f"-c listen_addresses='' -k {self.socket_dir} -c fsync=on")


def _start_cluster() -> PgServer:
    bin_dir = _bin_dir()
    if bin_dir is None:
        raise RuntimeError("PostgreSQL server binaries (initdb, postgres) not found: apt-get install postgresql")
    try:
        import psycopg  # noqa: F401
    except ImportError as exc:
        raise RuntimeError(f"psycopg not importable ({exc})") from None
    root = tempfile.mkdtemp(prefix="auditpg")
    as_user: list = []
    user = os.environ.get("USER") or "postgres"
    if os.geteuid() == 0:   # initdb refuses root: the cluster belongs to nobody
        as_user, user = ["runuser", "-u", "nobody", "--"], "nobody"
        os.chmod(root, 0o755)
        shutil.chown(root, "nobody")
    else:
        import getpass
        user = getpass.getuser()
    data, sock = f"{root}/data", root
    subprocess.run([*as_user, f"{bin_dir}/initdb", "-D", data, "-U", user, "--auth=trust", "-E", "UTF8",
                    "--no-instructions"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)
    # the password role is checked (scram), everyone else is trusted on the private socket
    with open(f"{data}/pg_hba.conf", "w") as hba:
        hba.write("local all auditpw scram-sha-256\nlocal all all trust\n")
    server = PgServer(sock, user, bin_dir, data, as_user)
    server.start()
    server.admin(f"CREATE ROLE auditpw LOGIN PASSWORD '{PG_PASSWORD}'")
    server.admin("CREATE DATABASE auditpw OWNER auditpw")
    return server


@pytest.fixture(scope="session")
def postgres():
    """The session's PostgreSQL server (skips, or fails in CI, without it)."""
    try:
        server = _start_cluster()
    except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
        detail = getattr(exc, "stderr", None)
        reason = f"PostgreSQL tests need a local server: {exc}" + (f" ({detail.decode()[-300:]})" if detail else "")
        if _require_postgres():
            pytest.fail(reason + " [required: AUDIT_REQUIRE_POSTGRES=1 / CI=true]")
        pytest.skip(reason)
    yield server
    try:
        server.stop()
    except subprocess.SubprocessError:
        pass
    shutil.rmtree(os.path.dirname(server.data), ignore_errors=True)


_numbers = itertools.count()


def fresh_database(server: PgServer) -> str:
    """A new empty database on ``server`` and its URL."""
    name = f"t{os.getpid()}_{next(_numbers)}_{int(time.time() * 1000) % 100000}"
    server.admin(f"CREATE DATABASE {name} TEMPLATE template0")
    return server.url(name)


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request, tmp_path):
    """A fresh workspace: a SQLite file path, or a PostgreSQL URL of a new database."""
    if request.param == "sqlite":
        return tmp_path / "workspace.sqlite"
    return fresh_database(request.getfixturevalue("postgres"))


@pytest.fixture
def pg_url(postgres):
    """A fresh PostgreSQL workspace URL (the tests that are PostgreSQL's alone)."""
    return fresh_database(postgres)
