"""One JSON object per log line, from every role of the platform, so logs can be shipped and
queried as data.

Every line has the same fields: time, role (web, worker, beat, launcher, or the command's
name), process, level, event, user, table, game, version and duration (milliseconds), null
where they do not apply, then the logger's name and anything passed with ``extra={...}``.
User, table, game and version come from ``extra`` or else from what the code running bound with
``bind`` (a socket binds its table and user, a deadline its game). The same bound ids go to
error reports as tags (durak_site.ops.error_reports).
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import os
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime

CONTEXT_FIELDS = ("user", "table", "game", "version")
FIELDS = ("time", "role", "process", "level", "event", *CONTEXT_FIELDS, "duration")

_STANDARD_ATTRIBUTES = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime"}
_bound: dict[str, contextvars.ContextVar] = {
    name: contextvars.ContextVar(f"log_{name}", default=None) for name in CONTEXT_FIELDS
}


def role() -> str:
    """What this process is: set by the launcher for its children, else read off the command."""
    given = os.environ.get("DURAK_ROLE")
    if given:
        return given
    command = " ".join(sys.argv[:4])
    if "daphne" in command:
        return "web"
    for celery_role in ("worker", "beat"):
        if "celery" in command and celery_role in sys.argv:
            return celery_role
    if not sys.argv or not sys.argv[0]:
        return "python"
    program = os.path.basename(sys.argv[0])
    if program == "__main__.py":  # python -m PACKAGE
        return os.path.basename(os.path.dirname(sys.argv[0]))
    return program.removesuffix(".py")


def bound() -> dict[str, object]:
    """The user, table, game and version the running code bound (unset ones left out)."""
    values = {}
    for name, variable in _bound.items():
        value = variable.get()
        if value is not None:
            values[name] = value
    return values


def bind(**fields: object) -> None:
    """Bind ``user``, ``table``, ``game`` or ``version`` for the rest of this context (an
    asyncio task such as one socket's handler, or a thread)."""
    for name, value in fields.items():
        _bound[name].set(value)


def unbind() -> None:
    """Forget every bound field (a worker thread between two tasks)."""
    for variable in _bound.values():
        variable.set(None)


@contextlib.contextmanager
def bound_to(**fields: object) -> Iterator[None]:
    """Bind fields for the ``with`` block only."""
    tokens = [(_bound[name], _bound[name].set(value)) for name, value in fields.items()]
    try:
        yield
    finally:
        for variable, token in reversed(tokens):
            variable.reset(token)


def _duration(record: logging.LogRecord) -> float | None:
    duration = record.__dict__.get("duration")
    if duration is None and isinstance(record.args, dict) and "runtime" in record.args:
        duration = float(record.args["runtime"]) * 1000  # Celery's "task succeeded in N s"
    return round(duration, 3) if isinstance(duration, (int, float)) else None


class JsonFormatter(logging.Formatter):
    def __init__(self, *args, role: str | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.role = role

    def format(self, record: logging.LogRecord) -> str:
        context = bound()
        payload: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "role": self.role or ROLE,
            "process": record.process,
            "level": record.levelname,
            "event": record.getMessage(),
        }
        for name in CONTEXT_FIELDS:
            payload[name] = record.__dict__.get(name, context.get(name))
        payload["duration"] = _duration(record)
        payload["logger"] = record.name
        # Anything else passed with extra={...} becomes a field of its own.
        for key, value in record.__dict__.items():
            if key not in _STANDARD_ATTRIBUTES and key not in payload and not key.startswith("_"):
                payload[key] = value if isinstance(value, (str, int, float, bool)) else str(value)
        if record.exc_info:
            payload["exception"] = self.formatException(record.exc_info)
        return json.dumps(payload, ensure_ascii=False, default=str)


ROLE = role()


def log_uncaught_exceptions() -> None:
    """Warnings and a crash's traceback are written as log lines too, not as plain text."""
    logging.captureWarnings(True)

    def log_crash(kind, value, traceback) -> None:
        if issubclass(kind, KeyboardInterrupt):
            sys.__excepthook__(kind, value, traceback)
            return
        logging.getLogger("durak_site").critical(
            "uncaught exception", exc_info=(kind, value, traceback)
        )

    sys.excepthook = log_crash


access_logger = logging.getLogger("durak_site.access")


class AccessLogMiddleware:
    """One line per HTTP request (the web server's own plain access lines are off): method,
    path without its query, status, the user if the request looked him up, and duration."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        started = time.perf_counter()
        response = self.get_response(request)
        # Only a user the request already loaded: looking him up here would cost a query.
        user = getattr(request, "_cached_user", None)
        access_logger.info(
            "request",
            extra={
                "method": request.method,
                "path": request.path,
                "status": response.status_code,
                "user": user.pk if user is not None and user.is_authenticated else None,
                "duration": (time.perf_counter() - started) * 1000,
            },
        )
        return response
