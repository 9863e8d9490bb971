"""The HAProxy configuration in front of the web processes is one HAProxy accepts."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from durak_site.ops.haproxy import haproxy_config


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
