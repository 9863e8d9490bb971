"""The run log: every role of ``./dev run`` (launcher, web, worker, beat) writes JSON lines with
the same fields, and nothing else (no plain access lines, no Celery banner)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from durak_site.logging import FIELDS
from tests.servers import BASE_DIR, end_process, free_port, server_env

pytestmark = pytest.mark.django_db(transaction=True)


def lines_of(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if line.strip()]


def wait_for_lines(path: Path, wanted, process: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not wanted(lines_of(path)):
        assert process.poll() is None, path.read_text()
        assert time.monotonic() < deadline, path.read_text()
        time.sleep(0.2)


def test_every_role_logs_json_lines_with_the_same_fields():
    port = free_port()
    log = BASE_DIR / "test-artifacts" / "run.log"
    log.parent.mkdir(exist_ok=True)
    env = server_env(PORT=str(port), WEB_PROCESSES="1")
    with open(log, "w") as output:
        launcher = subprocess.Popen(
            [sys.executable, "-m", "durak_site.launcher", "run"],
            cwd=BASE_DIR,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_for_lines(log, lambda lines: any("platform is up" in line for line in lines), launcher)
        # The launcher listens already: the request waits in the socket's backlog for Daphne.
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/rules/", timeout=60) as response:
            assert response.status == 200
        wait_for_lines(
            log,
            lambda lines: (
                any('"path": "/rules/"' in line for line in lines)
                and any(" ready." in line for line in lines)
                and any("beat: Starting" in line for line in lines)
            ),
            launcher,
        )
    finally:
        end_process(launcher, timeout=30)

    records = []
    for line in lines_of(log):
        record = json.loads(line)  # every line, the shutdown's included
        assert list(record)[: len(FIELDS)] == list(FIELDS), line
        records.append(record)
    assert {"launcher", "web", "worker", "beat"} <= {record["role"] for record in records}
    assert len({record["process"] for record in records}) >= 4
    request = next(record for record in records if record.get("path") == "/rules/")
    assert (request["role"], request["method"], request["status"]) == ("web", "GET", 200)
    assert 0 < request["duration"] < 10_000
    assert not any("celery@" in record["event"] and "v5." in record["event"] for record in records)
