"""The web-socket plumbing under every table socket, one module for each thing it guards.

Before a socket reaches a consumer: ``origin_check`` (only the site's own pages open sockets),
``open_limits`` (per address and session, before the database is read), ``handshake_pacing``
(a few opens at a time per process), ``db_threads`` (the login read and every database call of
a socket, on a few threads handed out by client address) and ``outage_closes`` (a database or
Redis outage closes a socket with "come back", not "failed"). While it lives: ``flow_control``
(caps on what waits to be sent or handled), ``channel_layer`` (Redis groups, sends to many at
once) and ``session_closes`` (a socket ends with its session). ``accept_balancing`` spreads new
connections over the web processes that share one listening socket.

``accept_balancing``, ``flow_control`` and ``channel_layer`` change how Twisted, Daphne and
channels-redis work inside one machine's processes; each is installed from one place
(``durak_site/asgi.py``, the launcher, ``CHANNEL_LAYERS``), so it can be removed from there, and
each has a standard alternative chosen by an environment setting (``durak_site.ops.alternatives``;
``stock_layers`` holds channels-redis's own layers). ``durak_site.patches`` lists them all.
"""
