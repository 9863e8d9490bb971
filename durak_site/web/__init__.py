"""The site's own pages and what every page request passes through.

``views`` (home, language, error pages), ``app_shell`` (manifest, service worker, offline
page), ``security`` (Content-Security-Policy, NUL bytes, the error reporter's filter),
``client_source`` (the client's address and browser, for the fair-play checks) and ``plurals``
(texts with a number for the scripts).
"""
