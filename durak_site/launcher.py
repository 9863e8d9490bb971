"""Start the whole platform, or the test suite, on one machine.

``python -m durak_site.launcher run``   services, migrations, one Daphne per core (WEB_PROCESSES)
                                        on one shared listening socket, Celery worker and beat
``python -m durak_site.launcher test``  the script unit tests (node --test), then services,
                                        migrations, a browser and pytest

Called by the ``dev`` script after it has prepared the virtual environment.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from durak_site import backups, embedded
from durak_site.translations import compile_catalogs

BASE_DIR = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
# Connections waiting to be accepted: a crowd of sockets opening at once must not be turned away.
LISTEN_BACKLOG = 2048
WORKER_CONCURRENCY = 2


def _say(message: str) -> None:
    print(f"[durak] {message}", flush=True)


def _manage(*args: str) -> None:
    subprocess.run([sys.executable, str(BASE_DIR / "manage.py"), *args], check=True)


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
    """How many Daphne processes ``run`` starts: ``WEB_PROCESSES``, else one per core."""
    return max(1, int(os.environ.get("WEB_PROCESSES") or os.cpu_count() or 1))


def listening_socket(host: str, port: int) -> socket.socket:
    """The one listening socket every Daphne process accepts from (the kernel shares the work).

    IPv4 only: Daphne adopts an inherited socket as an IPv4 one.
    """
    listener = socket.create_server((host, port), backlog=LISTEN_BACKLOG)
    listener.set_inheritable(True)
    return listener


def daphne_command(listener: socket.socket) -> list[str]:
    fd = str(listener.fileno())
    return [str(BIN / "daphne"), "--fd", fd, *proxy_arguments(os.environ)] + [
        "durak_site.asgi:application"
    ]


def proxy_arguments(env: Mapping[str, str]) -> list[str]:
    """Daphne's options for running behind TRUSTED_PROXY_COUNT reverse proxies: the client's
    address (and scheme) then come from the proxy's X-Forwarded-* headers."""
    return ["--proxy-headers"] if int(env.get("TRUSTED_PROXY_COUNT", "0")) > 0 else []


def run() -> int:
    started = _prepare(migrate=True)
    _manage("create_first_admin")
    host = os.environ.get("HOST", "127.0.0.1")
    port = os.environ.get("PORT", "8000")
    listener = listening_socket(host, int(port))
    webs = web_processes()
    commands = {f"daphne-{number}": daphne_command(listener) for number in range(1, webs + 1)}
    commands["worker"] = [
        str(BIN / "celery"),
        "-A",
        "durak_site",
        "worker",
        "-l",
        "info",
        "-c",
        str(WORKER_CONCURRENCY),
    ]
    commands["beat"] = [
        str(BIN / "celery"),
        "-A",
        "durak_site",
        "beat",
        "-l",
        "info",
        "-s",
        str(embedded.VAR_DIR / "celerybeat-schedule"),
    ]
    _say(f"{webs} web process(es) share the listening socket")
    # Each child leads its own process group so that stopping it takes its children too.
    processes = [
        subprocess.Popen(
            command, cwd=BASE_DIR, start_new_session=True, pass_fds=(listener.fileno(),)
        )
        for command in commands.values()
    ]
    # The children hold their own copies of the socket.
    listener.close()
    stop_requested = False

    def request_stop(signum, frame) -> None:
        nonlocal stop_requested
        stop_requested = True

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    _say(f"the platform is up at http://{host}:{port}/  (admin: /admin/)  Ctrl-C stops it")
    exit_code = 0
    try:
        while not stop_requested:
            for name, process in zip(commands, processes, strict=True):
                if process.poll() is not None:
                    _say(f"{name} exited with code {process.returncode}; stopping")
                    stop_requested = True
                    exit_code = 1
            time.sleep(0.3)
    finally:
        _say("stopping ...")
        _stop_processes(processes)
        _stop_embedded(started)
    return exit_code


def ensure_browser() -> str | None:
    """Find a Chromium for the browser tests, installing one where that is possible."""
    for candidate in ("chromium", "chromium-browser"):
        path = shutil.which(candidate)
        if path:
            return path
    if os.geteuid() == 0 and shutil.which("apt-get"):
        _say("installing Chromium from Debian packages ...")
        apt_env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], env=apt_env, check=False)
        subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], env=apt_env, check=False)
        path = shutil.which("chromium")
        if path:
            return path
    _say("installing Playwright's Chromium ...")
    result = subprocess.run([sys.executable, "-m", "playwright", "install", "chromium"])
    return "playwright" if result.returncode == 0 else None


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
    failed = script_tests()
    if failed:
        _say("the script unit tests failed; pytest was not started")
        return failed
    # pytest builds its own test database, so the development one is left alone.
    os.environ.setdefault("NIGHTLY_BACKUP_AT", "off")
    started = _prepare(migrate=False)
    # Connections opened in worker threads must not outlive a test and block database teardown.
    os.environ.setdefault("DB_CONN_MAX_AGE", "0")
    browser = ensure_browser()
    if browser and browser != "playwright":
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
       dev test [pytest args]       every test
       dev manage COMMAND [args]    a manage.py command (ledger_check, verify_game ID, ...)
       dev backup                   a backup of the database into var/backups/
       dev restore FILE             restore a backup, then check the books
       dev services start|stop|status|reset"""


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"run", "test", "manage", "backup", "restore", "services"}:
        print(USAGE)
        return 2
    if argv[0] == "restore" and len(argv) != 2:
        print("usage: dev restore FILE")
        return 2
    command, rest = argv[0], argv[1:]
    try:
        if command == "run":
            return run()
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
