"""The HAProxy configuration in front of the web processes is one HAProxy accepts."""

from __future__ import annotations

import http.client
import shutil
import subprocess
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from durak_site.ops.haproxy import haproxy_config
from tests.servers import free_port, wait_for_port


def test_the_generated_configuration_passes_haproxys_own_check(tmp_path):
    binary = shutil.which("haproxy")
    if binary is None:
        pytest.skip("HAProxy is not installed (./dev setup installs it)")
    config = tmp_path / "haproxy.cfg"
    config.write_text(haproxy_config("127.0.0.1:8000", ["10.0.0.21:8001", "10.0.0.22:8001"]))
    checked = subprocess.run([binary, "-c", "-f", str(config)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # One line per web process in each backend: the table sockets' and the pages'.
    assert config.read_text().count("server web2 10.0.0.22:8001 check") == 2


def test_haproxy_keeps_each_table_on_one_process_and_spreads_the_tables(tmp_path):
    binary = shutil.which("haproxy")
    if binary is None:
        pytest.skip("HAProxy is not installed (./dev setup installs it)")
    servers = [ThreadingHTTPServer(("127.0.0.1", 0), Answer) for _ in range(2)]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    port = free_port()
    config = tmp_path / "haproxy.cfg"
    addresses = [f"127.0.0.1:{server.server_address[1]}" for server in servers]
    config.write_text(haproxy_config(f"127.0.0.1:{port}", addresses))
    proxy = subprocess.Popen([binary, "-db", "-f", str(config)], stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, proxy)
        served = {table: {served_by(port, table) for _ in range(2)} for table in range(1, 201)}
    finally:
        proxy.terminate()
        proxy.wait(timeout=10)
        for server in servers:
            server.shutdown()
    assert all(len(processes) == 1 for processes in served.values())
    counts = Counter(processes.pop() for processes in served.values())
    assert set(counts) == {"web1", "web2"}
    # Evenly enough: neither process owns more than 60 % of the tables.
    assert max(counts.values()) <= 120, counts


class Answer(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


def served_by(port: int, table: int) -> str:
    """Which web process HAProxy sent a request for the table's socket path to."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", f"/ws/table/{table}/")
        response = connection.getresponse()
        response.read()
        return response.getheader("X-Served-By")
    finally:
        connection.close()
