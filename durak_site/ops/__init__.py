"""Running the platform: starting it, keeping it alive, watching it and keeping its data.

``launcher`` (``./dev``: services, migrations, every process of a run, the tests), ``embedded``
(PostgreSQL and Redis for development and tests), ``readiness`` (is the database the
platform's and migrated), ``translations`` (compiles the catalogs at start), ``heartbeats``
(which processes of each role are alive), ``health`` (the probe for load balancers),
``db_probes`` (database checks with a time limit), ``metrics`` and ``monitoring``
(Prometheus and Grafana), ``json_logs`` (one JSON object per log line), ``error_reports``
(Sentry) and ``backups`` (``pg_dump`` backups and checked restores).
"""
