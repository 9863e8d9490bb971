"""Start the whole platform, or the test suite, on one machine.

``python -m durak_site.ops.launcher run``
    services, migrations, one Daphne process per core (WEB_PROCESSES) on one shared listening
    socket (or, with ``WEB_PROXY=haproxy``, each on a port of its own behind HAProxy, which
    sends each table to one process),
    Celery worker and beat, the metrics server (and Prometheus and Grafana when installed),
    each restarted (with backoff) when it dies
``python -m durak_site.ops.launcher setup``
    the tests' system tools (Chromium, Prometheus, LibreOffice Calc, Poppler) from Debian's
    packages
``python -m durak_site.ops.launcher test``
    the script unit tests (node --test), then services and pytest (``--quick``: without the
    server, browser, resilience and slow tests)

Called by the ``dev`` script after it has prepared the virtual environment.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from durak_site.ops import alternatives, backups, embedded, haproxy, monitoring
from durak_site.ops.json_logs import JsonFormatter
from durak_site.ops.translations import compile_catalogs

BASE_DIR = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
# Connections waiting to be accepted: a crowd of sockets opening at once must not be turned away.
LISTEN_BACKLOG = 2048
# Behind HAProxy (WEB_PROXY=haproxy), the web processes listen on loopback ports from PORT + this.
WEB_PORT_OFFSET = 100
WORKER_CONCURRENCY = 2


logger = logging.getLogger("durak_site.ops.launcher")


def _log_for(command: str) -> None:
    """A run's lines are JSON like its children's (durak_site.ops.json_logs); the one-off commands
    speak to the person at the terminal in plain lines."""
    handler = logging.StreamHandler(sys.stdout)
    if command == "run":
        handler.setFormatter(JsonFormatter(role="launcher"))
    else:
        handler.setFormatter(logging.Formatter("[durak] %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[handler], force=True)


def _say(message: str) -> None:
    logger.info(message)


def _manage(*args: str) -> None:
    """Run a manage.py command; what it prints becomes the launcher's log lines."""
    finished = subprocess.run(
        [sys.executable, str(BASE_DIR / "manage.py"), *args], capture_output=True, text=True
    )
    for line in (finished.stdout + finished.stderr).splitlines():
        if line.strip():
            logger.log(logging.INFO if finished.returncode == 0 else logging.ERROR, line)
    finished.check_returncode()


def _start_services() -> embedded.StartResult:
    """The environment and servers every command shares: settings, embedded servers, catalogs."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "durak_site.settings")
    os.environ.setdefault("DEBUG", "1")
    started = embedded.start()
    if started.postgres_started or started.redis_started:
        _say("embedded PostgreSQL and Redis are running (data under var/)")
    compile_catalogs(BASE_DIR)
    return started


def _prepare(*, migrate: bool) -> embedded.StartResult:
    started = _start_services()
    try:
        # Migrating first: a database that is unreachable or not the platform's stops us early.
        if migrate:
            _manage("migrate", "--noinput", "-v", "0")
        _manage("collectstatic", "--noinput", "-v", "0")
    except subprocess.CalledProcessError:
        _stop_embedded(started)
        raise
    return started


def _stop_embedded(started: embedded.StartResult) -> None:
    # Servers that were already running belong to someone else: leave them.
    if started.postgres_started or started.redis_started:
        embedded.stop(postgres=started.postgres_started, redis=started.redis_started)
        _say("embedded services stopped")


def _stop_processes(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + 15
    for process in processes:
        try:
            process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def web_processes() -> int:
    """How many web processes ``run`` starts: ``WEB_PROCESSES``, else one per core."""
    return max(1, int(os.environ.get("WEB_PROCESSES") or os.cpu_count() or 1))


def web_process_name(number: int) -> str:
    """The name ``run`` gives its `number`th web process (from 1)."""
    return f"daphne-{number}"


def listening_socket(host: str, port: int) -> socket.socket:
    """The one listening socket every Daphne process accepts from (the kernel shares the work).

    IPv4 only: Daphne adopts an inherited socket as an IPv4 one.
    """
    listener = socket.create_server((host, port), backlog=LISTEN_BACKLOG)
    listener.set_inheritable(True)
    return listener


def daphne_command(listener: socket.socket) -> list[str]:
    fd = str(listener.fileno())
    # Verbosity 0: no plain access lines (durak_site.ops.json_logs writes them as JSON).
    return [str(BIN / "daphne"), "-v", "0", "--fd", fd, *proxy_arguments(os.environ)] + [
        "durak_site.asgi:application"
    ]


def proxy_arguments(env: Mapping[str, str]) -> list[str]:
    """Daphne's options for running behind TRUSTED_PROXY_COUNT reverse proxies: the client's
    address (and scheme) then come from the proxy's X-Forwarded-* headers."""
    return ["--proxy-headers"] if int(env.get("TRUSTED_PROXY_COUNT", "0")) > 0 else []


# A child that crashes again soon after a restart waits longer each time, up to the limit; one
# that ran this long counts as healthy again.
RESTART_DELAYS = (0.5, 1.0, 2.0, 5.0, 10.0, 30.0)
HEALTHY_AFTER_SECONDS = 60.0
POLL_SECONDS = 0.3


class Backoff:
    """When the next restart of one supervised thing may happen, after repeated failures."""

    def __init__(self) -> None:
        self.failures = 0
        self.next_at = 0.0
        self.up_since = time.monotonic()

    def failed(self, now: float) -> float:
        """Record a failure at `now`; returns the delay before the next attempt."""
        if now - self.up_since >= HEALTHY_AFTER_SECONDS:
            self.failures = 0
        delay = RESTART_DELAYS[min(self.failures, len(RESTART_DELAYS) - 1)]
        self.failures += 1
        self.next_at = now + delay
        return delay

    def due(self, now: float) -> bool:
        return now >= self.next_at

    def started(self, now: float) -> None:
        self.up_since = now


class Child:
    """One supervised process of the platform, in its own process group."""

    def __init__(
        self,
        name: str,
        command: list[str],
        pass_fds: tuple[int, ...],
        env: Mapping[str, str] | None = None,
        log_path: Path | None = None,
    ) -> None:
        self.name, self.command, self.pass_fds = name, command, pass_fds
        self.env = {**os.environ, **env} if env else None
        self.log_path = log_path
        self.process: subprocess.Popen | None = None
        self.backoff = Backoff()

    def start(self) -> None:
        output = open(self.log_path, "ab") if self.log_path else None  # noqa: SIM115
        try:
            # Leading its own process group, so that stopping it takes its children too.
            self.process = subprocess.Popen(
                self.command,
                cwd=BASE_DIR,
                start_new_session=True,
                pass_fds=self.pass_fds,
                env=self.env,
                stdout=output,
                stderr=output,
            )
        finally:
            if output:
                output.close()
        self.backoff.started(time.monotonic())
        _say(f"{self.name} started (pid {self.process.pid})")

    def check(self, now: float) -> None:
        """Restart the process once it has exited and its backoff has passed."""
        if self.process is not None and self.process.poll() is not None:
            monitoring.process_ended(self.process.pid)
            delay = self.backoff.failed(now)
            _say(f"{self.name} exited with code {self.process.returncode}; restart in {delay:g} s")
            # What it left behind (a worker's pool processes) must not go on beside the new one.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process = None
        if self.process is None and self.backoff.due(now):
            self.start()


class EmbeddedServers:
    """The embedded PostgreSQL and Redis this run started: started again when one stops
    answering, and stopped at the end. Servers that were already running belong to someone
    else, who looks after them."""

    def __init__(self, started: embedded.StartResult) -> None:
        self.postgres, self.redis = started.postgres_started, started.redis_started
        self.backoff = Backoff()

    def check(self, now: float) -> None:
        status = embedded.status()
        down = [
            name
            for name, ours in (("postgres", self.postgres), ("redis", self.redis))
            if ours and not status[name]
        ]
        if not down or not self.backoff.due(now):
            return
        _say(f"embedded {' and '.join(down)} not answering; starting again")
        try:
            embedded.start(postgres="postgres" in down, redis="redis" in down)
        except Exception as error:  # noqa: BLE001 - any failure is retried after the backoff
            delay = self.backoff.failed(now)
            _say(f"embedded {' and '.join(down)} did not start ({error}); retry in {delay:g} s")
        else:
            self.backoff.failed(now)  # repeated crashes wait longer before the next start
            _say(f"embedded {' and '.join(down)} running again")


def worker_command() -> list[str]:
    """The Celery worker's command."""
    # Quiet: no start-up banner; it logs as JSON lines (durak_site.celery).
    return [str(BIN / "celery"), "-A", "durak_site", "--quiet", "worker"] + [
        "-c",
        str(WORKER_CONCURRENCY),
    ]


def web_listeners(host: str, port: int) -> tuple[list[socket.socket], Path | None]:
    """Each web process's listening socket, and HAProxy's configuration when it stands in
    front (WEB_PROXY=haproxy): then HAProxy listens at `host`:`port` and each process on a
    loopback port of its own, from `port` + WEB_PORT_OFFSET + 1 on. Otherwise every process
    gets the same socket at `host`:`port`."""
    count = web_processes()
    if alternatives.WEB_PROXY.chosen() != "haproxy":
        return [listening_socket(host, port)] * count, None
    listeners = [
        listening_socket("127.0.0.1", port + WEB_PORT_OFFSET + number)
        for number in range(1, count + 1)
    ]
    config = embedded.VAR_DIR / "haproxy.cfg"
    servers = [f"127.0.0.1:{listener.getsockname()[1]}" for listener in listeners]
    config.write_text(haproxy.haproxy_config(f"{host}:{port}", servers))
    return listeners, config


def platform_commands(
    listeners: list[socket.socket], proxy_config: Path | None = None
) -> dict[str, list[str]]:
    """The command of each process ``run`` keeps running, by name: a web process on each
    listening socket (`listeners`, from web_listeners), and HAProxy with `proxy_config`."""
    commands = {
        web_process_name(number): daphne_command(listener)
        for number, listener in enumerate(listeners, 1)
    }
    if proxy_config is not None:
        commands["haproxy"] = ["haproxy", "-db", "-f", str(proxy_config)]
    commands["worker"] = worker_command()
    commands["beat"] = [
        str(BIN / "celery"),
        "-A",
        "durak_site",
        "--quiet",
        "beat",
        "-s",
        str(embedded.VAR_DIR / "celerybeat-schedule"),
    ]
    commands["metrics"] = [sys.executable, str(BASE_DIR / "manage.py"), "serve_metrics"]
    return commands | monitoring.tool_commands(embedded.VAR_DIR, monitoring.metrics_address())


def run() -> int:
    try:
        chosen = {item.variable: item.chosen() for item in alternatives.EVERY_ALTERNATIVE}
    except ValueError as error:
        _say(str(error))
        return 2
    started = _prepare(migrate=True)
    _manage("create_first_admin")
    host = os.environ.get("HOST", "127.0.0.1")
    port = os.environ.get("PORT", "8000")
    if alternatives.WEB_PROXY.chosen() == "haproxy":
        if not shutil.which("haproxy"):
            _say("WEB_PROXY=haproxy needs HAProxy (Debian's haproxy package)")
            return 2
        # One more proxy in front: the client's address is the first X-Forwarded-For entry.
        proxies = int(os.environ.get("TRUSTED_PROXY_COUNT", "0")) + 1
        os.environ["TRUSTED_PROXY_COUNT"] = str(proxies)
    # Kept open here as well, so that a restarted web process accepts from the same socket;
    # while none runs, new connections wait in its backlog.
    listeners, proxy_config = web_listeners(host, int(port))
    # Every process writes its metrics there; those of the last run count no more.
    metrics_dir = embedded.VAR_DIR / "metrics"
    monitoring.prepare_directory(metrics_dir)
    os.environ[monitoring.DIRECTORY_VARIABLE] = str(metrics_dir)
    commands = platform_commands(listeners, proxy_config)
    web = [web_process_name(number) for number in range(1, web_processes() + 1)]
    children = [
        Child(
            name,
            commands[name],
            (listeners[slot].fileno(),),
            {"DURAK_ROLE": "web"},
        )
        for slot, name in enumerate(web)
    ] + [
        # Prometheus and Grafana write logs of their own format: to their own files, so that
        # the run's log stays JSON lines.
        Child(name, command, (), {"DURAK_ROLE": name}, monitoring.tool_log(embedded.VAR_DIR, name))
        for name, command in commands.items()
        if name not in web
    ]
    servers = EmbeddedServers(started)
    stop_requested = False

    def request_stop(signum, frame) -> None:
        nonlocal stop_requested
        stop_requested = True

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    if proxy_config is None:
        _say(f"{web_processes()} web process(es) share the listening socket")
    else:
        _say(f"HAProxy routes to {web_processes()} web process(es), each on a port of its own")
    _say("engines: " + " ".join(f"{name}={value}" for name, value in chosen.items()))
    try:
        for child in children:
            child.start()
        _say(f"the platform is up at http://{host}:{port}/  (admin: /admin/)  Ctrl-C stops it")
        _say(f"metrics for Prometheus at http://{monitoring.metrics_address()}/metrics")
        if "prometheus" in commands:
            _say(f"Prometheus at http://{monitoring.PROMETHEUS_ADDRESS}/")
        if "grafana" in commands:
            _say(f"Grafana at http://127.0.0.1:{monitoring.GRAFANA_PORT}/")
        while not stop_requested:
            now = time.monotonic()
            servers.check(now)
            for child in children:
                child.check(now)
            time.sleep(POLL_SECONDS)
    finally:
        _say("stopping ...")
        _stop_processes([child.process for child in children if child.process is not None])
        for listener in set(listeners):
            listener.close()
        _stop_embedded(started)
    return 0


# The tests' system tools, by the command they provide and the Debian package that has it: the
# browser tests' Chromium, Prometheus for the alert-rule and dashboard checks, LibreOffice Calc
# and Poppler for the check that the spreadsheet exports open in an office program, HAProxy and
# PgBouncer for the cluster test.
TEST_TOOLS = {
    "chromium": "chromium",
    "promtool": "prometheus",
    "soffice": "libreoffice-calc-nogui",
    "pdftoppm": "poppler-utils",
    "haproxy": "haproxy",
    "pgbouncer": "pgbouncer",
}
# The markers of the tests that start servers or take long; ``test --quick`` leaves them out.
QUICK_SELECTION = "not e2e and not live and not resilience and not slow"


def missing_test_tools() -> dict[str, str]:
    """The tests' system tools not on ``PATH``: command -> Debian package."""
    return {
        command: package for command, package in TEST_TOOLS.items() if not shutil.which(command)
    }


def setup() -> int:
    """``./dev setup``: install the tests' missing system tools from Debian's packages (as
    root), once, before ``./dev test``."""
    missing = missing_test_tools()
    if missing and os.geteuid() == 0 and shutil.which("apt-get"):
        _say(f"installing {', '.join(missing.values())} from Debian packages ...")
        apt_env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], env=apt_env, check=False)
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", *missing.values()], env=apt_env, check=False
        )
        missing = missing_test_tools()
    if "chromium" in missing and not shutil.which("chromium-browser"):
        _say("installing Playwright's Chromium ...")
        if subprocess.run([sys.executable, "-m", "playwright", "install", "chromium"]).returncode:
            return 1
        del missing["chromium"]
    if missing:
        _say(
            f"still missing: {', '.join(missing)}; as root: apt-get install "
            f"{' '.join(missing.values())}"
        )
        return 1
    _say("the tests' system tools are installed")
    return 0


def script_tests() -> int:
    """Run the client scripts' unit tests (tests/js) with Node's test runner."""
    node = shutil.which("node")
    if node is None:
        _say("Node.js 20+ is needed for the script unit tests (tests/js); install it")
        return 1
    files = sorted(
        str(path.relative_to(BASE_DIR)) for path in (BASE_DIR / "tests" / "js").glob("*.test.mjs")
    )
    return subprocess.run([node, "--test", "--test-reporter=spec", *files], cwd=BASE_DIR).returncode


def test(pytest_args: list[str]) -> int:
    """``./dev test [--quick] [pytest args]``: the script unit tests, then pytest; ``--quick``
    leaves out the tests that start servers or take long (the inner loop)."""
    quick = "--quick" in pytest_args
    if quick:
        pytest_args = ["-m", QUICK_SELECTION, *(arg for arg in pytest_args if arg != "--quick")]
    else:
        missing = missing_test_tools()
        if "chromium" in missing and shutil.which("chromium-browser"):
            del missing["chromium"]
        if missing:
            _say(
                f"missing {', '.join(missing)}: the tests that need them fail; ./dev setup "
                "installs them"
            )
    failed = script_tests()
    if failed:
        _say("the script unit tests failed; pytest was not started")
        return failed
    # pytest builds its own test database, so the development one is left alone.
    os.environ.setdefault("NIGHTLY_BACKUP_AT", "off")
    started = _prepare(migrate=False)
    # The concurrency tests run fifty threads in one process, each holding a connection as
    # fifty processes would: more than a web process's pool lets it keep.
    os.environ.setdefault("DB_POOL_MAX_SIZE", "64")
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser:
        os.environ.setdefault("CHROMIUM_PATH", browser)
    try:
        return subprocess.run(
            [sys.executable, "-m", "pytest", *pytest_args], cwd=BASE_DIR
        ).returncode
    finally:
        _stop_embedded(started)


def manage(args: list[str]) -> int:
    """One ``manage.py`` command with the settings, servers and environment of ``run``."""
    started = _start_services()
    try:
        return subprocess.run(
            [sys.executable, str(BASE_DIR / "manage.py"), *args], cwd=BASE_DIR
        ).returncode
    finally:
        _stop_embedded(started)


def backup() -> int:
    """``./dev backup``: one backup now, through ``manage.py`` so a wrong database is named."""
    return manage(["backup"])


def restore(path: str) -> int:
    """``./dev restore FILE``: the backup becomes the platform's database if its books balance."""
    started = _start_services()
    try:
        restored = backups.restore(Path(path))
    except backups.BackupError as error:
        _say(str(error))
        return 1
    finally:
        _stop_embedded(started)
    print(restored.ledger_report)
    if not restored.balanced:
        _say(
            f"the books in {path} do NOT balance (ledger_check above); the platform's database "
            f"{restored.database} is unchanged and the restored copy is kept as "
            f"{restored.kept_for_inspection} for inspection"
        )
        return 1
    _say(f"restored {path} as the database {restored.database}: the books balance")
    if restored.previous:
        _say(f"the database it replaced is kept as {restored.previous}; drop it when done")
    return 0


USAGE = """usage: dev run                      the whole platform
       dev setup                    install the tests' system tools (as root, once)
       dev lock [--upgrade]         requirements.lock from requirements.txt, with hashes
       dev test [pytest args]       every test
       dev test --quick [args]      the inner loop: no servers, no browser, nothing slow
       dev manage COMMAND [args]    a manage.py command (ledger_check, verify_game ID, ...)
       dev backup                   a backup of the database into var/backups/
       dev restore FILE             restore a backup, then check the books
       dev services start|stop|status|reset"""


def main(argv: list[str]) -> int:
    _log_for(argv[0] if argv else "")
    commands = {"run", "setup", "test", "manage", "backup", "restore", "services"}
    if not argv or argv[0] not in commands:
        print(USAGE)
        return 2
    if argv[0] == "restore" and len(argv) != 2:
        print("usage: dev restore FILE")
        return 2
    command, rest = argv[0], argv[1:]
    try:
        if command == "run":
            return run()
        if command == "setup":
            return setup()
        if command == "test":
            return test(rest)
        if command == "manage":
            return manage(rest)
        if command == "backup":
            return backup()
        if command == "restore":
            return restore(rest[0])
    except subprocess.CalledProcessError as error:
        # The failing step has already said why, in one line.
        return error.returncode or 1
    action = rest[0] if rest else "status"
    if action == "start":
        print(embedded.start())
    elif action == "stop":
        embedded.stop()
    elif action == "reset":
        embedded.reset()
    else:
        print(embedded.status())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
