"""The HAProxy configuration in front of the web processes (Debian's ``haproxy`` package).

A table socket (``/ws/table/<id>/``) goes to the process its table id hashes to, so a table's
sockets share one process, which hands them their states in memory (games.broadcast); the hash
is consistent, so a process that goes down moves only its own tables. Everything else goes to
the process with the fewest connections. A process that stops answering is skipped within a
second (its open sockets closed, so their clients come back to another), and a connection it
refuses is tried again on another.

    python -m durak_site.ops.haproxy 0.0.0.0:80 10.0.0.21:8001 10.0.0.21:8002 10.0.0.22:8001 ...

prints the configuration for that address and those web processes.
"""

from __future__ import annotations

import sys

# A process that stops answering is noticed within a second, and the sockets it held are closed
# then (their clients reconnect to another) rather than left open to nothing.
CHECK = "check inter 300ms fall 2 rise 2 on-marked-down shutdown-sessions"


def haproxy_config(bind: str, servers: list[str]) -> str:
    """The configuration for HAProxy listening on `bind` (host:port) in front of the web
    processes at `servers` (host:port each)."""
    listed = "\n".join(
        f"    server web{number} {address} {CHECK}" for number, address in enumerate(servers, 1)
    )
    # Connections per process: as many as its file descriptor limit allows.
    return f"""defaults
    mode http
    option http-server-close
    option forwardfor
    option redispatch
    retries 3
    timeout connect 1s
    timeout check 300ms
    timeout client 60s
    timeout server 60s
    # An open WebSocket is a tunnel: the sockets' own pings keep it alive.
    timeout tunnel 1h
    timeout client-fin 5s

frontend site
    bind {bind}
    acl table_socket path_beg /ws/table/
    use_backend tables if table_socket
    default_backend pages

backend tables
    # The path's first three levels, /ws/table/<id>: each table to one process. The weight
    # gives each process more points on the ring, which spreads the tables more evenly.
    balance uri depth 3
    hash-type consistent
    default-server weight 100
    http-response set-header X-Served-By %s
{listed}

backend pages
    balance leastconn
{listed}
"""


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[-3].strip())
        return 2
    print(haproxy_config(argv[0], argv[1:]), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
