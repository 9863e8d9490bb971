"""What the apps use below their services to reach PostgreSQL, Redis and the Celery broker.

``plain_sql`` (prepared statements over a model's columns for the hot path of a move; it changes
how the apps talk to PostgreSQL and can be dropped back to the ORM call by call),
``redis_pools`` (pools that make a burst wait for a connection), ``rate_limits`` (token buckets
in Redis) and ``batched_tasks`` (Celery tasks sent from a thread of their own).
"""
