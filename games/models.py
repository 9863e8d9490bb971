"""Tables, seats, games, their append-only event log and the bank distribution."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games.engine import (
    MAX_PLAYERS,
    MAX_PLAYERS_BY_DECK,
    MIN_PLAYERS,
    BadPercentages,
    check_percentages,
)
from games.engine import OPTIONS as ENGINE_OPTIONS

# How long the players of a finished game have to confirm a rematch before held stakes return.
REMATCH_SECONDS = 120
# The player's seat at a practice table; bots hold every other seat.
PRACTICE_PLAYER_SEAT = 0
# What the server plays for an idle player, by the kind of move (RULES.md §5): auto-take,
# auto-pass, the lowest card to lead.
SERVER_MOVE_KINDS = {"take": "take", "pass": "pass", "attack": "lead"}


class BotLevel(models.TextChoices):
    """The bots' strengths; the values are the engine's level names (games.engine.bots)."""

    NOVICE = "novice", _("Novice")
    AMATEUR = "amateur", _("Amateur")
    MASTER = "master", _("Master")


class Deck(models.IntegerChoices):
    """How many cards the game is played with (RULES.md §7)."""

    CARDS_24 = 24, _("24 cards, 9 to ace")
    CARDS_36 = 36, _("36 cards, 6 to ace")
    CARDS_52 = 52, _("52 cards, 2 to ace")


class ThrowIn(models.TextChoices):
    """Who may throw in (RULES.md §7)."""

    ALL = "all", _("everyone throws in")
    NEIGHBOURS = "neighbours", _("the defender's neighbours throw in")


class Limit(models.TextChoices):
    """How many cards a bout may hold (RULES.md §7)."""

    ZAVALA = "zavala", _("do zavala")
    CLASSIC = "classic", _("classic")


class Speed(models.TextChoices):
    """How fast a table plays, by its turn time (RULES.md §7)."""

    FAST = "fast", _("fast")
    NORMAL = "normal", _("normal")
    SLOW = "slow", _("slow")


# Each speed's turn time and throw-in window, in seconds.
SPEED_PRESETS = {Speed.FAST: (15, 5), Speed.NORMAL: (30, 10), Speed.SLOW: (60, 15)}


def speed_of(turn_seconds: int) -> Speed:
    """The speed a turn time plays at: up to the fast preset's it is fast, from the slow
    preset's on it is slow, and normal between."""
    fast, slow = SPEED_PRESETS[Speed.FAST][0], SPEED_PRESETS[Speed.SLOW][0]
    if turn_seconds <= fast:
        return Speed.FAST
    return Speed.SLOW if turn_seconds >= slow else Speed.NORMAL


class GameOptions(models.Model):
    """The table options of RULES.md §7 a game is played with; the defaults are the engine's."""

    transfer = models.BooleanField(_("transfer"), default=ENGINE_OPTIONS["transfer"])
    deck = models.PositiveSmallIntegerField(_("deck"), choices=Deck, default=ENGINE_OPTIONS["deck"])
    throw_in = models.CharField(
        _("who throws in"), max_length=10, choices=ThrowIn, default=ENGINE_OPTIONS["throw_in"]
    )
    limit = models.CharField(
        _("limits"), max_length=7, choices=Limit, default=ENGINE_OPTIONS["limit"]
    )

    class Meta:
        abstract = True

    @property
    def game_kind(self) -> str:
        """Transfer or podkidnoy, in words."""
        return str(_("transfer") if self.transfer else _("podkidnoy"))

    @property
    def options_summary(self) -> str:
        """The options in a few words, for pages and staff."""
        parts = [self.get_deck_display(), self.get_throw_in_display(), self.get_limit_display()]
        return " · ".join([self.game_kind, *map(str, parts)])

    @property
    def options(self) -> dict:
        """The options as the engine takes them."""
        return {
            "transfer": self.transfer,
            "deck": self.deck,
            "throw_in": self.throw_in,
            "limit": self.limit,
        }


def options_constraints(prefix: str) -> list[models.CheckConstraint]:
    """The database's guard on a model's options (RULES.md §7)."""
    return [
        models.CheckConstraint(condition=Q(deck__in=Deck.values), name=f"{prefix}_deck_choices"),
        models.CheckConstraint(
            condition=Q(throw_in__in=ThrowIn.values), name=f"{prefix}_throw_in_choices"
        ),
        models.CheckConstraint(condition=Q(limit__in=Limit.values), name=f"{prefix}_limit_choices"),
    ]


class Table(GameOptions):
    class Status(models.TextChoices):
        OPEN = "open", _("open")
        PLAYING = "playing", _("playing")
        CLOSED = "closed", _("closed")

    stake = models.PositiveBigIntegerField(_("stake"), help_text=_("In minor units (kopecks)."))
    # How many seats the table has; its Seat rows are table.seat_set.
    seat_count = models.PositiveSmallIntegerField(_("seats"))
    turn_seconds = models.PositiveSmallIntegerField(_("turn time, s"), default=30)
    throw_seconds = models.PositiveSmallIntegerField(_("throw-in time, s"), default=10)
    commission_percent = models.DecimalField(
        _("commission, %"), max_digits=5, decimal_places=2, default=Decimal("0")
    )
    private = models.BooleanField(_("private"), default=False)
    invite_code = models.CharField(_("invite code"), max_length=32, blank=True)
    practice = models.BooleanField(
        _("practice"), default=False, help_text=_("One player against bots, without a stake.")
    )
    bot_level = models.CharField(_("bot level"), max_length=8, choices=BotLevel, blank=True)
    # The least reliability (games.selectors.reliability) a player needs to sit down; 0: none.
    min_reliability = models.PositiveSmallIntegerField(
        _("minimum reliability, %"), default=0, validators=[MaxValueValidator(100)]
    )
    # The tournament that seated this table's players, who play it without a stake.
    tournament_id = models.BigIntegerField(_("tournament"), null=True, blank=True, db_index=True)
    status = models.CharField(_("status"), max_length=8, choices=Status, default=Status.OPEN)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="tables_created",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(seat_count__gte=MIN_PLAYERS, seat_count__lte=MAX_PLAYERS),
                name="games_table_seats_2_6",
            ),
            models.CheckConstraint(
                condition=Q(stake__gt=0, practice=False, bot_level="", tournament_id__isnull=True)
                | Q(stake=0, practice=True, tournament_id__isnull=True) & ~Q(bot_level="")
                | Q(stake=0, practice=False, bot_level="", tournament_id__isnull=False),
                name="games_table_stake_or_practice",
            ),
            models.CheckConstraint(
                condition=Q(turn_seconds__gt=0, throw_seconds__gt=0),
                name="games_table_times_positive",
            ),
            models.CheckConstraint(
                condition=Q(min_reliability__lte=100), name="games_table_min_reliability_range"
            ),
            models.CheckConstraint(
                condition=Q(commission_percent__gte=0, commission_percent__lt=100),
                name="games_table_commission_range",
            ),
            models.CheckConstraint(
                condition=Q(private=False) | ~Q(invite_code=""),
                name="games_table_private_has_code",
            ),
            models.CheckConstraint(
                condition=~Q(deck=Deck.CARDS_24)
                | Q(seat_count__lte=MAX_PLAYERS_BY_DECK[Deck.CARDS_24]),
                name="games_table_24_cards_4_seats",
            ),
            *options_constraints("games_table"),
        ]
        indexes = [
            models.Index(
                fields=["status", "-created_at"],
                name="games_table_lobby_idx",
                condition=Q(private=False),
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.pk}"

    @property
    def speed(self) -> Speed:
        return speed_of(self.turn_seconds)


class Seat(models.Model):
    """One sitting of a player at a table; a new row each time he sits down."""

    table = models.ForeignKey(
        Table, on_delete=models.PROTECT, related_name="seat_set", verbose_name=_("table")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="seats",
        verbose_name=_("player"),
    )
    position = models.PositiveSmallIntegerField(_("position"))
    joined_at = models.DateTimeField(_("joined at"), auto_now_add=True)
    left_at = models.DateTimeField(_("left at"), null=True, blank=True)
    # The moves the server made for him since his own last one, by kind (SERVER_MOVE_KINDS):
    # his timeouts in a row, and what he is told on his return (RULES.md §5).
    server_moves = models.JSONField(_("server's moves since his last own"), default=dict)
    away = models.BooleanField(_("away"), default=False)
    # Since when none of his sockets is open at the table (None while one is).
    disconnected_at = models.DateTimeField(_("disconnected at"), null=True, blank=True)
    # Where the player sat down from (durak_site.web.client_source), for the fair-play checks.
    client_address = models.GenericIPAddressField(_("client address"), null=True, blank=True)
    browser_id = models.CharField(_("browser id"), max_length=32, blank=True)
    user_agent_hash = models.CharField(_("user agent hash"), max_length=16, blank=True)

    class Meta:
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        ordering = ["table_id", "position", "joined_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["table", "position"],
                condition=Q(left_at__isnull=True),
                name="games_seat_one_active_per_position",
            ),
            models.UniqueConstraint(
                fields=["table", "user"],
                condition=Q(left_at__isnull=True),
                name="games_seat_one_active_per_user",
            ),
            models.CheckConstraint(
                condition=Q(position__lt=MAX_PLAYERS), name="games_seat_position_range"
            ),
        ]
        indexes = [
            models.Index(
                fields=["disconnected_at"],
                name="games_seat_disconnected_idx",
                condition=Q(left_at__isnull=True, disconnected_at__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table} / {self.position}"

    @property
    def timeouts_in_a_row(self) -> int:
        return sum(self.server_moves.values())


class Game(GameOptions):
    class Status(models.TextChoices):
        PLAYING = "playing", _("playing")
        FINISHED = "finished", _("finished")
        # A practice game its player left before the end: no places, nothing recorded.
        ABANDONED = "abandoned", _("abandoned")

    table = models.ForeignKey(
        Table, on_delete=models.PROTECT, related_name="games", verbose_name=_("table")
    )
    number = models.PositiveIntegerField(_("number at the table"))
    state = models.JSONField(_("engine state"))
    version = models.PositiveIntegerField(_("version"), default=0)
    deadline = models.DateTimeField(_("deadline"), null=True, blank=True)
    seed = models.CharField(_("seed"), max_length=64)
    seed_hash = models.CharField(_("seed SHA-256"), max_length=64)
    status = models.CharField(_("status"), max_length=9, choices=Status, default=Status.PLAYING)
    started_at = models.DateTimeField(_("started at"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    rematch_until = models.DateTimeField(
        _("rematch until"),
        null=True,
        blank=True,
        help_text=_(
            "The players may confirm a rematch until then; an outage of the site pushes it back."
        ),
    )
    resumed_at = models.DateTimeField(
        _("resumed at"),
        null=True,
        blank=True,
        help_text=_(
            "When an outage of the site ended with this game waiting: a waited player who comes "
            "back within a turn time from then gets at least a throw-in window."
        ),
    )
    players = models.JSONField(_("players (user ids by seat)"))
    stake = models.PositiveBigIntegerField(_("stake"))
    bank = models.PositiveBigIntegerField(_("bank"))
    commission = models.PositiveBigIntegerField(_("commission"), null=True, blank=True)
    percentages = models.JSONField(_("payout percentages by place"), null=True, blank=True)
    ratings = models.JSONField(
        _("ratings at the start"),
        null=True,
        blank=True,
        help_text=_("Each seat's shown rating when the game started; none in practice."),
    )
    stalemate = models.BooleanField(
        _("stalemate"),
        default=False,
        help_text=_(
            "Everyone still in was away and the server's moves for them would have repeated "
            "forever: they share the remaining places."
        ),
    )

    class Meta:
        verbose_name = _("game")
        verbose_name_plural = _("games")
        ordering = ["-started_at"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="games_game_table_number"),
            models.UniqueConstraint(
                fields=["table"],
                condition=Q(status="playing"),
                name="games_game_one_playing_per_table",
            ),
            *options_constraints("games_game"),
        ]
        indexes = [
            models.Index(
                fields=["deadline"],
                name="games_game_deadline_idx",
                condition=Q(status="playing"),
            ),
            models.Index(fields=["status", "-started_at"], name="games_game_status_idx"),
        ]

    def __str__(self) -> str:
        return f"#{self.pk}"

    def rematch_open(self, now: datetime) -> bool:
        """Whether the players may still confirm a rematch of this finished game."""
        return self.rematch_until is not None and self.rematch_until > now


class ClockStop(models.Model):
    """The one row (``ROW``) that remembers an outage of the platform the games' clocks have to
    make up for (games.services.clocks), while PostgreSQL is up and Redis may not be.

    Times are Unix seconds, as in the note Redis keeps for outages that PostgreSQL cannot hold.
    """

    ROW = 1
    began = models.FloatField(_("stopped since"), null=True, blank=True)
    seen = models.FloatField(_("last seen stopped"), null=True, blank=True)
    resumed = models.FloatField(
        _("resumed"),
        null=True,
        blank=True,
        help_text=_(
            "The end of the last outage made up for: notes of it arriving late count no more."
        ),
    )

    class Meta:
        verbose_name = _("clock stop")
        verbose_name_plural = _("clock stops")

    def __str__(self) -> str:
        return f"{self.began}–{self.seen}"


class GameEvent(models.Model):
    """One applied action; rows are only ever added."""

    game = models.ForeignKey(
        Game, on_delete=models.PROTECT, related_name="events", verbose_name=_("game")
    )
    version = models.PositiveIntegerField(_("version"))
    bout = models.PositiveIntegerField(_("bout"))
    seat = models.PositiveSmallIntegerField(_("seat"))
    action = models.JSONField(_("action"))
    automatic = models.BooleanField(_("automatic"), default=False)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("game event")
        verbose_name_plural = _("game events")
        ordering = ["game_id", "version"]
        constraints = [
            models.UniqueConstraint(fields=["game", "version"], name="games_event_game_version"),
        ]
        indexes = [
            # The server's moves for a seat, which a player's reliability looks up per game.
            models.Index(
                fields=["game", "seat"],
                name="games_event_automatic_idx",
                condition=Q(automatic=True),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.game} v{self.version}"


class BankDistribution(models.Model):
    game = models.ForeignKey(
        Game, on_delete=models.PROTECT, related_name="distribution", verbose_name=_("game")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="bank_shares",
        verbose_name=_("player"),
    )
    seat = models.PositiveSmallIntegerField(_("seat"))
    place = models.PositiveSmallIntegerField(_("place"))
    percent = models.DecimalField(_("percent"), max_digits=9, decimal_places=4)
    amount = models.PositiveBigIntegerField(_("amount"))

    class Meta:
        verbose_name = _("bank share")
        verbose_name_plural = _("bank distribution")
        ordering = ["game_id", "place", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seat"], name="games_distribution_game_seat"),
        ]
        # A player's latest finished games, newest first (his reliability, his history).
        indexes = [models.Index(fields=["user", "-game"], name="games_distribution_user_idx")]

    def __str__(self) -> str:
        return f"{self.game} / {self.seat}"


# What the engine's check of a payout row found, in words for staff.
PERCENTAGE_PROBLEMS = {
    "not_a_row": _("Give a list of whole percentages."),
    "not_100": _("The percentages must add up to 100."),
    "increasing": _("A later place may not get more."),
    "last_not_zero": _("The last place gets 0 %."),
}


class PayoutScheme(models.Model):
    """Percent of the distributed bank per place, for one number of players (RULES §6)."""

    players = models.PositiveSmallIntegerField(_("players"), unique=True)
    percentages = models.JSONField(_("percentages by place"))

    class Meta:
        verbose_name = _("payout scheme")
        verbose_name_plural = _("payout schemes")
        ordering = ["players"]
        constraints = [
            models.CheckConstraint(
                condition=Q(players__gte=MIN_PLAYERS, players__lte=MAX_PLAYERS),
                name="games_payout_players_2_6",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.players}: {self.percentages}"

    def clean(self) -> None:
        row = self.percentages
        if not isinstance(row, list) or any(type(value) is not int for value in row):
            raise ValidationError({"percentages": _("Give a list of whole percentages.")})
        if self.players is not None and len(row) != self.players:
            raise ValidationError({"percentages": _("Give exactly one percentage for each place.")})
        try:
            check_percentages(row)
        except BadPercentages as error:
            raise ValidationError({"percentages": PERCENTAGE_PROBLEMS[error.code]}) from error


class Bot(models.Model):
    """The account a bot plays under; one bot sits at many practice tables at once."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="bot",
        verbose_name=_("account"),
    )
    level = models.CharField(_("level"), max_length=8, choices=BotLevel)
    number = models.PositiveSmallIntegerField(_("number"))

    class Meta:
        verbose_name = _("bot")
        verbose_name_plural = _("bots")
        ordering = ["level", "number"]
        constraints = [
            models.UniqueConstraint(fields=["level", "number"], name="games_bot_level_number"),
        ]

    def __str__(self) -> str:
        return f"{self.level} {self.number}"


class Rating(models.Model):
    """A player's skill (OpenSkill, Plackett-Luce) after his latest rated game."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        primary_key=True,
        related_name="rating",
        verbose_name=_("player"),
    )
    mu = models.FloatField(_("skill estimate (mu)"))
    sigma = models.FloatField(_("uncertainty (sigma)"))
    games = models.PositiveIntegerField(_("rated games"), default=0)

    class Meta:
        verbose_name = _("rating")
        verbose_name_plural = _("ratings")
        ordering = ["user_id"]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.mu:.2f} ± {self.sigma:.2f}"


class RatingChange(models.Model):
    """A player's rating after one rated game; rows are only ever added."""

    game = models.ForeignKey(
        Game, on_delete=models.PROTECT, related_name="rating_changes", verbose_name=_("game")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="rating_changes",
        verbose_name=_("player"),
    )
    mu = models.FloatField(_("skill estimate (mu)"))
    sigma = models.FloatField(_("uncertainty (sigma)"))
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("rating change")
        verbose_name_plural = _("rating changes")
        ordering = ["user_id", "id"]
        constraints = [
            models.UniqueConstraint(fields=["game", "user"], name="games_rating_once_per_game"),
        ]

    def __str__(self) -> str:
        return f"{self.game} / {self.user_id}"


class StakeBlock(models.Model):
    """Staff keep a player from tables with stakes until ``ends_at``, for a stated reason."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="stake_blocks",
        verbose_name=_("player"),
    )
    reason = models.TextField(_("reason"))
    ends_at = models.DateTimeField(_("blocked until"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("blocked by"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("block from stake tables")
        verbose_name_plural = _("blocks from stake tables")
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["user", "-ends_at"], name="games_block_user_ends_idx")]

    def __str__(self) -> str:
        return f"{self.user} / {self.ends_at:%Y-%m-%d}"


class ChatPhrase(models.TextChoices):
    """The table chat's quick phrases; each reader sees them in his own language."""

    HELLO = "hello", pgettext_lazy("chat phrase", "Hi, everyone!")
    GOOD_LUCK = "good_luck", pgettext_lazy("chat phrase", "Good luck!")
    YOUR_MOVE = "your_move", pgettext_lazy("chat phrase", "Your move!")
    BEATEN = "beaten", pgettext_lazy("chat phrase", "Beaten off")
    NICE = "nice", pgettext_lazy("chat phrase", "Nice move!")
    OOPS = "oops", pgettext_lazy("chat phrase", "Oops")
    THANKS = "thanks", pgettext_lazy("chat phrase", "Thanks for the game!")


class ChatMessage(models.Model):
    """One message of a table's chat, kept with the game it was written during."""

    table = models.ForeignKey(
        Table, on_delete=models.PROTECT, related_name="chat_messages", verbose_name=_("table")
    )
    # None for messages written before the table's first game.
    game = models.ForeignKey(
        Game,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="chat_messages",
        verbose_name=_("game"),
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="chat_messages",
        verbose_name=_("author"),
    )
    text = models.CharField(_("text"), max_length=200, blank=True)
    phrase = models.CharField(_("quick phrase"), max_length=16, choices=ChatPhrase, blank=True)
    created_at = models.DateTimeField(_("written at"), auto_now_add=True)

    class Meta:
        verbose_name = _("chat message")
        verbose_name_plural = _("chat messages")
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(text="") & ~Q(phrase="")) | (~Q(text="") & Q(phrase="")),
                name="games_chat_text_or_phrase",
            ),
        ]
        indexes = [models.Index(fields=["table", "game", "-id"], name="games_chat_table_game_idx")]

    def __str__(self) -> str:
        return self.text or self.get_phrase_display()


class ChatMute(models.Model):
    """A player does not want to read another player's messages, at any table."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="chat_mutes",
        verbose_name=_("player"),
    )
    muted = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("muted player"),
    )
    created_at = models.DateTimeField(_("muted at"), auto_now_add=True)

    class Meta:
        verbose_name = _("muted player")
        verbose_name_plural = _("muted players")
        constraints = [
            models.UniqueConstraint(fields=["user", "muted"], name="games_chat_mute_once"),
            models.CheckConstraint(
                condition=~Q(user=models.F("muted")), name="games_chat_mute_other"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} / {self.muted}"


class ChatReport(models.Model):
    """A player's complaint about a chat message, in the staff queue until handled."""

    class Status(models.TextChoices):
        OPEN = "open", pgettext_lazy("chat report", "open")
        MUTED = "muted", _("author muted")
        DISMISSED = "dismissed", _("dismissed")

    message = models.ForeignKey(
        ChatMessage, on_delete=models.PROTECT, related_name="reports", verbose_name=_("message")
    )
    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="chat_reports",
        verbose_name=_("reported by"),
    )
    created_at = models.DateTimeField(_("reported at"), auto_now_add=True)
    status = models.CharField(_("status"), max_length=10, choices=Status, default=Status.OPEN)
    handled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("handled by"),
    )
    handled_at = models.DateTimeField(_("handled at"), null=True, blank=True)

    class Meta:
        verbose_name = _("chat report")
        verbose_name_plural = _("chat reports")
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["message", "reporter"], name="games_chat_report_once"),
        ]
        indexes = [models.Index(fields=["status", "-id"], name="games_chat_report_status_idx")]

    def __str__(self) -> str:
        return f"#{self.pk}"


class ChatBan(models.Model):
    """Staff silenced a player in every table chat until a time."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="chat_bans",
        verbose_name=_("player"),
    )
    until = models.DateTimeField(_("muted until"))
    reason = models.TextField(_("reason"))
    staff = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("staff member"),
    )
    report = models.ForeignKey(
        ChatReport,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="bans",
        verbose_name=_("report"),
    )
    created_at = models.DateTimeField(_("muted at"), auto_now_add=True)

    class Meta:
        verbose_name = _("chat mute by staff")
        verbose_name_plural = _("chat mutes by staff")
        ordering = ["-id"]
        indexes = [models.Index(fields=["user", "-until"], name="games_chat_ban_user_idx")]

    def __str__(self) -> str:
        return f"{self.user} / {self.until:%Y-%m-%d %H:%M}"


class GameAnalysis(models.Model):
    """A player's post-game analysis («Разбор партии»): his decisions judged by the search."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("queued")
        RUNNING = "running", _("running")
        DONE = "done", _("done")
        FAILED = "failed", _("failed")

    game = models.ForeignKey(
        Game, on_delete=models.PROTECT, related_name="analyses", verbose_name=_("game")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="game_analyses",
        verbose_name=_("player"),
    )
    status = models.CharField(_("status"), max_length=8, choices=Status, default=Status.QUEUED)
    done = models.PositiveIntegerField(_("decisions judged"), default=0)
    total = models.PositiveIntegerField(_("decisions to judge"), default=0)
    # Each decision, in game order: {"version", "durak_played", "durak_best"}.
    decisions = models.JSONField(_("decisions"), default=list)
    # The costliest decisions with the player's view of the board then and the better move.
    costliest = models.JSONField(_("costliest moves"), default=list)
    created_at = models.DateTimeField(_("requested at"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        verbose_name = _("game analysis")
        verbose_name_plural = _("game analyses")
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["game", "user"], name="games_analysis_game_user"),
        ]

    def __str__(self) -> str:
        return f"{self.game} / {self.user_id}"


class Puzzle(models.Model):
    """A position from a finished game's endgame where exactly one move escapes being the
    durak («Задача»), with a rating of its own like a player's."""

    game = models.ForeignKey(
        Game, on_delete=models.PROTECT, related_name="puzzles", verbose_name=_("game")
    )
    version = models.PositiveIntegerField(_("game version of the position"))
    state = models.JSONField(_("engine state of the position"))
    seat = models.PositiveSmallIntegerField(_("seat to move"))
    answer = models.JSONField(_("the escaping move"))
    mu = models.FloatField(_("difficulty estimate (mu)"))
    sigma = models.FloatField(_("uncertainty (sigma)"))
    attempts = models.PositiveIntegerField(_("attempts"), default=0)
    solved = models.PositiveIntegerField(_("solved"), default=0)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("puzzle")
        verbose_name_plural = _("puzzles")
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["game", "version"], name="games_puzzle_game_version"),
        ]

    def __str__(self) -> str:
        return f"{self.game} @ {self.version}"


class PuzzleScan(models.Model):
    """A finished game whose endgame has been searched for puzzles."""

    game = models.OneToOneField(
        Game,
        on_delete=models.PROTECT,
        primary_key=True,
        related_name="puzzle_scan",
        verbose_name=_("game"),
    )
    found = models.PositiveSmallIntegerField(_("puzzles found"), default=0)
    scanned_at = models.DateTimeField(_("scanned at"), auto_now_add=True)

    class Meta:
        verbose_name = _("puzzle scan")
        verbose_name_plural = _("puzzle scans")

    def __str__(self) -> str:
        return str(self.game_id)


class PuzzleRating(models.Model):
    """A player's puzzle-solving skill (OpenSkill, as his game rating)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        primary_key=True,
        related_name="puzzle_rating",
        verbose_name=_("player"),
    )
    mu = models.FloatField(_("skill estimate (mu)"))
    sigma = models.FloatField(_("uncertainty (sigma)"))
    attempts = models.PositiveIntegerField(_("puzzles tried"), default=0)

    class Meta:
        verbose_name = _("puzzle rating")
        verbose_name_plural = _("puzzle ratings")

    def __str__(self) -> str:
        return f"{self.user_id}: {self.mu:.2f} ± {self.sigma:.2f}"


class PuzzleAttempt(models.Model):
    """A player's one rated try at a puzzle; rows are only ever added."""

    puzzle = models.ForeignKey(
        Puzzle, on_delete=models.PROTECT, related_name="tries", verbose_name=_("puzzle")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="puzzle_attempts",
        verbose_name=_("player"),
    )
    action = models.JSONField(_("move played"))
    solved = models.BooleanField(_("solved"))
    rating_before = models.IntegerField(_("puzzle rating before"))
    rating_after = models.IntegerField(_("puzzle rating after"))
    created_at = models.DateTimeField(_("tried at"), auto_now_add=True)

    class Meta:
        verbose_name = _("puzzle attempt")
        verbose_name_plural = _("puzzle attempts")
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["puzzle", "user"], name="games_puzzle_once_per_user"),
        ]

    def __str__(self) -> str:
        return f"{self.puzzle_id} / {self.user_id}"
