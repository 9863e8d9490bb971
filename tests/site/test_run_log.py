"""The run log: every role of ``./dev run`` (launcher, web, worker, beat) writes JSON lines with
the same fields, and nothing else (no plain access lines, no Celery banner). With SENTRY_DSN set,
beat's jobs report to Sentry as cron monitors."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from durak_site.ops.json_logs import FIELDS
from tests.sentry import SentryStandIn, sentry_stand_in
from tests.servers import BASE_DIR, end_process, free_port, server_env

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.live]


def lines_of(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if line.strip()]


def wait_for_lines(path: Path, wanted, process: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not wanted(lines_of(path)):
        assert process.poll() is None, path.read_text()
        assert time.monotonic() < deadline, path.read_text()
        time.sleep(0.2)


def test_every_role_logs_json_lines_and_beat_jobs_check_in_as_cron_monitors():
    log = BASE_DIR / "test-artifacts" / "run.log"
    log.parent.mkdir(exist_ok=True)
    with sentry_stand_in() as sentry:
        run_the_platform(log, sentry)

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
    task = next(record for record in records if "succeeded in" in record["event"])
    assert task["role"] == "worker" and task["duration"] > 0
    assert not any("celery@" in record["event"] and "v5." in record["event"] for record in records)


def run_the_platform(log: Path, sentry: SentryStandIn) -> None:
    """``./dev run`` until every role has logged, a page was served, and beat's first job ran
    and checked in (started, then finished) as its cron monitor."""
    port = free_port()
    env = server_env(PORT=str(port), WEB_PROCESSES="1", SENTRY_DSN=sentry.dsn)
    with open(log, "w") as output:
        launcher = subprocess.Popen(
            [sys.executable, "-m", "durak_site.ops.launcher", "run"],
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
        wait_for_lines(log, lambda lines: any("succeeded in" in line for line in lines), launcher)
        for status in ("in_progress", "ok"):
            sentry.wait_for(
                lambda check_in, status=status: (
                    check_in["monitor_slug"] == "wallet-expire-payments"
                    and check_in["status"] == status
                ),
                among="check_ins",
            )
    finally:
        end_process(launcher, timeout=30)
