"""The tournaments' part of a player's profile: medals, best place and history."""

from __future__ import annotations

from django import template

from tournaments import selectors

register = template.Library()
HISTORY_SHOWN = 20


@register.inclusion_tag("tournaments/_profile.html")
def tournament_record(player) -> dict:
    """Two statements: the medals with the best place, and the latest entries."""
    return {
        "medals": selectors.player_medals(user=player),
        "entries": list(selectors.player_history(user=player)[:HISTORY_SHOWN]),
    }
