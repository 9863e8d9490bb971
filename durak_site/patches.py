"""Every place where the platform relies on another package's internals, and the upstream code
each relies on, with a fingerprint of that code's source as it was when the patch was last
checked against it. ``tests/site/test_patches.py`` fails, naming the patch, once an installed
version's source differs: re-check the patch against the new code, then update the fingerprint
(``python -m durak_site.patches`` prints the installed ones).

Where an environment setting runs the platform on the standard alternative instead
(``durak_site.ops.alternatives``), the patch names it.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
from dataclasses import dataclass
from importlib import metadata


@dataclass(frozen=True)
class Upstream:
    """A function or class of another package, by its dotted name, in `package`."""

    name: str
    package: str
    version: str
    fingerprint: str


@dataclass(frozen=True)
class Patch:
    """Our module that relies on `relies_on`; `alternative` is the setting that does without."""

    module: str
    alternative: str | None
    relies_on: tuple[Upstream, ...]


def resolve(name: str) -> object:
    """The object a dotted name names: the longest importable module, then its attributes."""
    parts = name.split(".")
    for split in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for attribute in parts[split:]:
            found = inspect.getattr_static(found, attribute)
        return found.fget if isinstance(found, property) else found
    raise ImportError(f"nothing importable in {name}")


def fingerprint(name: str) -> str:
    """The first 16 hex digits of the SHA-256 of the named object's source."""
    source = inspect.getsource(resolve(name))
    return hashlib.sha256(source.encode()).hexdigest()[:16]


def installed_version(package: str) -> str:
    return metadata.version(package)


PATCHES: tuple[Patch, ...] = (
    Patch(
        "durak_site.sockets.accept_balancing",
        "ACCEPT_BALANCING=off",
        (
            Upstream("twisted.internet.tcp.Port.doRead", "Twisted", "26.10.0", "d240fc123090ee23"),
            Upstream(
                "twisted.internet.tcp.Server.__init__", "Twisted", "26.10.0", "fbf83f6f693d6860"
            ),
            Upstream(
                "twisted.internet.tcp.Connection.connectionLost",
                "Twisted",
                "26.10.0",
                "dd7a9a87035a2084",
            ),
        ),
    ),
    Patch(
        "durak_site.sockets.flow_control",
        "WEB_SERVER=uvicorn",
        (
            Upstream(
                "daphne.ws_protocol.WebSocketProtocol.connectionMade",
                "daphne",
                "4.2.3",
                "63ceb64088e44552",
            ),
            Upstream(
                "daphne.ws_protocol.WebSocketProtocol.serverSend",
                "daphne",
                "4.2.3",
                "345f21330d2a18ce",
            ),
            Upstream(
                "daphne.ws_protocol.WebSocketProtocol.onMessage",
                "daphne",
                "4.2.3",
                "826cc86d0e2aeef0",
            ),
            Upstream(
                "daphne.ws_protocol.WebSocketFactory.__init__",
                "daphne",
                "4.2.3",
                "59c33925b848db0e",
            ),
            Upstream(
                "autobahn.websocket.protocol.WebSocketProtocol.processData",
                "autobahn",
                "26.11.1",
                "25b9c1387a46ab25",
            ),
            Upstream(
                "autobahn.websocket.protocol.WebSocketProtocol.consumeData",
                "autobahn",
                "26.11.1",
                "aaa88196e762438f",
            ),
            Upstream(
                "autobahn.websocket.protocol.WebSocketProtocol.dropConnection",
                "autobahn",
                "26.11.1",
                "149c74c9a251a7b1",
            ),
        ),
    ),
    Patch(
        "durak_site.sockets.channel_layer",
        "CHANNEL_LAYER=stock or CHANNEL_LAYER=pubsub",
        (
            Upstream(
                "channels_redis.core.RedisChannelLayer.receive",
                "channels-redis",
                "4.3.0",
                "158a09895d9a7c8e",
            ),
            Upstream(
                "channels_redis.core.RedisChannelLayer.group_send",
                "channels-redis",
                "4.3.0",
                "c9623ea6ccfa7308",
            ),
            Upstream(
                "channels_redis.core.RedisChannelLayer.group_add",
                "channels-redis",
                "4.3.0",
                "85ed67999d94bb85",
            ),
            Upstream(
                "channels_redis.core.RedisChannelLayer.send",
                "channels-redis",
                "4.3.0",
                "1b2ad54990702acb",
            ),
            Upstream(
                "channels_redis.core.RedisChannelLayer.flush",
                "channels-redis",
                "4.3.0",
                "e92ed900373a3d78",
            ),
            Upstream(
                "channels_redis.core.RedisChannelLayer._group_key",
                "channels-redis",
                "4.3.0",
                "7e89938e1cb20f26",
            ),
        ),
    ),
    Patch(
        "games.consumers",  # TableSocket.dispatch is Channels' without its database hop
        None,
        (
            Upstream(
                "channels.consumer.AsyncConsumer.dispatch", "channels", "4.3.2", "39f34e7d4fb0f655"
            ),
        ),
    ),
    Patch(
        "durak_site.sockets.db_threads",
        None,
        (
            Upstream(
                "channels.auth.AuthMiddleware.resolve_scope",
                "channels",
                "4.3.2",
                "e4d45bbcc94f96a2",
            ),
            Upstream("channels.auth.get_user", "channels", "4.3.2", "3124b316d7d6472c"),
            Upstream("asgiref.sync.SyncToAsync.__init__", "asgiref", "3.13.0", "3d9c15ea0c461c73"),
        ),
    ),
    Patch(
        "durak_site.backends.plain_sql",
        "SQL_BINDING=server_side",
        (
            Upstream(
                "django.db.backends.base.base.BaseDatabaseWrapper._prepare_cursor",
                "Django",
                "5.2.19",
                "92079d0eed95d59d",
            ),
        ),
    ),
    Patch(
        "durak_site.celery",
        None,
        (
            Upstream(
                "kombu.transport.redis.Transport.__init__", "kombu", "5.7.0", "4fc30e8fa54df374"
            ),
            Upstream(
                "kombu.transport.virtual.base.Transport.__init__",
                "kombu",
                "5.7.0",
                "15c3eeb81a7640c4",
            ),
            Upstream("celery.apps.worker.safe_say", "celery", "5.7.0", "87e533c2a7a32fa7"),
            Upstream(
                "django.db.backends.postgresql.base.DatabaseWrapper.pool",
                "Django",
                "5.2.19",
                "e5c2654fdf2d5090",
            ),
        ),
    ),
)


def changes() -> list[str]:
    """What differs from the fingerprints: one line per upstream, naming the patch to re-check."""
    found = []
    for patch in PATCHES:
        for upstream in patch.relies_on:
            now = fingerprint(upstream.name)
            if now != upstream.fingerprint:
                found.append(
                    f"{patch.module} relies on {upstream.name}, whose source changed "
                    f"({upstream.package} {upstream.version} then, "
                    f"{installed_version(upstream.package)} installed): re-check the patch, then "
                    f"set its fingerprint to {now!r} in durak_site/patches.py"
                )
    return found


if __name__ == "__main__":
    import django

    django.setup()
    for patch in PATCHES:
        for upstream in patch.relies_on:
            version = installed_version(upstream.package)
            print(f"{patch.module}  {upstream.name}  {version}  {fingerprint(upstream.name)}")
