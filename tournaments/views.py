"""The tournaments' pages: the list, one tournament with its standings, and the player's
commands (register, unregister, back to the arena, pause)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from durak_site.web.client_source import client_of
from tournaments import selectors, services
from tournaments.models import Tournament
from tournaments.services import TournamentError


def _strings() -> dict[str, str]:
    """The words the pages' script shows (static/js/tournament.js)."""
    return {
        "in": _("in %(time)s"),
        "now": _("now"),
        "started": _("The tournament has started!"),
        "your_game": _("Your game is ready"),
        "offline": _("Reconnecting…"),
    }


def tournament_list(request: HttpRequest) -> HttpResponse:
    lists = selectors.tournament_lists()
    mine = set()
    if request.user.is_authenticated:
        mine = set(
            request.user.tournament_entries.filter(status__in=selectors.ACTIVE).values_list(
                "tournament_id", flat=True
            )
        )
    return render(request, "tournaments/list.html", {**lists, "mine": mine, "strings": _strings()})


def tournament_detail(request: HttpRequest, tournament_id: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    return render(
        request,
        "tournaments/detail.html",
        {
            "tournament": tournament,
            "rows": selectors.standings_rows(tournament),
            "entry": selectors.entry_of(tournament=tournament, user=request.user),
            "table_id": selectors.current_table(tournament=tournament, user=request.user),
            "countdown": selectors.countdown_to(tournament),
            "strings": _strings(),
        },
    )


COMMANDS = {
    "register": services.tournament_register,
    "unregister": services.tournament_unregister,
    "back": services.arena_back,
    "pause": services.arena_pause,
}


@login_required
@require_POST
def tournament_command(request: HttpRequest, tournament_id: int, command: str) -> HttpResponse:
    if command not in COMMANDS:
        return HttpResponse(status=404)
    arguments = {"client": client_of(request)} if command == "register" else {}
    try:
        COMMANDS[command](tournament_id=tournament_id, user=request.user, **arguments)
    except TournamentError as error:
        messages.error(request, error.message)
    return redirect("tournament_detail", tournament_id=tournament_id)
