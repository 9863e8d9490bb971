"""``/ws/tournament/<id>/``: one tournament's standings and the player's own table, live."""

from __future__ import annotations

from django.utils import translation

from durak_site.sockets.db_threads import database_sync_to_async
from games.consumers import CLOSE_NOT_FOUND, LOBBY_MESSAGES, JsonSocket
from tournaments import effects, selectors
from tournaments.models import Tournament


def _state(tournament_id: int, user, language: str) -> dict | None:
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        return None
    countdown = selectors.countdown_to(tournament)
    with translation.override(language):
        return {
            "countdown": countdown and countdown.isoformat(),
            "type": "state",
            "status": tournament.status,
            "status_label": str(tournament.get_status_display()),
            "rows": selectors.standings_rows(tournament),
            "table": selectors.current_table(tournament=tournament, user=user),
        }


class TournamentConsumer(JsonSocket):
    messages = LOBBY_MESSAGES
    kind = "tournament"

    async def open(self) -> None:
        self.tournament_id = self.scope["url_route"]["kwargs"]["tournament_id"]
        await self.channel_layer.group_add(effects.group(self.tournament_id), self.channel_name)
        await self.send_state()

    async def release(self) -> None:
        if getattr(self, "tournament_id", None) is not None:
            await self.channel_layer.group_discard(
                effects.group(self.tournament_id), self.channel_name
            )
        await super().release()

    async def send_state(self) -> None:
        state = await database_sync_to_async(_state)(self.tournament_id, self.user, self.language)
        if state is None:
            await self.refuse(CLOSE_NOT_FOUND)
            return
        await self.send_json(state)

    async def tournament_changed(self, event: dict) -> None:
        await self.send_state()

    async def tournament_started(self, event: dict) -> None:
        await self.send_json({"type": "started"})
        await self.send_state()
