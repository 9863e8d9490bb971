"""Staff exports of the selected tournaments: their entries, their games and their payouts."""

from __future__ import annotations

from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _
from import_export import resources

from durak_site.staff.exports import number_column, text_column, time_column
from tournaments.models import Entry, Tournament, TournamentGame
from wallet.exports import money_column
from wallet.money import major_units


class EntryResource(resources.ModelResource):
    """One row an entry: who registered, what he paid, how he finished."""

    file_name = "tournament-entries"

    tournament = number_column(_("tournament no."), "tournament_id")
    name = text_column(_("tournament"), "tournament__name")
    player = text_column(_("player"), "user__username")
    status = text_column(_("status"), "get_status_display")
    registered_at = time_column(_("registered at"), "registered_at")
    paid = money_column(_("entry paid"))
    returned = money_column(_("entry returned"))
    games = number_column(_("games"), "games")
    points = text_column(_("points"), "points_shown")
    place = number_column(_("place"), "place")
    prize = money_column(_("prize"), "prize")

    class Meta:
        model = Entry
        name = _("entries")
        fields = (
            "tournament",
            "name",
            "player",
            "status",
            "registered_at",
            "paid",
            "returned",
            "games",
            "points",
            "place",
            "prize",
        )
        export_order = fields

    def filter_export(self, queryset: QuerySet[Tournament], **kwargs) -> QuerySet[Entry]:
        return (
            Entry.objects.filter(tournament__in=queryset)
            .select_related("tournament", "user")
            .order_by("tournament_id", "place", "pk")
        )

    def dehydrate_paid(self, entry: Entry):
        return major_units(entry.tournament.entry_cost if entry.hold_id else 0)

    def dehydrate_returned(self, entry: Entry):
        return major_units(entry.tournament.entry_cost if entry.refund_id else 0)


class PayoutResource(EntryResource):
    """The entries paid a prize."""

    file_name = "tournament-payouts"

    class Meta(EntryResource.Meta):
        name = _("payouts")

    def filter_export(self, queryset: QuerySet[Tournament], **kwargs) -> QuerySet[Entry]:
        return super().filter_export(queryset).filter(prize__gt=0)


class TournamentGameResource(resources.ModelResource):
    """One row a game a tournament seated."""

    file_name = "tournament-games"

    tournament = number_column(_("tournament no."), "tournament_id")
    name = text_column(_("tournament"), "tournament__name")
    round = number_column(_("round"), "round")
    game = number_column(_("game no."), "game_id")
    table = number_column(_("table"), "game__table_id")
    status = text_column(_("status"), "game__get_status_display")
    started_at = time_column(_("started at"), "game__started_at")
    finished_at = time_column(_("finished at"), "game__finished_at")
    players = text_column(_("players"))

    class Meta:
        model = TournamentGame
        name = _("games")
        fields = (
            "tournament",
            "name",
            "round",
            "game",
            "table",
            "status",
            "started_at",
            "finished_at",
            "players",
        )
        export_order = fields

    def filter_export(self, queryset: QuerySet[Tournament], **kwargs) -> QuerySet[TournamentGame]:
        return (
            TournamentGame.objects.filter(tournament__in=queryset)
            .select_related("tournament", "game")
            .prefetch_related("game__table__seat_set__user")
            .order_by("tournament_id", "pk")
        )

    def dehydrate_players(self, row: TournamentGame) -> str:
        names = {seat.user_id: seat.user.username for seat in row.game.table.seat_set.all()}
        return ", ".join(names.get(user_id, str(user_id)) for user_id in row.game.players)
