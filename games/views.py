"""Pages of the game: lobby, table, game results and replay, profiles, leaderboard, rules.

Views stay thin: they read through ``games.selectors`` and change things only through
``games.services``; refused commands come back as GameError and are shown as messages.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from durak_site.accounts import relations
from durak_site.accounts.models import NoteColour
from durak_site.accounts.relations import RelationError
from durak_site.accounts.services import table_settings_of
from durak_site.backends import rate_limits
from durak_site.web.client_source import Client, client_of
from games import services
from games.forms import PracticeForm, QuickPlayForm, TableCreateForm
from games.models import (
    ChatPhrase,
    Deck,
    Game,
    GameAnalysis,
    Limit,
    Puzzle,
    PuzzleAttempt,
    Speed,
    Table,
)
from games.rating import display_rating
from games.selectors import boards, stats, tables, watch
from games.selectors.friends import friends_overview, relation_to
from games.selectors.lobby import last_options, players_by_stake, table_list_open
from games.selectors.reliability import player_reliability
from games.services import GameError
from wallet.money import format_money
from wallet.selectors import user_balance

# Opening a table holds the stake in the ledger and announces it in the lobby, and leaving it
# returns the stake: the rounds are kept (a table bank always holds exactly its seated players'
# stakes) but limited per user, to a burst of 5 and then 30 an hour.
TABLES_BURST = 5.0
TABLES_PER_SECOND = 30 / 3600


def _language() -> str:
    return "ru" if (get_language() or "ru").startswith("ru") else "en"


# --- lobby and tables -----------------------------------------------------------------------


def _last_choice(request: HttpRequest) -> dict:
    """The table options the player chose last, as the lobby's forms take them."""
    last = last_options(user=request.user)
    return {"last_options": last.options, "last_label": last.options_summary}


def _lobby_context(request: HttpRequest, **forms) -> dict:
    last = _last_choice(request)
    return {
        "form": TableCreateForm(last_options=last["last_options"]),
        "quick_form": QuickPlayForm(**last),
        "practice_form": PracticeForm(last_options=last["last_options"]),
        **forms,
        "tables": table_list_open(),
        "my_tables": stats.user_active_tables(user=request.user),
        "stake_counts": players_by_stake(),
        "stake_block": services.block_notice(user=request.user),
        "deck_sizes": Deck.values,
        "limit_choices": Limit.choices,
        "speed_choices": Speed.choices,
    }


def refused(request: HttpRequest, error: GameError) -> None:
    """Say why a command was refused; a stake refused for lack of money comes with a link to
    the deposit page (the ``deposit`` tag, templates/base.html)."""
    messages.error(
        request, error.message, extra_tags="deposit" if error.code == "insufficient_funds" else ""
    )


def _may_open_table(request: HttpRequest) -> bool:
    """Opening tables (by hand, by quick play or for practice) is limited per player."""
    if rate_limits.take(
        f"tables:user:{request.user.pk}", rate=TABLES_PER_SECOND, burst=TABLES_BURST
    ):
        return True
    messages.error(request, _("You open tables too often; please wait a few minutes."))
    return False


@login_required
def lobby(request: HttpRequest) -> HttpResponse:
    return render(request, "games/lobby.html", _lobby_context(request))


def _open_table(request: HttpRequest, form, form_name: str, open_command) -> HttpResponse:
    """A lobby form that opens or finds a table: check it, limit it, seat the player there."""
    if not form.is_valid():
        context = _lobby_context(request, **{form_name: form})
        return render(request, "games/lobby.html", context, status=400)
    if not _may_open_table(request):
        return redirect("lobby")
    try:
        table = open_command(user=request.user, client=client_of(request), **form.cleaned_data)
    except GameError as error:
        refused(request, error)
        return redirect("lobby")
    return redirect("table_detail", table_id=table.pk)


@login_required
@require_POST
def table_create(request: HttpRequest) -> HttpResponse:
    return _open_table(request, TableCreateForm(request.POST), "form", services.table_create)


@login_required
@require_POST
def quick_play(request: HttpRequest) -> HttpResponse:
    form = QuickPlayForm(request.POST, **_last_choice(request))
    return _open_table(request, form, "quick_form", services.quick_play)


def _practice_start(*, user, seats: int, level: str, options: dict, client: Client):
    return services.practice_start(
        user=user, players=seats, level=level, options=options, client=client
    )


@login_required
@require_POST
def practice_start(request: HttpRequest) -> HttpResponse:
    return _open_table(request, PracticeForm(request.POST), "practice_form", _practice_start)


@login_required
def practice_hint(request: HttpRequest, table_id: int) -> JsonResponse:
    """The move the Любитель would make in the player's place (practice tables only)."""
    table = get_object_or_404(Table, pk=table_id, practice=True)
    return JsonResponse({"action": tables.practice_hint(table=table, user=request.user)})


@login_required
def table_detail(request: HttpRequest, table_id: int) -> HttpResponse:
    table = get_object_or_404(Table, pk=table_id)
    invite_code = request.GET.get("invite", "")
    if not tables.table_visible_to(table=table, user=request.user, invite_code=invite_code):
        raise Http404
    state = tables.table_state_for(table=table, user=request.user)
    return render(
        request,
        "games/table.html",
        {
            "table": table,
            "state": state,
            "invite_code": invite_code,
            "table_settings": table_settings_of(user=request.user),
            "note_colours": NoteColour.choices,
            "stake_block": None if table.practice else services.block_notice(user=request.user),
            "chat_phrases": ChatPhrase.choices,
        },
    )


@login_required
@require_POST
def table_join(request: HttpRequest, table_id: int) -> HttpResponse:
    invite_code = request.POST.get("invite_code") or None
    try:
        services.table_join(
            table_id=table_id,
            user=request.user,
            invite_code=invite_code,
            client=client_of(request),
        )
    except GameError as error:
        refused(request, error)
        if error.code == "table_not_found":
            return redirect("lobby")
    return redirect("table_detail", table_id=table_id)


@login_required
@require_POST
def table_leave(request: HttpRequest, table_id: int) -> HttpResponse:
    try:
        table = services.table_leave(table_id=table_id, user=request.user)
    except GameError as error:
        messages.error(request, error.message)
        if error.code == "table_not_found":
            return redirect("lobby")
        return redirect("table_detail", table_id=table_id)
    if table.practice:
        messages.success(request, _("You have left the practice game."))
    else:
        messages.success(request, _("You have left the table; your stake is back in the wallet."))
    return redirect("lobby")


@login_required
@require_POST
def game_rematch(request: HttpRequest, game_id: int) -> HttpResponse:
    game = get_object_or_404(Game.objects.only("table_id"), pk=game_id)
    try:
        services.rematch_confirm(game_id=game_id, user=request.user, client=client_of(request))
    except GameError as error:
        refused(request, error)
    return redirect("table_detail", table_id=game.table_id)


@login_required
def balance(request: HttpRequest) -> JsonResponse:
    amount = user_balance(user=request.user)
    return JsonResponse({"amount": amount, "formatted": format_money(amount)})


# --- finished games, players ----------------------------------------------------------------


def game_detail(request: HttpRequest, game_id: int) -> HttpResponse:
    game = get_object_or_404(Game.objects.select_related("table"), pk=game_id)
    # Staff follow the fair-play signals to any game, private ones too.
    if not request.user.is_staff and not tables.table_visible_to(
        table=game.table, user=request.user
    ):
        raise Http404
    finished = game.status == Game.Status.FINISHED
    return render(
        request,
        "games/game_detail.html",
        {
            "game": game,
            "finished": finished,
            "abandoned": game.status == Game.Status.ABANDONED,
            "result": tables.game_result(game=game) if finished else None,
            "replay": stats.game_replay(game=game) if finished else None,
        },
    )


def player_card(request: HttpRequest, nickname: str) -> JsonResponse:
    """The small card a click on a player at the table shows: his public figures."""
    player = get_object_or_404(get_user_model(), username__iexact=nickname)
    summary = stats.player_summary(user=player, viewer=request.user)
    reliability = player_reliability(user_id=player.pk)
    return JsonResponse(
        {
            "nickname": player.username,
            "games": summary["games"],
            "wins": summary["wins"],
            "durak": summary["durak"],
            "rating": stats.player_rating_now(user=player),
            "reliability": reliability.percent,
            "reliability_games": reliability.counted,
            "profile_url": reverse("profile", args=[player.username]),
            # What only the viewer sees: his note on the player and where they stand.
            "note": relations.note_on(author=request.user, player_id=player.pk),
            "relation": relation_to(viewer=request.user, player_id=player.pk),
            "is_me": player.pk == request.user.pk,
        }
    )


def profile(request: HttpRequest, nickname: str | None = None) -> HttpResponse:
    if nickname is None:
        if not request.user.is_authenticated:
            return redirect(f"{reverse(settings.LOGIN_URL)}?next={request.path}")
        player = request.user
    else:
        player = get_object_or_404(get_user_model(), username__iexact=nickname)
    return render(
        request,
        "games/profile.html",
        {
            "player": player,
            "summary": stats.player_summary(user=player, viewer=request.user),
            "history": stats.player_history(user=player, viewer=request.user),
            "practice_history": stats.player_history(
                user=player, viewer=request.user, practice=True
            ),
            "rating": stats.player_rating(user=player),
            "is_me": player == request.user,
            "sees_money": stats.sees_money(owner_id=player.pk, viewer=request.user),
            "reliability": player_reliability(user_id=player.pk),
            "note": relations.note_on(author=request.user, player_id=player.pk),
            "note_colours": NoteColour.choices,
            "relation": relation_to(viewer=request.user, player_id=player.pk),
        },
    )


def leaderboard(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "games/leaderboard.html",
        {"rows": stats.leaderboard(viewer=request.user), "min_games": stats.LEADERBOARD_MIN_GAMES},
    )


def watch_tables(request: HttpRequest) -> HttpResponse:
    """The live tables of the highest-rated players; the table page shows each to spectators."""
    return render(request, "games/watch.html", {"tables": watch.live_tables()})


def rules(request: HttpRequest) -> HttpResponse:
    # The rules are prose, so each language has its own template rather than many small strings.
    return render(
        request,
        f"games/rules_{_language()}.html",
        {
            "payout_rows": stats.payout_table(),
            "drop_grace_seconds": int(settings.TABLE_DROP_GRACE_SECONDS),
        },
    )


# --- friends, blocks and notes --------------------------------------------------------------


@login_required
def friends(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "games/friends.html",
        {**friends_overview(user=request.user), "note_colours": NoteColour.choices},
    )


def _relation_command(request: HttpRequest, command, done: str, **arguments) -> HttpResponse:
    """Run a command on the user's relations; answer a script with JSON, a form with a
    redirect back (to ``next`` when it is on this site) and a message."""
    wants_json = "application/json" in request.headers.get("Accept", "")
    try:
        command(user=request.user, **arguments)
    except (RelationError, GameError) as error:
        if wants_json:
            return JsonResponse({"error": str(error.message)}, status=400)
        messages.error(request, error.message)
    else:
        if wants_json:
            return JsonResponse({"ok": True, "message": done})
        messages.success(request, done)
    back = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(back, {request.get_host()}, request.is_secure()):
        back = reverse("friends")
    return redirect(back)


@login_required
@require_POST
def friend_request(request: HttpRequest) -> HttpResponse:
    nickname = request.POST.get("nickname", "").strip()
    return _relation_command(
        request, relations.friend_request, _("Friend request sent."), nickname=nickname
    )


@login_required
@require_POST
def friend_accept(request: HttpRequest, friendship_id: int) -> HttpResponse:
    return _relation_command(
        request, relations.friend_accept, _("You are friends now."), friendship_id=friendship_id
    )


@login_required
@require_POST
def friendship_end(request: HttpRequest, friendship_id: int) -> HttpResponse:
    return _relation_command(
        request, relations.friendship_end, _("Done."), friendship_id=friendship_id
    )


@login_required
@require_POST
def friend_invite(request: HttpRequest) -> HttpResponse:
    return _relation_command(
        request,
        services.friend_invite,
        _("Invitation sent."),
        nickname=request.POST.get("nickname", ""),
        table_id=_posted_id(request.POST.get("table", "")),
    )


@login_required
@require_POST
def player_block(request: HttpRequest, nickname: str) -> HttpResponse:
    return _relation_command(
        request, services.player_block, _("Player blocked."), nickname=nickname
    )


@login_required
@require_POST
def player_unblock(request: HttpRequest, nickname: str) -> HttpResponse:
    return _relation_command(
        request, services.player_unblock, _("Player unblocked."), nickname=nickname
    )


@login_required
@require_POST
def player_note(request: HttpRequest, nickname: str) -> HttpResponse:
    return _relation_command(
        request,
        relations.note_save,
        _("Note saved."),
        nickname=nickname,
        text=request.POST.get("text", ""),
        colour=request.POST.get("colour", ""),
    )


def _posted_id(value: str) -> int | None:
    return int(value) if value.isascii() and value.isdigit() and len(value) <= 18 else None


# --- learning: post-game analysis and puzzles -------------------------------------------------


@login_required
def game_analysis(request: HttpRequest, game_id: int) -> HttpResponse:
    """The player's analysis of a finished game; the first visit queues it."""
    game = get_object_or_404(Game.objects.select_related("table"), pk=game_id)
    if request.user.pk not in game.players:
        raise Http404
    try:
        analysis = services.analysis_request(game=game, user=request.user)
    except GameError as error:
        refused(request, error)
        return redirect("game_detail", game_id)
    names = tables.player_names(game.players)
    done = analysis.status == analysis.Status.DONE
    return render(
        request,
        "games/analysis.html",
        {
            "game": game,
            "analysis": analysis,
            "chart": boards.chance_chart(
                analysis.decisions, [move["version"] for move in analysis.costliest]
            )
            if done and analysis.decisions
            else None,
            "moves": [
                {**move, "board": boards.analysis_board(move["board"], names)}
                for move in analysis.costliest
            ],
        },
    )


@login_required
def game_analysis_progress(request: HttpRequest, game_id: int) -> JsonResponse:
    """How far the player's analysis of the game has got (the page polls it)."""
    progress = (
        GameAnalysis.objects.filter(game_id=game_id, user=request.user)
        .values("status", "done", "total")
        .first()
    )
    if progress is None:
        raise Http404
    return JsonResponse(progress)


@login_required
def puzzle_next(request: HttpRequest) -> HttpResponse:
    """The next puzzle for the player, nearest his puzzle rating."""
    puzzle = services.puzzle_next(user=request.user)
    if puzzle is not None:
        return redirect("puzzle_detail", puzzle.pk)
    return render(
        request, "games/puzzle.html", {"puzzle": None, "rating": _puzzle_rating(request.user)}
    )


@login_required
def puzzle_detail(request: HttpRequest, puzzle_id: int) -> HttpResponse:
    """A puzzle: choose the one move that escapes being the durak; the first try is rated."""
    puzzle = get_object_or_404(Puzzle, pk=puzzle_id)
    if request.method == "POST":
        try:
            move = int(request.POST.get("move", ""))
        except ValueError:
            move = -1
        try:
            services.puzzle_try(user=request.user, puzzle_id=puzzle.pk, move=move)
        except GameError as error:
            refused(request, error)
        return redirect("puzzle_detail", puzzle.pk)
    attempt = PuzzleAttempt.objects.filter(puzzle=puzzle, user=request.user).first()
    return render(
        request,
        "games/puzzle.html",
        {
            "puzzle": puzzle,
            "board": boards.puzzle_board(puzzle),
            "moves": services.puzzle_legal_moves(puzzle),
            "attempt": attempt,
            "rating": _puzzle_rating(request.user),
        },
    )


def _puzzle_rating(user) -> int:
    return display_rating(*services.puzzle_rating_of(user))
