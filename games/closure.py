"""What the games require before an account closes: no seat at any table."""

from __future__ import annotations

from django.utils.translation import gettext as _

from games.models import Seat


def games_closure_problem(user) -> str | None:
    seat = Seat.objects.filter(user_id=user.pk, left_at__isnull=True).order_by("pk").first()
    if seat is not None:
        return _(
            "The account holds a seat at table #%(table)s. Leave the table (or finish the game) "
            "before the account can close."
        ) % {"table": seat.table_id}
    return None
