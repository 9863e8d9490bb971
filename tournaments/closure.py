"""What the tournaments require before an account closes: no entry in a tournament that has
not ended (its money is held in the tournament's pool)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from tournaments.models import Entry, Tournament

OPEN = (Tournament.Status.REGISTERING, Tournament.Status.RUNNING)


def tournaments_closure_problem(user) -> str | None:
    entry = (
        Entry.objects.filter(user_id=user.pk, tournament__status__in=OPEN)
        .exclude(status=Entry.Status.WITHDRAWN)
        .select_related("tournament")
        .first()
    )
    if entry is not None:
        return _(
            "The account is registered for the tournament «%(name)s». Unregister (or let it "
            "end) before the account can close."
        ) % {"name": entry.tournament.name}
    return None
