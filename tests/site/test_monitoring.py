"""What ``./dev run`` sets up for monitoring: the alert rules and Prometheus's configuration
as promtool reads them, Grafana's provisioning of the dashboard, and the live gauges of
processes that ended."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from prometheus_client import CollectorRegistry
from prometheus_client.multiprocess import MultiProcessCollector

from durak_site.ops import monitoring

PROMTOOL = shutil.which("promtool")
needs_promtool = pytest.mark.skipif(
    PROMTOOL is None, reason="promtool is not installed (Debian: apt-get install prometheus)"
)


@needs_promtool
def test_the_alert_rules_pass_promtool():
    result = subprocess.run(
        [PROMTOOL, "check", "rules", str(monitoring.ALERT_RULES)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS: 9 rules found" in result.stdout


@needs_promtool
def test_the_prometheus_configuration_of_a_run_passes_promtool(tmp_path):
    config = tmp_path / "prometheus.yml"
    config.write_text(json.dumps(monitoring.prometheus_config("127.0.0.1:9108")))
    result = subprocess.run(
        [PROMTOOL, "check", "config", str(config)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_grafana_found_on_the_path_is_given_the_dashboard_and_its_datasource(tmp_path, monkeypatch):
    tools = tmp_path / "bin"
    tools.mkdir()
    grafana = tools / "grafana"
    grafana.write_text("#!/bin/sh\n")
    grafana.chmod(0o755)
    monkeypatch.setenv("PATH", str(tools))

    commands = monitoring.tool_commands(tmp_path / "var", "127.0.0.1:9108")

    assert set(commands) == {"grafana"}  # no Prometheus on this PATH: not started
    assert commands["grafana"][:2] == [str(grafana), "server"]
    home = tmp_path / "var" / "monitoring" / "grafana"
    assert f"--config={home / 'grafana.ini'}" in commands["grafana"]
    datasources = json.loads((home / "provisioning/datasources/durak.yaml").read_text())
    dashboards = json.loads((home / "provisioning/dashboards/durak.yaml").read_text())
    assert dashboards["providers"][0]["options"]["path"] == str(monitoring.DOCS)
    dashboard = json.loads(monitoring.DASHBOARD.read_text())
    named = {panel["datasource"]["uid"] for panel in dashboard["panels"]}
    assert named == {datasources["datasources"][0]["uid"]}


def test_a_process_that_ended_leaves_the_live_gauges_once_marked(tmp_path, monkeypatch):
    monkeypatch.setenv(monitoring.DIRECTORY_VARIABLE, str(tmp_path))
    opened = (
        "from prometheus_client import Gauge;"
        "Gauge('sockets', 'open', multiprocess_mode='livesum').inc(3);"
        "import os; print(os.getpid())"
    )
    pids = [
        int(
            subprocess.run(
                [sys.executable, "-c", opened],
                capture_output=True,
                text=True,
                check=True,
                env={monitoring.DIRECTORY_VARIABLE: str(tmp_path)},
            ).stdout
        )
        for _process in range(2)
    ]

    def open_sockets() -> float:
        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=str(tmp_path))
        return registry.get_sample_value("sockets") or 0

    assert open_sockets() == 6
    monitoring.process_ended(pids[0])
    assert open_sockets() == 3

    monitoring.prepare_directory(tmp_path)  # a new run
    assert open_sockets() == 0
