"""The best game of yesterday with its replay, for the pages that show it (home, watch)."""

from __future__ import annotations

from django import template

from games.selectors import watch

register = template.Library()


@register.inclusion_tag("games/_best_game.html")
def best_game_of_yesterday() -> dict:
    return {"best": watch.best_game_of_yesterday()}
