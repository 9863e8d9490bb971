"""The run command's web processes: several Daphnes accept from one listening socket."""

from __future__ import annotations

import os
import signal
import subprocess
import urllib.request

import pytest

from durak_site.ops import launcher
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
