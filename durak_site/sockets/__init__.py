"""The web-socket plumbing under every table socket, one module for each thing it guards.

Before a socket reaches a consumer: ``origin_check`` (only the site's own pages open sockets),
``open_limits`` (per address and session, before the database is read), ``handshake_pacing``
(a few opens at a time per process), ``db_threads`` (the login read and every database call of
a socket, on a few threads handed out by client address) and ``outage_closes`` (a database or
Redis outage closes a socket with "come back", not "failed"). While it lives: ``flow_control``
(caps on what waits to be sent or handled) and ``session_closes`` (a socket ends with its
session).

``flow_control`` and ``db_threads`` reach into Daphne's, autobahn's and asgiref's internals;
each is installed from ``durak_site/asgi.py``, and ``durak_site.patches`` lists the upstream
code each relies on, with a test that fails when it changes (docs/decisions/0016 says why
Daphne's protocol is still replaced).
"""
