"""Staff blocks from tables with stakes: recorded in the staff audit trail, shown to the player,
checked where a seat is taken with a stake."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from durak_site.audit.services import record_staff_action
from games.errors import GameError
from games.models import StakeBlock


def stake_block_create(*, staff_user, user, reason: str, ends_at: datetime) -> StakeBlock:
    """Block ``user`` from stake tables until ``ends_at``; the reason is mandatory."""
    reason = (reason or "").strip()
    if not getattr(staff_user, "is_staff", False) or staff_user.pk == user.pk:
        raise GameError("block_refused")
    if not reason or ends_at <= timezone.now():
        raise GameError("block_refused")
    with transaction.atomic():
        block = StakeBlock.objects.create(
            user=user, reason=reason, ends_at=ends_at, created_by=staff_user
        )
        record_staff_action(
            staff=staff_user,
            action="games.stake_block",
            reason=reason,
            target=block,
            player=user,
            details={"ends_at": ends_at.isoformat()},
        )
    return block


def active_stake_block(*, user, now: datetime | None = None) -> StakeBlock | None:
    """The block that keeps the player away longest, if any is in force."""
    if getattr(user, "pk", None) is None:
        return None
    return (
        StakeBlock.objects.filter(user_id=user.pk, ends_at__gt=now or timezone.now())
        .order_by("-ends_at")
        .first()
    )


def block_message(block: StakeBlock) -> str:
    return _("Staff have blocked you from tables with stakes until %(end)s. Reason: %(reason)s") % {
        "end": date_format(timezone.localtime(block.ends_at), "DATETIME_FORMAT"),
        "reason": block.reason,
    }


def block_notice(*, user) -> str | None:
    """What the player is told on the lobby and table pages while a block is in force."""
    block = active_stake_block(user=user)
    return None if block is None else block_message(block)


def check_not_blocked(*, user) -> None:
    notice = block_notice(user=user)
    if notice is not None:
        raise GameError("stake_blocked", notice)
