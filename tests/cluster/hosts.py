"""Hosts for the cluster test, each a network namespace on one bridge (``ip netns``, as root).

An edge with HAProxy; web hosts, each with its Daphne processes and a Celery worker; a data host
with PostgreSQL behind PgBouncer (transaction pooling) and Redis. The test's own process is on
the bridge too, as the players' side of the internet. Everything started here, and every
namespace and link, is removed by ``Cluster.close`` whatever happened before.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

from durak_site.ops import embedded, launcher
from durak_site.ops.haproxy import haproxy_config

BASE_DIR = Path(__file__).resolve().parents[2]
# The Debian packages the test needs, by the command each provides.
PACKAGES = {command: launcher.TEST_TOOLS[command] for command in ("haproxy", "pgbouncer")}
EDGE_PORT = 8000
WEB_PORT = 8001
PG_PORT = 5432
BOUNCER_PORT = 6432
REDIS_PORT = 6379
DATABASE = "durak"


def missing_tools() -> list[str]:
    """The Debian packages of the tools not installed; installs them first when root."""
    missing = [package for command, package in PACKAGES.items() if not shutil.which(command)]
    if missing and os.geteuid() == 0 and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "install", "-y", "-qq", *missing], env=env, check=False)
        missing = [package for command, package in PACKAGES.items() if not shutil.which(command)]
    return missing


def _run(*command: str) -> None:
    subprocess.run(command, check=True, capture_output=True)


@dataclass
class Host:
    """One namespace: its name, its address on the bridge, and the processes started in it."""

    namespace: str
    address: str
    link: str
    processes: list[subprocess.Popen] = field(default_factory=list)

    def start(
        self, name: str, command: list[str], logs: Path, env: dict[str, str] | None = None
    ) -> subprocess.Popen:
        with open(logs / f"{self.namespace}-{name}.log", "ab") as log:
            process = subprocess.Popen(
                ["ip", "netns", "exec", self.namespace, *command],
                cwd=BASE_DIR,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.processes.append(process)
        return process

    def kill(self) -> None:
        """Every process of the host dies at once, as when its machine fails."""
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
        for process in self.processes:
            process.wait()


def _as_server_account(command: list[str]) -> list[str]:
    """PostgreSQL and PgBouncer refuse to run as root: they run as the embedded server's
    unprivileged account (``durak_site.ops.embedded``)."""
    return ["runuser", "-u", embedded.PG_SYSTEM_USER, "--", *command]


def wait_for(address: str, port: int, process: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args[3:]} exited with code {process.returncode}")
        with socket.socket() as probe:
            probe.settimeout(0.5)
            if probe.connect_ex((address, port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on {address}:{port}")


class Cluster:
    """The hosts on one bridge, in their own /24; ``close`` removes all of it."""

    def __init__(self, logs: Path, web_hosts: int = 2, web_processes: int = 2) -> None:
        self.logs = logs
        self.web_processes = web_processes
        tag = secrets.token_hex(2)
        self.bridge = f"dkb{tag}"
        subnet = f"10.{200 + int(tag[:2], 16) % 50}.{int(tag[2:], 16)}"
        self.gateway = f"{subnet}.1"
        names = ["edge", *(f"web{number}" for number in range(1, web_hosts + 1)), "data"]
        self.hosts = {
            name: Host(f"dk{tag}-{name}", f"{subnet}.{10 + number}", f"dk{tag}{name[0]}{number}")
            for number, name in enumerate(names)
        }
        self.web = [self.hosts[name] for name in names if name.startswith("web")]
        self.edge, self.data = self.hosts["edge"], self.hosts["data"]
        self.url = f"http://{self.edge.address}:{EDGE_PORT}"
        self.database_url = f"postgres://durak@{self.data.address}:{PG_PORT}/{DATABASE}"
        self.pooled_database_url = f"postgres://durak@{self.data.address}:{BOUNCER_PORT}/{DATABASE}"
        self.redis_url = f"redis://{self.data.address}:{REDIS_PORT}/0"
        self.data_dir = logs / "data"

    # --- the network ----------------------------------------------------------------------

    def build_network(self) -> None:
        _run("ip", "link", "add", self.bridge, "type", "bridge")
        _run("ip", "addr", "add", f"{self.gateway}/24", "dev", self.bridge)
        _run("ip", "link", "set", self.bridge, "up")
        for host in self.hosts.values():
            _run("ip", "netns", "add", host.namespace)
            _run(
                "ip",
                "link",
                "add",
                host.link,
                "type",
                "veth",
                "peer",
                "name",
                "eth0",
                "netns",
                host.namespace,
            )
            _run("ip", "link", "set", host.link, "master", self.bridge, "up")
            _run("ip", "-n", host.namespace, "addr", "add", f"{host.address}/24", "dev", "eth0")
            _run("ip", "-n", host.namespace, "link", "set", "eth0", "up")
            _run("ip", "-n", host.namespace, "link", "set", "lo", "up")

    def cut(self, host: Host) -> None:
        """The host is cut off, mid-transaction maybe, and then dies: nothing it had open
        is closed on the other hosts' side."""
        _run("ip", "link", "set", host.link, "down")
        host.kill()

    def close(self) -> None:
        for host in self.hosts.values():
            host.kill()
        for host in self.hosts.values():
            subprocess.run(["ip", "netns", "del", host.namespace], capture_output=True)
            subprocess.run(["ip", "link", "del", host.link], capture_output=True)
        subprocess.run(["ip", "link", "del", self.bridge], capture_output=True)

    # --- the data host --------------------------------------------------------------------

    def start_data(self) -> None:
        data = self.data_dir
        data.mkdir(parents=True)
        shutil.chown(data, embedded.PG_SYSTEM_USER, embedded.PG_SYSTEM_USER)
        _make_traversable(data)
        initdb = [embedded.pg_bin("initdb"), "-D", str(data / "pg"), "-U", "durak", "-E", "UTF8"]
        subprocess.run(
            _as_server_account([*initdb, "--auth=trust"]), check=True, capture_output=True
        )
        with open(data / "pg" / "pg_hba.conf", "a") as hba:
            hba.write(f"host all all {self.gateway}/24 trust\n")
        postgres = self.data.start(
            "postgres",
            _as_server_account(
                [embedded.pg_bin("postgres"), "-D", str(data / "pg"), "-k", str(data)]
                + ["-c", f"listen_addresses=127.0.0.1,{self.data.address}", "-c", "fsync=off"]
                + ["-c", "max_connections=200", "-p", str(PG_PORT)]
            ),
            self.logs,
        )
        wait_for(self.data.address, PG_PORT, postgres)
        server = f"postgres://durak@{self.data.address}:{PG_PORT}/postgres"
        with psycopg.connect(server, autocommit=True) as connection:
            connection.execute(f"CREATE DATABASE {DATABASE}")
        (data / "users.txt").write_text('"durak" ""\n')
        (data / "pgbouncer.ini").write_text(
            f"""[databases]
{DATABASE} = host=127.0.0.1 port={PG_PORT} dbname={DATABASE}

[pgbouncer]
listen_addr = {self.data.address}
listen_port = {BOUNCER_PORT}
unix_socket_dir =
auth_type = trust
auth_file = {data / "users.txt"}
pool_mode = transaction
; A web host cut off mid-transaction holds its rows' locks no longer than this.
idle_transaction_timeout = 2
max_client_conn = 2000
default_pool_size = 40
ignore_startup_parameters = extra_float_digits,options
"""
        )
        for path in data.iterdir():
            if path.is_file():
                shutil.chown(path, embedded.PG_SYSTEM_USER, embedded.PG_SYSTEM_USER)
        bouncer = self.data.start(
            "pgbouncer",
            _as_server_account([shutil.which("pgbouncer"), str(data / "pgbouncer.ini")]),
            self.logs,
        )
        redis = self.data.start(
            "redis",
            [embedded._redis_server(), "--bind", self.data.address, "--port", str(REDIS_PORT)]
            + ["--save", "", "--appendonly", "no", "--protected-mode", "no"],
            self.logs,
        )
        wait_for(self.data.address, BOUNCER_PORT, bouncer)
        wait_for(self.data.address, REDIS_PORT, redis)

    # --- the web hosts and the edge -------------------------------------------------------

    def site_env(self, **overrides: str) -> dict[str, str]:
        """The environment of every process of the site: through PgBouncer to the database
        (Django with server-side cursors and prepared statements off), one proxy in front."""
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("EMBEDDED_", "DATABASE_", "REDIS_", "DJANGO_", "PYTEST"))
        }
        return {
            **env,
            "DJANGO_SETTINGS_MODULE": "durak_site.settings",
            "DEBUG": "1",
            "DATABASE_URL": self.pooled_database_url,
            "DB_PGBOUNCER": "1",
            "REDIS_URL": self.redis_url,
            "ALLOWED_HOSTS": self.edge.address,
            "TRUSTED_PROXY_COUNT": "1",
            "NIGHTLY_BACKUP_AT": "off",
            # Every player comes from the test's one address.
            "SOCKET_ADDRESS_OPENS_PER_SECOND": "1000",
            "SOCKET_ADDRESS_RATE_PER_SECOND": "10000",
            **overrides,
        }

    def start_web(self) -> None:
        env = self.site_env()
        started = []
        for host in self.web:
            for number in range(self.web_processes):
                port = WEB_PORT + number
                command = [str(launcher.BIN / "daphne"), "-v", "0"]
                command += launcher.proxy_arguments(env)
                command += ["-b", host.address, "-p", str(port), "durak_site.asgi:application"]
                started.append((host, port, host.start(f"daphne-{port}", command, self.logs, env)))
            host.start("worker", launcher.worker_command(), self.logs, env)
        for host, port, process in started:
            wait_for(host.address, port, process)

    def web_servers(self) -> list[str]:
        return [
            f"{host.address}:{WEB_PORT + number}"
            for host in self.web
            for number in range(self.web_processes)
        ]

    def start_edge(self) -> None:
        config = self.logs / "haproxy.cfg"
        config.write_text(haproxy_config(f"{self.edge.address}:{EDGE_PORT}", self.web_servers()))
        process = self.edge.start("haproxy", ["haproxy", "-db", "-f", str(config)], self.logs)
        wait_for(self.edge.address, EDGE_PORT, process)

    def python(self, *args: str, pooled: bool = True) -> str:
        """``python`` with `args` (a ``manage.py`` command, a module) on the site's settings,
        from the test's side of the bridge; what it printed."""
        env = self.site_env(
            **({} if pooled else {"DATABASE_URL": self.database_url, "DB_PGBOUNCER": "0"})
        )
        finished = subprocess.run(
            [sys.executable, *args],
            cwd=BASE_DIR,
            env=env,
            capture_output=True,
            text=True,
        )
        assert finished.returncode == 0, finished.stdout + finished.stderr
        return finished.stdout


def _make_traversable(path: Path) -> None:
    for parent in path.parents:
        parent.chmod(parent.stat().st_mode | 0o001)
