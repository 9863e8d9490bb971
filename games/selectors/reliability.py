"""A player's reliability: of his latest games with a stake, the share he played through
himself (docs/features.md, «Reliability»).

A game counts once it has finished (its bank shares are written then); a game is left to the
server when the server made at least one move for him in it because his time ran out
(``GameEvent.automatic``). One indexed statement: the player's latest bank shares by the
(user, game) index, each looking up the partial index of the server's moves.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Exists, OuterRef

from games.models import BankDistribution, GameEvent

# How many of the player's latest games with a stake the score looks at.
RELIABILITY_GAMES = 20


@dataclass(frozen=True)
class Reliability:
    counted: int  # games with a stake looked at (at most RELIABILITY_GAMES)
    clean: int  # of them, played through without the server moving for him

    @property
    def percent(self) -> int | None:
        """The share of clean games, rounded down; None before his first game with a stake."""
        return self.clean * 100 // self.counted if self.counted else None

    def meets(self, minimum: int) -> bool:
        """Whether he may sit at a table that asks for `minimum` % (0 asks for nothing)."""
        return not minimum or (self.percent is not None and self.percent >= minimum)


def player_reliability(*, user_id: int) -> Reliability:
    timed_out = GameEvent.objects.filter(
        game_id=OuterRef("game_id"), seat=OuterRef("seat"), automatic=True
    )
    latest = (
        BankDistribution.objects.filter(user_id=user_id, game__stake__gt=0)
        .order_by("-game_id")
        .annotate(timed_out=Exists(timed_out))
        .values_list("timed_out", flat=True)[:RELIABILITY_GAMES]
    )
    flags = list(latest)
    return Reliability(counted=len(flags), clean=flags.count(False))
