"""The standard engines that can stand in for the platform's patched parts, each chosen by an
environment variable, so that both can be run and measured in turns (``bench/turns.py``).

The first choice of each is the patched one and the default; ``docs/decisions`` says what each
comparison is for. Read by the settings, the ASGI application and the launcher alike.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Alternative:
    variable: str
    choices: tuple[str, ...]

    def chosen(self, env: Mapping[str, str] | None = None) -> str:
        """The choice `env` (the process's environment by default) makes; a value that is none
        of the choices is an error naming them."""
        env = os.environ if env is None else env
        value = env.get(self.variable, "").strip() or self.choices[0]
        if value not in self.choices:
            raise ValueError(f"{self.variable} is one of {', '.join(self.choices)}, not {value!r}")
        return value


# durak_site.backends.plain_sql.prepared_cursor, or Django's documented server_side_binding.
SQL_BINDING = Alternative("SQL_BINDING", ("prepared_cursor", "server_side"))
# How connections reach the web processes: from one listening socket they all share, or each
# process on a port of its own behind HAProxy, which sends a table's sockets to one process
# (durak_site.ops.haproxy) and the rest to the least busy.
WEB_PROXY = Alternative("WEB_PROXY", ("none", "haproxy"))

EVERY_ALTERNATIVE = (
    SQL_BINDING,
    WEB_PROXY,
)
