"""Withdrawals: a player asks, staff approve (two of them above a set amount) or reject.

Every command locks the withdrawal row first, then the ledger accounts (through the money
commands), and moves money only from a pending request, so a double click, a second staff
member deciding at the same moment or a cancel racing an approval decides it once.
"""

from __future__ import annotations

from functools import partial

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.functional import lazy
from django.utils.translation import gettext_lazy as _

from durak_site.accounts import identity
from durak_site.audit.services import record_staff_action
from durak_site.celery import app as celery_app
from durak_site.push import services as push
from wallet import selectors, services
from wallet.models import Withdrawal
from wallet.money import format_money
from wallet.services import InvalidCommand, WalletError

PERMISSION = "wallet.approve_withdrawal"
PAID_NOTICE_TASK = "wallet.tasks.notify_withdrawal_paid"
# How long the push telling a player his withdrawal was paid waits for an offline device.
PAID_NOTICE_SECONDS = 24 * 3600


class WithdrawalError(WalletError):
    code = "withdrawal_error"


class WithdrawalAwaitsIdentity(WithdrawalError):
    code = "withdrawal_awaits_identity"
    default_message = _(
        "The player's identity is not verified yet, and his first withdrawal waits for it: "
        "review his documents first (Players → the player → Identity documents)."
    )


class WithdrawalNotPending(WithdrawalError):
    code = "withdrawal_not_pending"
    default_message = _("This withdrawal has already been decided.")


def withdrawal_request(*, user, amount: int, payout_details: str, request_key: str) -> Withdrawal:
    """Move ``amount`` from the wallet to pending withdrawals and queue it for staff.

    ``request_key`` comes from the form, so a double submit asks once.
    """
    too_small = WithdrawalError(
        _("The smallest withdrawal is %(min)s, unless it is your whole balance.")
        % {"min": format_money(settings.WITHDRAWAL_MIN)}
    )
    if type(amount) is not int or amount <= 0:
        raise too_small
    payout_details = (payout_details or "").strip()
    if not payout_details:
        raise InvalidCommand(_("Say where the money should be paid."))
    with transaction.atomic():
        hold = services.withdrawal_hold(
            user=user, amount=amount, idempotency_key=f"withdraw:{user.pk}:{request_key}"
        )
        existing = Withdrawal.objects.filter(hold_transaction=hold).first()
        if existing is not None:
            return existing
        # A rest below the minimum may leave only as the whole balance, so that every account
        # can be emptied (and closed). The hold has locked the wallet: the balance is final.
        if amount < settings.WITHDRAWAL_MIN and selectors.user_balance(user=user) != 0:
            raise too_small
        return Withdrawal.objects.create(
            user=user, amount=amount, payout_details=payout_details, hold_transaction=hold
        )


def payout_waits_for_identity(user) -> bool:
    """Whether staff may pay this player's withdrawal only after verifying his identity: the
    settings ask it for a first withdrawal, none of his has been paid, and he is not verified."""
    return (
        identity.needs_identity(purpose="first_withdrawal")
        and not Withdrawal.objects.filter(
            user_id=user.pk, status=Withdrawal.Status.APPROVED
        ).exists()
        and not identity.is_verified(user)
    )


def withdrawal_cancel(*, withdrawal_id: int, user) -> Withdrawal:
    """The player takes back a request that staff have not decided yet."""
    with transaction.atomic():
        withdrawal = _lock(withdrawal_id, user=user)
        _return_money(withdrawal, Withdrawal.Status.CANCELLED, by=user, reason="")
    return withdrawal


def withdrawal_reject(*, withdrawal_id: int, staff_user, reason: str) -> Withdrawal:
    """Staff refuse a request with a reason the player sees; the money returns to his wallet."""
    _check_staff(staff_user)
    reason = (reason or "").strip()
    if not reason:
        raise InvalidCommand(_("A reason is required."))
    with transaction.atomic():
        withdrawal = _lock_for_decision(withdrawal_id, staff_user)
        _return_money(withdrawal, Withdrawal.Status.REJECTED, by=staff_user, reason=reason)
        record_staff_action(
            staff=staff_user,
            action="wallet.withdrawal_reject",
            reason=reason,
            target=withdrawal,
            player=withdrawal.user,
            details={"amount": withdrawal.amount},
        )
    return withdrawal


def withdrawal_approve(*, withdrawal_id: int, staff_user, payout_reference: str = "") -> Withdrawal:
    """Staff approve a request. At or below the four-eyes amount this pays it out; above it,
    the first approval is recorded and a second staff member pays it out."""
    _check_staff(staff_user)
    payout_reference = (payout_reference or "").strip()
    with transaction.atomic():
        withdrawal = _lock_for_decision(withdrawal_id, staff_user)
        if payout_waits_for_identity(withdrawal.user):
            raise WithdrawalAwaitsIdentity()
        needs_two = withdrawal.amount > settings.WITHDRAWAL_FOUR_EYES_ABOVE
        now = timezone.now()
        if needs_two and withdrawal.first_approved_by_id is None:
            withdrawal.first_approved_by = staff_user
            withdrawal.first_approved_at = now
            withdrawal.save(update_fields=["first_approved_by", "first_approved_at"])
            _record_approval(withdrawal, staff_user, "wallet.withdrawal_first_approval")
            return withdrawal
        if needs_two and withdrawal.first_approved_by_id == staff_user.pk:
            raise WithdrawalError(_("A second staff member must approve this withdrawal."))
        if not payout_reference:
            raise InvalidCommand(_("Give the payout reference."))
        withdrawal.settle_transaction = services.withdrawal_pay(
            amount=withdrawal.amount,
            idempotency_key=f"withdrawal:{withdrawal.pk}:pay",
            initiated_by=staff_user,
            memo=payout_reference,
        )
        withdrawal.status = Withdrawal.Status.APPROVED
        withdrawal.payout_reference = payout_reference
        withdrawal.decided_by = staff_user
        withdrawal.decided_at = now
        withdrawal.save()
        _record_approval(withdrawal, staff_user, "wallet.withdrawal_approve")
        if push.push_enabled():
            transaction.on_commit(partial(_send_paid_notice, withdrawal.pk))
    return withdrawal


def _send_paid_notice(withdrawal_id: int) -> None:
    celery_app.send_task(PAID_NOTICE_TASK, args=(withdrawal_id,))


def withdrawal_paid_notify(*, withdrawal_id: int) -> int:
    """Tell the player's devices that his withdrawal was paid; the number reached."""
    withdrawal = Withdrawal.objects.filter(
        pk=withdrawal_id, status=Withdrawal.Status.APPROVED
    ).first()
    if withdrawal is None:
        return 0
    notice = push.Notice(
        title=_("Your withdrawal was paid"),
        body=_("%(amount)s is on its way to you."),
        url=reverse("wallet"),
        topic="durak-wallet",
        expires_at=withdrawal.decided_at.timestamp() + PAID_NOTICE_SECONDS,
        params={"amount": lazy(format_money, str)(withdrawal.amount)},
    )
    return push.notify(user_ids=[withdrawal.user_id], notice=notice)


def _record_approval(withdrawal: Withdrawal, staff_user, action: str) -> None:
    record_staff_action(
        staff=staff_user,
        action=action,
        reason=withdrawal.payout_reference or str(_("withdrawal approved")),
        target=withdrawal,
        player=withdrawal.user,
        details={"amount": withdrawal.amount, "payout_reference": withdrawal.payout_reference},
    )


def _check_staff(staff_user) -> None:
    if staff_user is None or not staff_user.is_staff or not staff_user.has_perm(PERMISSION):
        raise WithdrawalError(_("You may not decide withdrawals."))


def _lock_for_decision(withdrawal_id, staff_user) -> Withdrawal:
    """A pending request locked for a staff decision, which is never its owner's."""
    withdrawal = _lock(withdrawal_id)
    if withdrawal.user_id == staff_user.pk:
        raise WithdrawalError(_("Nobody may decide his own withdrawal."))
    return withdrawal


def _lock(withdrawal_id, *, user=None) -> Withdrawal:
    if type(withdrawal_id) is not int:
        raise WithdrawalError(_("There is no such withdrawal."))
    # Only the withdrawal row: a lock on the joined user row would block the deferred foreign
    # key checks of the player's other transactions at their commit (a deadlock).
    withdrawals = Withdrawal.objects.select_for_update(of=("self",)).select_related("user")
    if user is not None:
        withdrawals = withdrawals.filter(user_id=user.pk)
    withdrawal = withdrawals.filter(pk=withdrawal_id).first()
    if withdrawal is None:
        raise WithdrawalError(_("There is no such withdrawal."))
    if withdrawal.status != Withdrawal.Status.PENDING:
        raise WithdrawalNotPending()
    return withdrawal


def _return_money(withdrawal: Withdrawal, status: str, *, by, reason: str) -> None:
    withdrawal.settle_transaction = services.withdrawal_return(
        user=withdrawal.user,
        amount=withdrawal.amount,
        idempotency_key=f"withdrawal:{withdrawal.pk}:return",
        initiated_by=by,
        memo=reason,
    )
    withdrawal.status = status
    withdrawal.reason = reason
    withdrawal.decided_by = by
    withdrawal.decided_at = timezone.now()
    withdrawal.save()
