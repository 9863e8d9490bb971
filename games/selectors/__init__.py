"""The games' read side: nothing here changes a row or sends a message.

Two reads go beyond PostgreSQL, through layers below this one: a table's state asks
``games.presence`` (Redis) which seated users are connected, and the practice hint asks the
engine's bots (pure computation) for the move they would make.

- ``lobby``: the open public tables, the players by stake, a player's last options
- ``tables``: a table's snapshot and the state each viewer may see of it, a game's result
- ``stats``: payout table, player statistics, history, leaderboard
- ``watch``: the live tables of the best players, the best game of yesterday
- ``replay``: a game replayed from its seed and log, and its check against the ledger
- ``boards``: boards and charts for the analysis and puzzle pages
- ``reports``: the daily operations report
- ``fairplay``: the fair-play signals for staff
- ``ledger_audit``: the games' part of ``manage.py ledger_check``
"""
