"""A web process freezes what its start-up loaded, so that no full collection walks it again."""

from __future__ import annotations

import subprocess
import sys

from tests.servers import BASE_DIR, server_env

# Django, the models and the routes alone make well over this many objects.
STARTUP_OBJECTS = 50_000


def test_the_web_process_freezes_its_startup_objects():
    probe = (
        "import gc; before = gc.get_freeze_count(); import durak_site.asgi; "
        "print(before, gc.get_freeze_count())"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=BASE_DIR,
        env=server_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    before, frozen = map(int, result.stdout.split()[-2:])
    assert before == 0 and frozen > STARTUP_OBJECTS
