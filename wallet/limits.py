"""Limits a player sets for himself, and breaks from play ("self-exclusion").

The checks run inside the money command's transaction, after the player's wallet row is
locked (``services.lock_wallet``): two deposits or two seats taken at the same moment are
checked one after the other, each seeing what the other moved.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext_lazy as _

from durak_site.accounts import identity
from wallet import services
from wallet.models import Account, Entry, LedgerTransaction, Payment, PlayerLimit, SelfExclusion
from wallet.money import format_money
from wallet.services import InvalidCommand, WalletError

# A raised (or removed) limit waits this long; a lowered one applies at once.
RAISE_DELAY = timedelta(hours=24)
WINDOWS = {"day": timedelta(days=1), "week": timedelta(days=7), "month": timedelta(days=30)}
DEPOSIT_LIMITS = {
    "day": PlayerLimit.Kind.DEPOSIT_DAY,
    "week": PlayerLimit.Kind.DEPOSIT_WEEK,
    "month": PlayerLimit.Kind.DEPOSIT_MONTH,
}
LOSS_LIMITS = {
    "day": PlayerLimit.Kind.LOSS_DAY,
    "week": PlayerLimit.Kind.LOSS_WEEK,
    "month": PlayerLimit.Kind.LOSS_MONTH,
}
BREAKS = {"24h": timedelta(hours=24), "7d": timedelta(days=7), "30d": timedelta(days=30)}
FOREVER = "forever"
# The ledger kinds whose sum is a player's net result of games with stakes.
GAME_KINDS = (
    LedgerTransaction.Kind.STAKE_HOLD,
    LedgerTransaction.Kind.STAKE_RELEASE,
    LedgerTransaction.Kind.BANK_SETTLE,
    LedgerTransaction.Kind.TOURNAMENT_ENTRY,
    LedgerTransaction.Kind.TOURNAMENT_REFUND,
    LedgerTransaction.Kind.TOURNAMENT_PAYOUT,
)


class SelfExcluded(WalletError):
    code = "self_excluded"
    default_message = _("You are on a break from play.")


class LimitReached(WalletError):
    code = "limit_reached"


class IdentityNotVerified(WalletError):
    code = "identity_not_verified"


@dataclass(frozen=True)
class LimitState:
    kind: str
    value: int | None
    pending_value: int | None
    pending_from: datetime | None


# --- reads -----------------------------------------------------------------------------------


def limits_of(*, user, now: datetime | None = None) -> dict[str, LimitState]:
    """Every limit kind with its value now and any raise still waiting."""
    now = now or timezone.now()
    rows = {row.kind: row for row in PlayerLimit.objects.filter(user_id=user.pk)}
    states = {}
    for kind in PlayerLimit.Kind.values:
        row = rows.get(kind)
        if row is None:
            states[kind] = LimitState(kind, None, None, None)
        elif row.pending_from is not None and row.pending_from > now:
            states[kind] = LimitState(kind, row.value, row.pending_value, row.pending_from)
        else:
            states[kind] = LimitState(kind, row.effective(now), None, None)
    return states


def reminder_minutes(*, user) -> int | None:
    """The play-time reminder in minutes, as it applies now."""
    row = PlayerLimit.objects.filter(user_id=user.pk, kind=PlayerLimit.Kind.PLAY_REMINDER).first()
    return None if row is None else row.effective(timezone.now())


def active_break(*, user, now: datetime | None = None) -> SelfExclusion | None:
    """The break the player is on now (the one ending last), if any."""
    now = now or timezone.now()
    return (
        SelfExclusion.objects.filter(user_id=user.pk)
        .filter(Q(ends_at__isnull=True) | Q(ends_at__gt=now))
        .order_by("ends_at")  # PostgreSQL sorts NULL (for good) last
        .last()
    )


# --- commands --------------------------------------------------------------------------------


def limit_set(*, user, kind: str, value: int | None) -> PlayerLimit:
    """Set one limit: lower applies now, higher or none after ``RAISE_DELAY``."""
    if kind not in PlayerLimit.Kind.values:
        raise InvalidCommand(_("Unknown limit."))
    if value is not None and (type(value) is not int or value <= 0):
        raise InvalidCommand(_("A limit must be a positive whole number."))
    with transaction.atomic():
        services.lock_wallet(user=user)
        now = timezone.now()
        row, _created = PlayerLimit.objects.get_or_create(user=user, kind=kind)
        current = row.effective(now)
        if _stricter_or_same(value, current):
            row.value, row.pending_value, row.pending_from = value, None, None
        else:
            row.value, row.pending_value, row.pending_from = current, value, now + RAISE_DELAY
        row.updated_at = now
        row.save()
    return row


def break_start(*, user, length: str) -> SelfExclusion:
    """Start a break from play of ``length`` (a key of ``BREAKS`` or ``FOREVER``).

    A break can be made longer by a new one, never shorter.
    """
    if length != FOREVER and length not in BREAKS:
        raise InvalidCommand(_("Unknown break length."))
    with transaction.atomic():
        services.lock_wallet(user=user)
        now = timezone.now()
        ends_at = None if length == FOREVER else now + BREAKS[length]
        current = active_break(user=user, now=now)
        if current is not None and (
            current.ends_at is None or (ends_at is not None and ends_at <= current.ends_at)
        ):
            raise InvalidCommand(_("You are already on a break that ends later."))
        return SelfExclusion.objects.create(user=user, started_at=now, ends_at=ends_at)


# --- checks (the caller holds the player's wallet lock) --------------------------------------


def check_not_on_break(*, user, now: datetime) -> None:
    current = active_break(user=user, now=now)
    if current is None:
        return
    if current.ends_at is None:
        raise SelfExcluded(_("You closed your account to play for good."))
    raise SelfExcluded(
        _("You are on a break from play until %(end)s.")
        % {"end": date_format(timezone.localtime(current.ends_at), "DATETIME_FORMAT")}
    )


def check_identity(*, user, purpose: str, amount: int | None = None) -> None:
    """Refuse what the settings allow only to a verified identity (accounts.identity)."""
    if identity.needs_identity(purpose=purpose, amount=amount) and not identity.is_verified(user):
        raise IdentityNotVerified(identity.not_verified_message())


def check_deposit(*, user, amount: int, excluding: int | None = None) -> None:
    """Refuse a deposit during a break, beyond a deposit limit (open payments count, but the
    payment ``excluding``, the one being checked), or above the sum that needs a verified
    identity before it."""
    now = timezone.now()
    check_not_on_break(user=user, now=now)
    check_identity(user=user, purpose="deposit", amount=amount)
    limits = _limits(user, DEPOSIT_LIMITS, now)
    if not limits:
        return
    since = {period: now - WINDOWS[period] for period in limits}
    totals = (
        Payment.objects.filter(
            user_id=user.pk,
            status__in=[*Payment.OPEN_STATUSES, Payment.Status.SUCCEEDED],
            created_at__gt=min(since.values()),
        )
        .exclude(pk=excluding)
        .aggregate(
            **{
                period: Coalesce(Sum("amount", filter=Q(created_at__gt=start)), 0)
                for period, start in since.items()
            }
        )
    )
    for period, limit in limits.items():
        if totals[period] + amount > limit:
            raise LimitReached(
                _("This deposit would pass your %(period)s deposit limit of %(limit)s.")
                % {"period": PERIOD_NAMES[period], "limit": format_money(limit)}
            )


def check_stake(*, user, amount: int) -> Account:
    """Refuse a stake during a break, when losing it would pass a loss limit, or when play
    needs a verified identity he lacks; the player's wallet, locked for the rest of the
    caller's transaction.

    Losses are the player's net result of games with stakes over the period (stakes held,
    returned and paid out), counting held stakes as lost until their game pays out.
    """
    wallet = services.lock_wallet(user=user)
    now = timezone.now()
    check_not_on_break(user=user, now=now)
    check_identity(user=user, purpose="play")
    limits = _limits(user, LOSS_LIMITS, now)
    if not limits:
        return wallet
    since = {period: now - WINDOWS[period] for period in limits}
    nets = Entry.objects.filter(
        account__kind="user",
        account__user_id=user.pk,
        transaction__kind__in=GAME_KINDS,
        transaction__created_at__gt=min(since.values()),
    ).aggregate(
        **{
            period: Coalesce(Sum("amount", filter=Q(transaction__created_at__gt=start)), 0)
            for period, start in since.items()
        }
    )
    for period, limit in limits.items():
        if max(0, -nets[period]) + amount > limit:
            raise LimitReached(
                _("This stake could pass your %(period)s loss limit of %(limit)s.")
                % {"period": PERIOD_NAMES[period], "limit": format_money(limit)}
            )
    return wallet


PERIOD_NAMES = {"day": _("daily"), "week": _("weekly"), "month": _("monthly")}


def _limits(user, kinds: dict[str, str], now: datetime) -> dict[str, int]:
    rows = PlayerLimit.objects.filter(user_id=user.pk, kind__in=kinds.values())
    by_kind = {row.kind: row.effective(now) for row in rows}
    return {
        period: by_kind[kind] for period, kind in kinds.items() if by_kind.get(kind) is not None
    }


def _stricter_or_same(new: int | None, current: int | None) -> bool:
    if new is None:
        return current is None
    return current is None or new <= current
