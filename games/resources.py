"""Export layout (django-import-export) of games with players, bank, commission and payouts.

Amounts are integer minor units, as stored.
"""

from __future__ import annotations

from django.conf import settings
from import_export import fields, resources

from games.models import Game


class GameResource(resources.ModelResource):
    table = fields.Field(attribute="table_id", column_name="table")
    currency = fields.Field(column_name="currency")
    players = fields.Field(column_name="players")
    payouts = fields.Field(column_name="payouts")
    durak = fields.Field(column_name="durak")

    class Meta:
        model = Game
        fields = (
            "id",
            "table",
            "number",
            "status",
            "started_at",
            "finished_at",
            "stake",
            "bank",
            "commission",
            "currency",
            "players",
            "payouts",
            "durak",
            "seed_hash",
        )
        export_order = fields

    def dehydrate_currency(self, game: Game) -> str:
        return settings.CURRENCY

    def dehydrate_players(self, game: Game) -> str:
        names = self._names(game)
        return ", ".join(names.get(user_id, str(user_id)) for user_id in game.players)

    def dehydrate_payouts(self, game: Game) -> str:
        return "; ".join(
            f"{share.user.username}: place {share.place}, {share.percent.normalize():f} %, "
            f"{share.amount}"
            for share in game.distribution.all()
        )

    def dehydrate_durak(self, game: Game) -> str:
        shares = list(game.distribution.all())
        if game.status != Game.Status.FINISHED or not shares:
            return ""
        last = max(share.place for share in shares)
        losers = [share for share in shares if share.place == last]
        return losers[0].user.username if len(losers) == 1 and not losers[0].amount else ""

    def _names(self, game: Game) -> dict[int, str]:
        return {seat.user_id: seat.user.username for seat in game.table.seat_set.all()}
