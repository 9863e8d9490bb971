"""How ``./dev run`` may arrange the platform, each choice by an environment variable, so that
both arrangements can be run and measured in turns (``bench/turns.py``). The first choice of
each is the default.
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


# How connections reach the web processes: from one listening socket they all share, or each
# process on a port of its own behind HAProxy, which sends a table's sockets to one process
# (durak_site.ops.haproxy) and the rest to the least busy.
WEB_PROXY = Alternative("WEB_PROXY", ("none", "haproxy"))

EVERY_ALTERNATIVE = (WEB_PROXY,)
