"""The run command's web processes: several Daphnes accept from one listening socket."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable

import pytest

from durak_site.ops import launcher
from durak_site.sockets import accept_balancing
from tests.servers import free_port, server_env

pytestmark = pytest.mark.django_db(transaction=True)


def serves(port: int) -> bool:
    # A page of the web process alone: /healthz also wants a worker, which these tests lack.
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/rules/", timeout=60) as response:
        return response.status == 200


def test_web_processes_default_to_one_per_core_and_follow_the_setting(monkeypatch):
    monkeypatch.delenv("WEB_PROCESSES", raising=False)
    assert launcher.web_processes() == os.cpu_count()
    monkeypatch.setenv("WEB_PROCESSES", "3")
    assert launcher.web_processes() == 3


def test_behind_haproxy_each_web_process_listens_on_a_port_of_its_own(monkeypatch):
    monkeypatch.setenv("WEB_PROXY", "haproxy")
    monkeypatch.setenv("WEB_PROCESSES", "2")
    port = free_port()
    listeners, config = launcher.web_listeners("127.0.0.1", port)
    try:
        ports = [listener.getsockname()[1] for listener in listeners]
        assert ports == [port + launcher.WEB_PORT_OFFSET + 1, port + launcher.WEB_PORT_OFFSET + 2]
        text = config.read_text()
        assert f"bind 127.0.0.1:{port}\n" in text
        assert all(text.count(f"127.0.0.1:{web_port} ") == 2 for web_port in ports)
        commands = launcher.platform_commands(listeners, config)
        assert commands["haproxy"] == ["haproxy", "-db", "-f", str(config)]
        fds = {commands[launcher.web_process_name(n)][4] for n in (1, 2)}
        assert fds == {str(listener.fileno()) for listener in listeners}
    finally:
        for listener in listeners:
            listener.close()
    monkeypatch.setenv("WEB_PROXY", "none")
    shared, config = launcher.web_listeners("127.0.0.1", port)
    shared[0].close()
    assert config is None and shared[0] is shared[1]


def test_a_process_that_keeps_failing_waits_longer_each_time_until_it_runs_long_enough():
    backoff = launcher.Backoff()
    now = backoff.up_since
    delays = []
    for _ in range(8):
        delays.append(backoff.failed(now))
        assert not backoff.due(now) and backoff.due(now + delays[-1])
        now += delays[-1]
        backoff.started(now)
    assert delays == [0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 30.0, 30.0]
    # A process that ran long enough before it failed is restarted at once again.
    assert backoff.failed(now + launcher.HEALTHY_AFTER_SECONDS) == 0.5


@pytest.mark.live
def test_two_web_processes_serve_one_listening_socket_and_either_alone_keeps_serving():
    port = free_port()
    listener = launcher.listening_socket("127.0.0.1", port)
    processes = [
        subprocess.Popen(
            launcher.daphne_command(listener),
            cwd=launcher.BASE_DIR,
            env=server_env(),
            pass_fds=(listener.fileno(),),
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(2)
    ]
    listener.close()  # only the servers hold the socket now
    try:
        # The socket listens before either server runs: requests wait in its backlog.
        assert all(serves(port) for _ in range(10))
        os.killpg(processes[0].pid, signal.SIGKILL)
        processes[0].wait()
        # The same address still answers: the other process accepts from the same socket.
        assert all(serves(port) for _ in range(10))
    finally:
        for process in processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=15)


def wait_until(condition: Callable[[], bool], timeout: float = 60) -> None:
    # Another process's progress, which it announces nowhere but in the shared table.
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "not reached in time"
        time.sleep(0.02)


@pytest.mark.live
def test_a_web_process_started_later_takes_new_connections_until_both_hold_as_many(tmp_path):
    port = free_port()
    listener = launcher.listening_socket("127.0.0.1", port)
    table = tmp_path / "web-connections"
    seen = accept_balancing.ConnectionShare(table, 0)

    def alive() -> dict[int, int]:
        return seen.alive_connections(time.monotonic())

    def start(slot: int) -> subprocess.Popen:
        return subprocess.Popen(
            launcher.daphne_command(listener),
            cwd=launcher.BASE_DIR,
            # The patch's own test, whichever engines the run chose.
            env=server_env(
                **accept_balancing.share_environment(table, slot),
                ACCEPT_BALANCING="on",
            ),
            pass_fds=(listener.fileno(),),
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    processes = [start(0)]
    clients: list[socket.socket] = []
    try:
        wait_until(lambda: 0 in alive())
        clients += [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
        wait_until(lambda: alive() == {0: 20})
        processes.append(start(1))
        wait_until(lambda: 1 in alive())
        # One at a time, as players arrive: each is taken before the next knocks, so a busy
        # machine's slow wake-up of the new process is not mistaken for no balancing.
        for _ in range(20):
            clients.append(socket.create_connection(("127.0.0.1", port)))
            wait_until(lambda: sum(alive().values()) == len(clients))
        # Left to the kernel, the process already serving took all 40.
        assert abs(alive()[0] - alive()[1]) <= accept_balancing.SLACK
        # A process that stops serving is no longer waited for.
        processes[1].send_signal(signal.SIGTERM)
        processes[1].wait(timeout=15)
        wait_until(lambda: 1 not in alive())
    finally:
        for client in clients:
            client.close()
        for process in processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=15)
        listener.close()
