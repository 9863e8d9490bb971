"""Production settings pass Django's deployment checklist."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

# Each check runs Django in processes of its own.
pytestmark = pytest.mark.slow

BASE_DIR = Path(__file__).resolve().parents[2]

PRODUCTION_ENV = {
    "DEBUG": "0",
    "SECRET_KEY": "x7Fq-2pLw9ZrT4vYb8NcKd3MhJs6GuEaR1oQiWnXe5VtCyUzP0lAk_mBgDfHjS",
    "ALLOWED_HOSTS": "durak.example.com",
    "CSRF_TRUSTED_ORIGINS": "https://durak.example.com",
}


def _manage(*args, env):
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=BASE_DIR,
        env={k: v for k, v in os.environ.items() if k not in {"DEBUG", "SECRET_KEY"}} | env,
        capture_output=True,
        text=True,
    )


def test_check_deploy_is_clean_with_production_variables():
    result = _manage("check", "--deploy", "--fail-level", "WARNING", env=PRODUCTION_ENV)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_refuses_to_start_without_a_secret_key():
    env = {k: v for k, v in PRODUCTION_ENV.items() if k != "SECRET_KEY"}
    result = _manage("check", env=env)
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_check_deploy_refuses_the_test_payment_provider_in_production():
    result = _manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        env=PRODUCTION_ENV | {"PAYMENTS_TEST_MODE": "1"},
    )
    assert result.returncode != 0
    assert "wallet.W001" in result.stdout + result.stderr


def test_check_deploy_warns_when_anyone_may_send_yookassa_notifications():
    yookassa = {"YOOKASSA_SHOP_ID": "466593", "YOOKASSA_SECRET_KEY": "live_x"}
    assert (
        _manage(
            "check", "--deploy", "--fail-level", "WARNING", env=PRODUCTION_ENV | yookassa
        ).returncode
        == 0
    )
    result = _manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        env=PRODUCTION_ENV | yookassa | {"YOOKASSA_TRUSTED_SENDERS_ONLY": "0"},
    )
    assert result.returncode != 0
    assert "wallet.W002" in result.stdout + result.stderr


def _database_options(env) -> str:
    read = "from django.conf import settings; print(settings.DATABASES['default']['OPTIONS'])"
    result = subprocess.run(
        [sys.executable, "-c", read],
        cwd=BASE_DIR,
        env=os.environ | {"DJANGO_SETTINGS_MODULE": "durak_site.settings"} | env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_behind_pgbouncer_no_statement_is_prepared():
    # A transaction may run on another server connection each time: a statement prepared on
    # one would be missing on the next.
    assert "'prepare_threshold': None" in _database_options(PRODUCTION_ENV | {"DB_PGBOUNCER": "1"})
    assert "'prepare_threshold': 5" in _database_options(PRODUCTION_ENV)
