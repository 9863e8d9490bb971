"""Liveness and readiness probe for load balancers and monitoring.

Besides the database and Redis it reports each role of the platform from its heartbeats
(``durak_site.ops.heartbeats``): how many web, worker and scheduler processes are alive, and
whether the deadline loop runs. It answers 503 when the database or Redis is unreachable or
does not answer within about a second (a stalled server too), or when the games' timers are
not being served (no worker alive, or no deadline loop running).
A scheduler (Celery beat) that is down is reported, but the timers go on without it.
"""

from __future__ import annotations

import redis
from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache

from durak_site.ops import db_probes, heartbeats

# A probe must answer before a load balancer gives up on it, also while PostgreSQL is stalled.
DATABASE_SECONDS = 1.0


def _redis_ok() -> bool:
    try:
        client = redis.Redis.from_url(
            settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1
        )
        return bool(client.ping())
    except redis.RedisError:
        return False


def _alive_by_role() -> dict[str, int]:
    try:
        return heartbeats.alive_by_role()
    except redis.RedisError:
        return dict.fromkeys(heartbeats.ROLES, 0)


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    alive = _alive_by_role()
    checks = {
        "database": db_probes.database_answers(DATABASE_SECONDS),
        "redis": _redis_ok(),
        "worker": alive[heartbeats.WORKER] > 0,
        "deadlines": alive[heartbeats.DEADLINE_LOOP] > 0,
    }
    reported = {"web": alive[heartbeats.WEB] > 0, "scheduler": alive[heartbeats.SCHEDULER] > 0}
    healthy = all(checks.values())
    body = {"status": "ok" if healthy else "fail"} | {
        name: "ok" if ok else "fail" for name, ok in (checks | reported).items()
    }
    body["processes"] = {
        role: alive[role] for role in (heartbeats.WEB, heartbeats.WORKER, heartbeats.SCHEDULER)
    }
    return JsonResponse(body, status=200 if healthy else 503)
