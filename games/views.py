"""Pages of the game: lobby, table, game results and replay, profiles, leaderboard, rules.

Views stay thin: they read through selectors/stats and change things only through services.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import get_language

from games import stats


def rules(request: HttpRequest) -> HttpResponse:
    # The rules are prose, so each language has its own template rather than many small strings.
    language = "ru" if (get_language() or "ru").startswith("ru") else "en"
    return render(
        request,
        f"games/rules_{language}.html",
        {"payout_rows": stats.payout_table()},
    )
