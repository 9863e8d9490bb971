"""Database work called from async code, spread over a few threads of each web process.

Channels runs every ``database_sync_to_async`` call of a process on one thread, so one slow
call queues all the others behind it. Here each process has ``DB_THREADS`` threads; each call
borrows a connection from the process's pool and gives it back (settings ``DATABASES``).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import cache as once
from typing import Any

from channels import auth
from channels.db import DatabaseSyncToAsync
from channels.sessions import CookieMiddleware, SessionMiddleware
from django.conf import settings


@once
def _executor() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=settings.DB_THREADS, thread_name_prefix="database")


def database_sync_to_async(func: Callable[..., Any]) -> DatabaseSyncToAsync:
    """Like ``channels.db.database_sync_to_async``, on the process's database threads."""
    return DatabaseSyncToAsync(func, thread_sensitive=False, executor=_executor())


class AuthMiddleware(auth.AuthMiddleware):
    """Channels' session user lookup, on the database threads instead of the single one."""

    async def resolve_scope(self, scope: dict) -> None:
        scope["user"]._wrapped = await database_sync_to_async(auth.get_user.func)(scope)


def AuthMiddlewareStack(inner):  # noqa: N802 - named like the Channels stack it replaces
    return CookieMiddleware(SessionMiddleware(AuthMiddleware(inner)))
