"""Every place where the platform relies on another package's internals, and the upstream code
each relies on, with a fingerprint of that code's source as it was when the patch was last
checked against it. ``tests/site/test_patches.py`` fails, naming the patch, once an installed
version's source differs: re-check the patch against the new code, then update the fingerprint
(``python -m durak_site.patches`` prints the installed ones).

Each patch that once had a standard alternative was measured against it; what was kept, and
why, is in ``docs/decisions`` (0014 to 0017).
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path


@dataclass(frozen=True)
class Upstream:
    """A function or class of another package, by its dotted name, in `package`."""

    name: str
    package: str
    version: str
    fingerprint: str


@dataclass(frozen=True)
class Patch:
    """Our module that relies on `relies_on`."""

    module: str
    relies_on: tuple[Upstream, ...]


def upstream_source(name: str) -> str:
    """The source of the function or class a dotted name names, read from its module's file
    (so that a patch installed in this process does not stand in for the code it replaced)."""
    parts = name.split(".")
    for split in range(len(parts) - 1, 0, -1):
        try:
            spec = importlib.util.find_spec(".".join(parts[:split]))
        except (ImportError, AttributeError, ValueError):
            continue
        if spec is not None and spec.origin and spec.origin.endswith(".py"):
            break
    else:
        raise LookupError(f"no module's file holds {name}")
    source = Path(spec.origin).read_text()
    node: ast.AST = ast.parse(source)
    for attribute in parts[split:]:
        node = next(
            (
                child
                for child in node.body
                if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                and child.name == attribute
            ),
            None,
        )
        if node is None:
            raise LookupError(f"{spec.origin} defines no {name}")
    return ast.get_source_segment(source, node)


def fingerprint(name: str) -> str:
    """The first 16 hex digits of the SHA-256 of the named function's or class's source."""
    return hashlib.sha256(upstream_source(name).encode()).hexdigest()[:16]


def installed_version(package: str) -> str:
    return metadata.version(package)


PATCHES: tuple[Patch, ...] = (
    Patch(
        "durak_site.sockets.flow_control",
        (
            Upstream(
                "autobahn.twisted.websocket.WebSocketAdapterProtocol.connectionMade",
                "autobahn",
                "26.11.1",
                "5e95637f46b9af89",
            ),
            Upstream(
                "daphne.ws_protocol.WebSocketProtocol.serverSend",
                "daphne",
                "4.2.3",
                "638c06986cc0fbd0",
            ),
            Upstream(
                "daphne.ws_protocol.WebSocketProtocol.onMessage",
                "daphne",
                "4.2.3",
                "e2e8703ca6441e89",
            ),
            Upstream(
                "daphne.ws_protocol.WebSocketFactory.__init__",
                "daphne",
                "4.2.3",
                "6d10336235c563bc",
            ),
            Upstream(
                "autobahn.websocket.protocol.WebSocketProtocol.processData",
                "autobahn",
                "26.11.1",
                "29af146298fc6d20",
            ),
            Upstream(
                "autobahn.websocket.protocol.WebSocketProtocol.consumeData",
                "autobahn",
                "26.11.1",
                "4b406faf90772992",
            ),
            Upstream(
                "autobahn.websocket.protocol.WebSocketProtocol.dropConnection",
                "autobahn",
                "26.11.1",
                "73337351ad954766",
            ),
        ),
    ),
    Patch(
        "games.consumers",  # TableSocket.dispatch is Channels' without its database hop
        (
            Upstream(
                "channels.consumer.AsyncConsumer.dispatch", "channels", "4.3.2", "8acee1bceaa8491c"
            ),
        ),
    ),
    Patch(
        "durak_site.sockets.db_threads",
        (
            Upstream(
                "channels.auth.AuthMiddleware.resolve_scope",
                "channels",
                "4.3.2",
                "925d8b771467e8da",
            ),
            Upstream("channels.auth.get_user", "channels", "4.3.2", "1cacf457a63a088f"),
            Upstream("asgiref.sync.SyncToAsync.__init__", "asgiref", "3.13.0", "d6351ba970ed93c9"),
        ),
    ),
    Patch(
        "durak_site.celery",
        (
            Upstream(
                "kombu.transport.redis.Transport.__init__", "kombu", "5.7.0", "d72d3fbb9fb07d3d"
            ),
            Upstream(
                "kombu.transport.virtual.base.Transport.__init__",
                "kombu",
                "5.7.0",
                "43e4f3a96712feb7",
            ),
            Upstream("celery.apps.worker.safe_say", "celery", "5.7.0", "4d14c9841de0d5b2"),
            Upstream(
                "django.db.backends.postgresql.base.DatabaseWrapper.pool",
                "Django",
                "5.2.19",
                "23e3cf86af0e290c",
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
