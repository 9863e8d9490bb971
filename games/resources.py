"""Export layouts of games (one row a game) and their payouts (one row a player a game)."""

from __future__ import annotations

from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _
from import_export import resources

from durak_site.staff.exports import number_column, percent_column, text_column, time_column
from games.models import BankDistribution, Game
from wallet.exports import money_column
from wallet.money import major_units


class GameResource(resources.ModelResource):
    file_name = "games"

    id = number_column(_("game no."), "id")
    table = number_column(_("table"), "table_id")
    number = number_column(_("number at the table"), "number")
    status = text_column(_("status"), "get_status_display")
    started_at = time_column(_("started at"), "started_at")
    finished_at = time_column(_("finished at"), "finished_at")
    player_count = number_column(_("number of players"), "player_count")
    stake = money_column(_("stake"), "stake")
    bank = money_column(_("bank"), "bank")
    commission = money_column(_("commission"), "commission")
    game_kind = text_column(_("game"), "game_kind")
    deck = number_column(_("deck, cards"), "deck")
    throw_in = text_column(_("who throws in"), "get_throw_in_display")
    limit = text_column(_("limits"), "get_limit_display")
    players = text_column(_("players"))
    durak = text_column(_("durak"))
    seed_hash = text_column(_("seed SHA-256"), "seed_hash")

    class Meta:
        model = Game
        name = _("games")
        fields = (
            "id",
            "table",
            "number",
            "status",
            "started_at",
            "finished_at",
            "player_count",
            "stake",
            "bank",
            "commission",
            "game_kind",
            "deck",
            "throw_in",
            "limit",
            "players",
            "durak",
            "seed_hash",
        )
        export_order = fields

    def dehydrate_player_count(self, game: Game) -> int:
        return len(game.players)

    def dehydrate_players(self, game: Game) -> str:
        names = {seat.user_id: seat.user.username for seat in game.table.seat_set.all()}
        return ", ".join(names.get(user_id, str(user_id)) for user_id in game.players)

    def dehydrate_durak(self, game: Game) -> str:
        shares = list(game.distribution.all())
        if game.status != Game.Status.FINISHED or not shares:
            return ""
        last = max(share.place for share in shares)
        losers = [share for share in shares if share.place == last]
        return losers[0].user.username if len(losers) == 1 and not losers[0].amount else ""


class PayoutResource(resources.ModelResource):
    """What each player of the selected games staked and was paid."""

    file_name = "payouts"

    game = number_column(_("game no."), "game_id")
    table = number_column(_("table"), "game__table_id")
    finished_at = time_column(_("finished at"), "game__finished_at")
    game_kind = text_column(_("game"), "game__game_kind")
    deck = number_column(_("deck, cards"), "game__deck")
    throw_in = text_column(_("who throws in"), "game__get_throw_in_display")
    limit = text_column(_("limits"), "game__get_limit_display")
    player = text_column(_("player"), "user__username")
    place = number_column(_("finishing place"), "place")
    percent = percent_column(_("share of the bank, %"), "percent")
    stake = money_column(_("stake"), "game__stake")
    amount = money_column(_("paid out"), "amount")
    net = money_column(_("net result"))

    class Meta:
        model = BankDistribution
        name = _("payouts")
        fields = (
            "game",
            "table",
            "finished_at",
            "game_kind",
            "deck",
            "throw_in",
            "limit",
            "player",
            "place",
            "percent",
            "stake",
            "amount",
            "net",
        )
        export_order = fields

    def filter_export(self, queryset: QuerySet[Game], **kwargs) -> QuerySet[BankDistribution]:
        return (
            BankDistribution.objects.filter(game__in=queryset)
            .select_related("game", "user")
            .order_by("game_id", "place", "seat")
        )

    def dehydrate_net(self, share: BankDistribution):
        return major_units(share.amount - share.game.stake)
