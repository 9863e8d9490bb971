"""Withdrawals: the money waits in pending withdrawals until staff pay it out or return it."""

from __future__ import annotations

import uuid
from io import StringIO

import pytest
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import override_settings

from durak_site.audit.models import StaffAction
from wallet import selectors, services, withdrawals
from wallet.models import Account, LedgerTransaction, Withdrawal
from wallet.services import InsufficientFunds, InvalidCommand

pytestmark = pytest.mark.django_db

FOUR_EYES = override_settings(WITHDRAWAL_MIN=100_00, WITHDRAWAL_FOUR_EYES_ABOVE=1_000_00)


@pytest.fixture(autouse=True)
def _limits():
    with FOUR_EYES:
        yield


@pytest.fixture
def approver(make_user):
    def make(nickname: str | None = None):
        user = make_user(is_staff=True, nickname=nickname)
        user.user_permissions.add(Permission.objects.get(codename="approve_withdrawal"))
        return type(user).objects.get(pk=user.pk)  # fresh permission cache

    return make


def ask(user, amount=300_00, key=None) -> Withdrawal:
    return withdrawals.withdrawal_request(
        user=user,
        amount=amount,
        payout_details="card 4276 **** 1234",
        request_key=key or str(uuid.uuid4()),
    )


def pending_balance() -> int:
    return Account.objects.get(kind=Account.Kind.PENDING_PAYOUTS).balance


def test_a_request_moves_the_amount_to_pending_withdrawals_at_once(make_user):
    player = make_user(balance=1_000_00)
    withdrawal = ask(player)
    assert withdrawal.status == Withdrawal.Status.PENDING
    assert selectors.user_balance(user=player) == 700_00
    assert pending_balance() == 300_00
    assert withdrawal.hold_transaction.kind == LedgerTransaction.Kind.WITHDRAWAL_HOLD
    call_command("ledger_check")


def test_a_double_submit_asks_once(make_user):
    player = make_user(balance=1_000_00)
    first, again = ask(player, key="k1"), ask(player, key="k1")
    assert first.pk == again.pk
    assert selectors.user_balance(user=player) == 700_00


def test_more_than_the_balance_or_less_than_the_minimum_is_refused(make_user):
    player = make_user(balance=200_00)
    with pytest.raises(InsufficientFunds):
        ask(player, amount=200_01)
    with pytest.raises(withdrawals.WithdrawalError):
        ask(player, amount=99_99)
    with pytest.raises(InvalidCommand):
        withdrawals.withdrawal_request(
            user=player, amount=150_00, payout_details="  ", request_key="k"
        )
    assert selectors.user_balance(user=player) == 200_00
    assert not Withdrawal.objects.exists()


def test_a_rest_below_the_minimum_leaves_only_as_the_whole_balance(make_user):
    player = make_user(balance=150_00)
    ask(player, amount=100_00)
    with pytest.raises(withdrawals.WithdrawalError):
        ask(player, amount=49_99)
    assert selectors.user_balance(user=player) == 50_00
    rest = ask(player, amount=50_00)
    assert rest.status == Withdrawal.Status.PENDING
    assert selectors.user_balance(user=player) == 0
    assert pending_balance() == 150_00
    call_command("ledger_check")


def test_approval_pays_out_to_external_cash_and_is_recorded(make_user, approver):
    player, staff = make_user(balance=1_000_00), approver("kassir")
    withdrawal = ask(player)

    approved = withdrawals.withdrawal_approve(
        withdrawal_id=withdrawal.pk, staff_user=staff, payout_reference="bank-77"
    )

    assert approved.status == Withdrawal.Status.APPROVED
    assert (approved.decided_by, approved.payout_reference) == (staff, "bank-77")
    assert approved.settle_transaction.kind == LedgerTransaction.Kind.WITHDRAWAL
    assert pending_balance() == 0
    assert Account.objects.get(kind=Account.Kind.EXTERNAL, provider="").balance == -700_00
    assert selectors.user_balance(user=player) == 700_00
    action = StaffAction.objects.get(action="wallet.withdrawal_approve")
    assert (action.staff, action.player, action.target_id) == (staff, player, str(withdrawal.pk))
    call_command("ledger_check")


def test_approval_needs_the_permission_and_a_payout_reference(make_user, approver):
    player = make_user(balance=1_000_00)
    withdrawal = ask(player)
    plain_staff = make_user(is_staff=True)
    with pytest.raises(withdrawals.WithdrawalError):
        withdrawals.withdrawal_approve(
            withdrawal_id=withdrawal.pk, staff_user=plain_staff, payout_reference="x"
        )
    with pytest.raises(InvalidCommand):
        withdrawals.withdrawal_approve(
            withdrawal_id=withdrawal.pk, staff_user=approver(), payout_reference=" "
        )
    assert Withdrawal.objects.get(pk=withdrawal.pk).status == Withdrawal.Status.PENDING
    assert pending_balance() == 300_00


def test_nobody_approves_or_rejects_his_own_withdrawal(approver):
    staff = approver()
    services.deposit(user=staff, amount=500_00, idempotency_key="own", initiated_by=None, memo="")
    own = ask(staff)
    with pytest.raises(withdrawals.WithdrawalError, match="собственному выводу"):
        withdrawals.withdrawal_approve(
            withdrawal_id=own.pk, staff_user=staff, payout_reference="self"
        )
    with pytest.raises(withdrawals.WithdrawalError, match="собственному выводу"):
        withdrawals.withdrawal_reject(
            withdrawal_id=own.pk, staff_user=staff, reason="changed my mind"
        )
    assert Withdrawal.objects.get(pk=own.pk).status == Withdrawal.Status.PENDING
    assert pending_balance() == 300_00
    assert not StaffAction.objects.filter(staff=staff).exists()


def test_above_the_four_eyes_amount_two_different_staff_members_approve(make_user, approver):
    player = make_user(balance=5_000_00)
    first, second = approver("first"), approver("second")
    withdrawal = ask(player, amount=1_000_01)

    after_first = withdrawals.withdrawal_approve(withdrawal_id=withdrawal.pk, staff_user=first)
    assert after_first.status == Withdrawal.Status.PENDING
    assert after_first.first_approved_by == first
    assert pending_balance() == 1_000_01
    with pytest.raises(withdrawals.WithdrawalError):
        withdrawals.withdrawal_approve(
            withdrawal_id=withdrawal.pk, staff_user=first, payout_reference="again"
        )
    final = withdrawals.withdrawal_approve(
        withdrawal_id=withdrawal.pk, staff_user=second, payout_reference="bank-1"
    )
    assert (final.status, final.decided_by) == (Withdrawal.Status.APPROVED, second)
    assert pending_balance() == 0
    assert list(StaffAction.objects.order_by("id").values_list("action", "staff__username")) == [
        ("wallet.withdrawal_first_approval", "first"),
        ("wallet.withdrawal_approve", "second"),
    ]


def test_at_the_four_eyes_amount_one_approval_pays(make_user, approver):
    withdrawal = ask(make_user(balance=5_000_00), amount=1_000_00)
    paid = withdrawals.withdrawal_approve(
        withdrawal_id=withdrawal.pk, staff_user=approver(), payout_reference="r"
    )
    assert paid.status == Withdrawal.Status.APPROVED


def test_rejection_returns_the_money_with_a_reason_the_player_sees(client, make_user, approver):
    player, staff = make_user(balance=1_000_00), approver()
    withdrawal = ask(player)
    with pytest.raises(InvalidCommand):
        withdrawals.withdrawal_reject(withdrawal_id=withdrawal.pk, staff_user=staff, reason="")

    rejected = withdrawals.withdrawal_reject(
        withdrawal_id=withdrawal.pk, staff_user=staff, reason="Card holder name differs"
    )

    assert (rejected.status, rejected.reason) == (
        Withdrawal.Status.REJECTED,
        "Card holder name differs",
    )
    assert selectors.user_balance(user=player) == 1_000_00
    assert pending_balance() == 0
    assert StaffAction.objects.get(action="wallet.withdrawal_reject").reason == (
        "Card holder name differs"
    )
    client.force_login(player)
    html = client.get("/wallet/withdraw/").content.decode()
    assert "Card holder name differs" in html
    assert "отклонён" in html
    call_command("ledger_check")


def test_the_player_cancels_while_pending_but_not_after_a_decision(make_user, approver):
    player = make_user(balance=1_000_00)
    withdrawal = ask(player)
    cancelled = withdrawals.withdrawal_cancel(withdrawal_id=withdrawal.pk, user=player)
    assert cancelled.status == Withdrawal.Status.CANCELLED
    assert selectors.user_balance(user=player) == 1_000_00
    with pytest.raises(withdrawals.WithdrawalNotPending):
        withdrawals.withdrawal_cancel(withdrawal_id=withdrawal.pk, user=player)
    paid = ask(player)
    withdrawals.withdrawal_approve(
        withdrawal_id=paid.pk, staff_user=approver(), payout_reference="r"
    )
    with pytest.raises(withdrawals.WithdrawalNotPending):
        withdrawals.withdrawal_cancel(withdrawal_id=paid.pk, user=player)
    with pytest.raises(withdrawals.WithdrawalNotPending):
        withdrawals.withdrawal_reject(withdrawal_id=paid.pk, staff_user=approver(), reason="late")
    assert selectors.user_balance(user=player) == 700_00
    call_command("ledger_check")


def test_a_player_cannot_cancel_anothers_withdrawal(make_user):
    owner, other = make_user(balance=1_000_00), make_user()
    withdrawal = ask(owner)
    with pytest.raises(withdrawals.WithdrawalError):
        withdrawals.withdrawal_cancel(withdrawal_id=withdrawal.pk, user=other)
    with pytest.raises(withdrawals.WithdrawalError):
        withdrawals.withdrawal_cancel(withdrawal_id="1", user=owner)
    assert Withdrawal.objects.get(pk=withdrawal.pk).status == Withdrawal.Status.PENDING


# --- pages -------------------------------------------------------------------------------------


def test_the_withdraw_page_requests_and_cancels(client, make_user):
    player = make_user(balance=1_000_00)
    client.force_login(player)
    form = client.get("/wallet/withdraw/").context["form"]
    key = form["request_key"].initial
    data = {"amount": "250.00", "payout_details": "IBAN RU00", "request_key": key}
    confirmed = client.post("/wallet/withdraw/", data, follow=True).content.decode()
    assert "Заявка на вывод 250,00 ₽ принята" in confirmed
    assert "выплатят её по указанным реквизитам" in confirmed
    assert client.post("/wallet/withdraw/", data).status_code == 302  # double submit
    withdrawal = Withdrawal.objects.get(user=player)
    assert selectors.user_balance(user=player) == 750_00
    response = client.post(f"/wallet/withdraw/{withdrawal.pk}/cancel/")
    assert response.status_code == 302
    assert selectors.user_balance(user=player) == 1_000_00
    too_much = client.post(
        "/wallet/withdraw/",
        {"amount": "2000.00", "payout_details": "x", "request_key": str(uuid.uuid4())},
    )
    assert "Недостаточно средств в кошельке." in too_much.content.decode()


def test_staff_decide_in_the_admin_queue(client, make_user, approver):
    player, staff = make_user(balance=1_000_00), approver()
    withdrawal = ask(player)
    client.force_login(staff)
    queue = client.get("/admin/wallet/withdrawal/?status__exact=pending")
    assert queue.status_code == 200
    url = f"/admin/wallet/withdrawal/{withdrawal.pk}/decide/"
    assert url in queue.content.decode()
    refused = client.post(url, {"decision": "approve", "payout_reference": ""})
    assert refused.status_code == 200
    response = client.post(url, {"decision": "approve", "payout_reference": "bank-9"})
    assert response.status_code == 302
    assert Withdrawal.objects.get(pk=withdrawal.pk).status == Withdrawal.Status.APPROVED


def test_the_decision_page_needs_the_permission(client, make_user):
    withdrawal = ask(make_user(balance=1_000_00))
    client.force_login(make_user(is_staff=True))
    url = f"/admin/wallet/withdrawal/{withdrawal.pk}/decide/"
    assert client.post(url, {"decision": "reject", "reason": "no"}).status_code == 403
    assert Withdrawal.objects.get(pk=withdrawal.pk).status == Withdrawal.Status.PENDING


def test_ledger_check_finds_pending_withdrawals_that_differ_from_the_pending_account(make_user):
    withdrawal = ask(make_user(balance=1_000_00))
    Withdrawal.objects.filter(pk=withdrawal.pk).update(amount=400_00)
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("ledger_check", stdout=out)
    assert "pending withdrawals account holds 30000, the 1 pending requests are 40000" in (
        out.getvalue()
    )
