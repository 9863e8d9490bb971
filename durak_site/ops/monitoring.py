"""What ``./dev run`` sets up for monitoring: the directory the processes write their metrics
into, and Prometheus and Grafana when they are installed (found on PATH), with their
configuration written under ``var/monitoring/`` for the run (docs/monitoring.md).

No Django here: the launcher runs it before any process has settings.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from prometheus_client.multiprocess import mark_process_dead

DIRECTORY_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
DEFAULT_METRICS_HOST = "127.0.0.1"
DEFAULT_METRICS_PORT = 9108
BASE_DIR = Path(__file__).resolve().parents[2]
DOCS = BASE_DIR / "docs" / "monitoring"
ALERT_RULES = DOCS / "alerts.yml"
DASHBOARD = DOCS / "dashboard.json"
PROMETHEUS_ADDRESS = "127.0.0.1:9090"
GRAFANA_PORT = 3000
# A scrape every few seconds keeps the dashboard live; its cost is a few indexed counts.
SCRAPE_SECONDS = 5
# The datasource the dashboard's panels name.
DATASOURCE_UID = "durak-prometheus"


def prepare_directory(path: Path) -> None:
    """An empty metrics directory for a new run: the files of the last run count no more."""
    path.mkdir(parents=True, exist_ok=True)
    for left in path.glob("*.db"):
        left.unlink()


def process_ended(pid: int) -> None:
    """A process of this run ended: the live gauges (its open sockets) no longer count it."""
    path = os.environ.get(DIRECTORY_VARIABLE)
    if path:
        mark_process_dead(pid, path)


def metrics_address() -> str:
    """Where ``manage.py serve_metrics`` listens (METRICS_HOST, METRICS_PORT)."""
    host = os.environ.get("METRICS_HOST", DEFAULT_METRICS_HOST)
    return f"{host}:{os.environ.get('METRICS_PORT', DEFAULT_METRICS_PORT)}"


def leave_live_gauges_at_shutdown() -> None:
    """A web process that stops leaves the live gauges itself, once Daphne's reactor has shut
    down (the launcher also does it for one that was killed)."""
    from twisted.internet import reactor

    reactor.addSystemEventTrigger("after", "shutdown", process_ended, os.getpid())


def prometheus_config(metrics_address: str) -> dict:
    """Prometheus's configuration: the platform's metrics and its alert rules."""
    return {
        "global": {"scrape_interval": f"{SCRAPE_SECONDS}s", "evaluation_interval": "15s"},
        "rule_files": [str(ALERT_RULES)],
        "scrape_configs": [
            {"job_name": "durak", "static_configs": [{"targets": [metrics_address]}]}
        ],
    }


def grafana_files(home: Path) -> dict[Path, str]:
    """Grafana's settings and provisioning under `home`: anonymous viewers, the Prometheus
    that ``./dev run`` starts as its datasource, the dashboard from docs/monitoring/."""
    provisioning = home / "provisioning"
    return {
        home / "grafana.ini": "\n".join(
            [
                "[paths]",
                f"data = {home / 'data'}",
                f"logs = {home / 'logs'}",
                f"plugins = {home / 'plugins'}",
                f"provisioning = {provisioning}",
                "[server]",
                "http_addr = 127.0.0.1",
                f"http_port = {GRAFANA_PORT}",
                "[auth.anonymous]",
                "enabled = true",
                "org_role = Viewer",
                "[analytics]",
                "reporting_enabled = false",
                "check_for_updates = false",
                "",
            ]
        ),
        # JSON is YAML: no YAML writer needed.
        provisioning / "datasources" / "durak.yaml": json.dumps(
            {
                "apiVersion": 1,
                "datasources": [
                    {
                        "name": "Prometheus (durak)",
                        "uid": DATASOURCE_UID,
                        "type": "prometheus",
                        "access": "proxy",
                        "url": f"http://{PROMETHEUS_ADDRESS}",
                        "isDefault": True,
                    }
                ],
            }
        ),
        provisioning / "dashboards" / "durak.yaml": json.dumps(
            {
                "apiVersion": 1,
                "providers": [{"name": "durak", "type": "file", "options": {"path": str(DOCS)}}],
            }
        ),
    }


def grafana_home() -> Path:
    """Where Grafana's own files are (GRAFANA_HOME, else where its packages put them)."""
    return Path(os.environ.get("GRAFANA_HOME", "/usr/share/grafana"))


def tool_log(var_dir: Path, name: str) -> Path | None:
    """Where Prometheus or Grafana writes its own log; None for the platform's processes."""
    if name not in ("prometheus", "grafana"):
        return None
    return var_dir / "monitoring" / f"{name}.log"


def tool_commands(var_dir: Path, metrics_address: str) -> dict[str, list[str]]:
    """The commands of Prometheus and Grafana, for those installed, their files written."""
    home = var_dir / "monitoring"
    commands: dict[str, list[str]] = {}
    prometheus = shutil.which("prometheus")
    if prometheus:
        config = home / "prometheus.yml"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(json.dumps(prometheus_config(metrics_address), indent=2))
        commands["prometheus"] = [
            prometheus,
            f"--config.file={config}",
            f"--storage.tsdb.path={home / 'prometheus'}",
            f"--web.listen-address={PROMETHEUS_ADDRESS}",
            "--log.level=warn",
        ]
    grafana = shutil.which("grafana") or shutil.which("grafana-server")
    if grafana:
        files = grafana_files(home / "grafana")
        for path, text in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        server = [grafana, "server"] if Path(grafana).name == "grafana" else [grafana]
        commands["grafana"] = server + [
            f"--homepath={grafana_home()}",
            f"--config={home / 'grafana' / 'grafana.ini'}",
        ]
    return commands
