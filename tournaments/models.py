"""Tournaments: Sit & Go and Arena, their entries, games and recurring templates.

Money moves through the wallet: an entry's buy-in and fee are held in the tournament's pool in
one posting and either return in one posting or leave with the prizes, all in one posting.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from durak_site.web.client_source import Client
from games.engine import MAX_PLAYERS, MIN_PLAYERS
from games.models import GameOptions, options_constraints

SIT_AND_GO_SIZES = (4, 6, 8, 12, 16)
# Points are kept in sixtieths: a place shared by two to six players shares its points
# exactly.
POINT_UNITS = 60


class Kind(models.TextChoices):
    SIT_AND_GO = "sitgo", _("Sit & Go")
    ARENA = "arena", _("Arena")


class TournamentSettings(GameOptions):
    """What a tournament and a template that makes tournaments both say."""

    name = models.CharField(_("name"), max_length=80)
    kind = models.CharField(_("format"), max_length=5, choices=Kind)
    seats = models.PositiveSmallIntegerField(
        _("players (Sit & Go)"),
        null=True,
        blank=True,
        choices=[(size, str(size)) for size in SIT_AND_GO_SIZES],
    )
    table_size = models.PositiveSmallIntegerField(_("players at a table"), default=4)
    minutes = models.PositiveSmallIntegerField(_("length, minutes (Arena)"), null=True, blank=True)
    min_players = models.PositiveSmallIntegerField(
        _("fewest players (Arena)"),
        default=4,
        help_text=_("With fewer at the start the tournament is cancelled and every entry returns."),
    )
    buy_in = models.PositiveBigIntegerField(
        _("buy-in"), default=0, help_text=_("In kopecks; goes into the prize pool.")
    )
    fee = models.PositiveBigIntegerField(
        _("house fee"), default=0, help_text=_("In kopecks; the house keeps it.")
    )
    house_prize = models.PositiveBigIntegerField(
        _("prize added by the house"),
        default=0,
        help_text=_("In kopecks; a freeroll's whole prize pool."),
    )
    prize_percentages = models.JSONField(
        _("prize table, % by place"),
        default=list,
        blank=True,
        help_text=_("For example [50, 30, 20]; adds up to 100. Leave empty to pay a top share."),
    )
    prize_top_percent = models.PositiveSmallIntegerField(
        _("paid share of the field, %"),
        null=True,
        blank=True,
        help_text=_("For example 15: the top 15 % are paid on a falling curve."),
    )
    turn_seconds = models.PositiveSmallIntegerField(_("turn time, s"), default=30)
    throw_seconds = models.PositiveSmallIntegerField(_("throw-in time, s"), default=10)

    class Meta:
        abstract = True

    @property
    def entry_cost(self) -> int:
        return self.buy_in + self.fee

    @property
    def freeroll(self) -> bool:
        return self.buy_in == 0 and self.fee == 0


def settings_constraints(prefix: str) -> list[models.CheckConstraint]:
    return [
        models.CheckConstraint(
            condition=Q(kind="sitgo", seats__in=SIT_AND_GO_SIZES, table_size__lte=models.F("seats"))
            | Q(kind="arena", seats__isnull=True, minutes__gt=0),
            name=f"{prefix}_format_fields",
        ),
        models.CheckConstraint(
            condition=Q(table_size__gte=MIN_PLAYERS, table_size__lte=MAX_PLAYERS),
            name=f"{prefix}_table_size",
        ),
        models.CheckConstraint(
            condition=Q(min_players__gte=MIN_PLAYERS), name=f"{prefix}_min_players"
        ),
        *options_constraints(prefix),
    ]


class Template(TournamentSettings):
    """A tournament made again and again: an Arena every day (or on chosen weekdays) at a local
    time, or a Sit & Go always open for registration."""

    active = models.BooleanField(_("active"), default=True)
    local_time = models.TimeField(
        _("start, local time (Arena)"), null=True, blank=True, help_text=settings.TIME_ZONE
    )
    weekdays = models.JSONField(
        _("weekdays (Arena)"),
        default=list,
        blank=True,
        help_text=_("0 is Monday; empty is every day."),
    )
    announce_hours = models.PositiveSmallIntegerField(
        _("listed this many hours before the start"), default=24
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("recurring tournament")
        verbose_name_plural = _("recurring tournaments")
        ordering = ["name"]
        constraints = [
            *settings_constraints("tournaments_template"),
            models.CheckConstraint(
                condition=Q(kind="sitgo") | Q(local_time__isnull=False),
                name="tournaments_template_arena_time",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Tournament(TournamentSettings):
    class Status(models.TextChoices):
        REGISTERING = "registering", _("registration open")
        RUNNING = "running", _("running")
        FINISHED = "finished", _("finished")
        CANCELLED = "cancelled", _("cancelled")

    status = models.CharField(
        _("status"), max_length=11, choices=Status, default=Status.REGISTERING
    )
    starts_at = models.DateTimeField(
        _("starts at"),
        null=True,
        blank=True,
        help_text=_("An Arena starts then; a Sit & Go not full by then is cancelled."),
    )
    ends_at = models.DateTimeField(_("ends at"), null=True, blank=True)
    round = models.PositiveSmallIntegerField(_("round (Sit & Go)"), default=0)
    template = models.ForeignKey(
        Template,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="tournaments",
        verbose_name=_("made from"),
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("created by"),
        help_text=_("Empty when a recurring tournament made it."),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    cancel_reason = models.CharField(_("why cancelled"), max_length=200, blank=True)
    payout = models.OneToOneField(
        "wallet.LedgerTransaction",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("prizes paid"),
    )

    class Meta:
        verbose_name = _("tournament")
        verbose_name_plural = _("tournaments")
        ordering = ["-created_at"]
        constraints = [
            *settings_constraints("tournaments_tournament"),
            models.CheckConstraint(
                condition=Q(kind="sitgo") | Q(starts_at__isnull=False),
                name="tournaments_arena_starts",
            ),
            # A template makes each of its Arenas once, whoever materialises it.
            models.UniqueConstraint(
                fields=["template", "starts_at"], name="tournaments_one_per_template_start"
            ),
        ]
        indexes = [models.Index(fields=["status", "starts_at"], name="tournaments_status_idx")]

    def __str__(self) -> str:
        return f"{self.name} #{self.pk}"


class Entry(models.Model):
    class Status(models.TextChoices):
        REGISTERED = "registered", _("registered")
        WITHDRAWN = "withdrawn", _("withdrawn")
        WAITING = "waiting", _("waiting for a table")
        PLAYING = "playing", _("playing")
        AWAY = "away", _("away")
        OUT = "out", _("knocked out")
        DONE = "done", _("finished")

    tournament = models.ForeignKey(
        Tournament, on_delete=models.PROTECT, related_name="entries", verbose_name=_("tournament")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="tournament_entries",
        verbose_name=_("player"),
    )
    status = models.CharField(_("status"), max_length=10, choices=Status, default=Status.REGISTERED)
    registered_at = models.DateTimeField(_("registered at"), auto_now_add=True)
    # Where he registered from: his seats at the tournament's tables carry it, so the fair-play
    # report sees players from one address or browser meeting there as at any table.
    client_address = models.GenericIPAddressField(_("address"), null=True, blank=True)
    browser_id = models.CharField(_("browser"), max_length=64, blank=True)
    user_agent_hash = models.CharField(_("user agent hash"), max_length=64, blank=True)
    points = models.PositiveIntegerField(_("points, sixtieths"), default=0)
    games = models.PositiveSmallIntegerField(_("games"), default=0)
    places_sum = models.PositiveIntegerField(_("sum of places"), default=0)
    top_half_run = models.PositiveSmallIntegerField(_("top-half finishes in a row"), default=0)
    reached_at = models.DateTimeField(_("score reached at"), null=True, blank=True)
    waiting_since = models.DateTimeField(_("waiting since"), null=True, blank=True)
    last_game = models.ForeignKey(
        "games.Game",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("last game"),
    )
    out_round = models.PositiveSmallIntegerField(_("knocked out in round"), null=True, blank=True)
    place = models.PositiveSmallIntegerField(_("place"), null=True, blank=True)
    prize = models.PositiveBigIntegerField(_("prize"), default=0)
    hold = models.OneToOneField(
        "wallet.LedgerTransaction",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("entry held"),
    )
    refund = models.OneToOneField(
        "wallet.LedgerTransaction",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("entry returned"),
    )

    class Meta:
        verbose_name = _("tournament entry")
        verbose_name_plural = _("tournament entries")
        ordering = ["tournament", "place", "-points", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "user"],
                condition=~Q(status="withdrawn"),
                name="tournaments_one_entry_per_player",
            ),
        ]
        indexes = [models.Index(fields=["user", "-registered_at"], name="tournaments_entry_user")]

    def __str__(self) -> str:
        return f"{self.tournament} / {self.user}"

    @property
    def client(self) -> Client:
        return Client(self.client_address, self.browser_id, self.user_agent_hash)

    @property
    def points_shown(self) -> str:
        """The points for people: whole, or with at most two decimals."""
        whole, rest = divmod(self.points, POINT_UNITS)
        return str(whole) if not rest else f"{self.points / POINT_UNITS:.2f}".rstrip("0")

    @property
    def average_place(self) -> float | None:
        return self.places_sum / self.games if self.games else None


class TournamentGame(models.Model):
    """A game a tournament seated, with its round (Sit & Go)."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.PROTECT, related_name="games", verbose_name=_("tournament")
    )
    game = models.OneToOneField(
        "games.Game", on_delete=models.PROTECT, related_name="+", verbose_name=_("game")
    )
    round = models.PositiveSmallIntegerField(_("round"), default=0)
    finished = models.BooleanField(_("counted"), default=False)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("tournament game")
        verbose_name_plural = _("tournament games")
        ordering = ["tournament", "id"]
        indexes = [
            models.Index(
                fields=["tournament"],
                name="tournaments_game_running",
                condition=Q(finished=False),
            )
        ]

    def __str__(self) -> str:
        return f"{self.tournament} / {self.game}"
