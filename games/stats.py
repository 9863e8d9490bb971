"""Read-only figures for the pages: payout table, player statistics, leaderboard."""

from __future__ import annotations

from games.engine import DEFAULT_PERCENTAGES

MAX_PLAYERS = 6


def payout_table() -> list[dict]:
    """Rows of the bank split, one per number of players: players, percentages, padding."""
    return [
        {
            "players": players,
            "percentages": list(percentages),
            "padding": range(MAX_PLAYERS - len(percentages)),
        }
        for players, percentages in sorted(DEFAULT_PERCENTAGES.items())
    ]
