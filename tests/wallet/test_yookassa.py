"""YooKassa through its SDK, against a local stand-in of its API, with notification bodies in
YooKassa's documented format: a notification is believed only as far as the API confirms it."""

from __future__ import annotations

import json
import uuid
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import Permission
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone

from durak_site.audit.models import StaffAction
from tests.wallet.yookassa_api import SECRET_KEY, SHOP_ID, YooKassaStandIn, recorded_notification
from wallet import deposits, limits, refunds, selectors, services, tasks, withdrawals
from wallet.models import Account, LedgerTransaction, Payment, PlayerLimit, Refund
from wallet.statements import account_statement_for

pytestmark = pytest.mark.django_db

NOTIFY = "/wallet/payments/yookassa/notify/"
YOOKASSA_ADDRESS = "185.71.76.5"  # inside one of YooKassa's documented networks


@pytest.fixture(scope="module")
def api():
    stand_in = YooKassaStandIn()
    yield stand_in
    stand_in.close()


@pytest.fixture(autouse=True)
def _yookassa_settings(api):
    with override_settings(
        YOOKASSA_SHOP_ID=SHOP_ID,
        YOOKASSA_SECRET_KEY=SECRET_KEY,
        YOOKASSA_API_URL=api.api_url,
        YOOKASSA_TRUSTED_SENDERS_ONLY=True,
        PAYMENTS_TEST_MODE=False,
        DEPOSIT_MIN=100_00,
        DEPOSIT_MAX=10_000_00,
    ):
        yield


def start(user, amount=500_00):
    return deposits.deposit_start(
        user=user, amount=amount, provider_code="yookassa", site_url="https://durak.example"
    )


def notify(client, event: str, api_payment: dict, *, sender=YOOKASSA_ADDRESS, body=None):
    return client.post(
        NOTIFY,
        data=body if body is not None else recorded_notification(event, api_payment),
        content_type="application/json",
        REMOTE_ADDR=sender,
    )


def deposits_of(user) -> int:
    return LedgerTransaction.objects.filter(
        kind=LedgerTransaction.Kind.DEPOSIT, entries__account__user=user
    ).count()


def test_a_payment_is_created_with_a_redirect_then_captured_and_credited_once(
    client, make_user, api
):
    player = make_user()
    checkout = start(player)
    payment = checkout.payment
    created = api.payments[payment.provider_payment_id]
    assert checkout.url == created["confirmation"]["confirmation_url"]
    assert payment.status == Payment.Status.PENDING
    create = [call for call in api.calls if call[:2] == ("POST", "/v3/payments")][-1][2]
    assert create["amount"] == {"value": "500.00", "currency": "RUB"}
    assert create["capture"] is False
    assert create["confirmation"]["type"] == "redirect"
    assert urlsplit(create["confirmation"]["return_url"]).path == reverse(
        "deposit_status", args=[payment.reference]
    )
    assert create["metadata"]["reference"] == str(payment.reference)

    held = api.pay(payment.provider_payment_id, last4="1234")
    response = notify(client, "payment.waiting_for_capture", held)

    assert response.status_code == 200
    assert response.content == b"credited"
    assert api.payments[payment.provider_payment_id]["status"] == "succeeded"
    payment.refresh_from_db()
    assert payment.status == Payment.Status.SUCCEEDED
    assert (payment.payment_method, payment.card_last4) == ("bank_card", "1234")
    assert selectors.user_balance(user=player) == 500_00
    external = Account.objects.get(kind=Account.Kind.EXTERNAL, provider="yookassa")
    assert external.balance == -500_00
    # YooKassa then says the capture succeeded, and may say it twice: nothing more moves.
    succeeded = api.payments[payment.provider_payment_id]
    for _ in range(2):
        assert notify(client, "payment.succeeded", succeeded).content == b"duplicate"
    assert deposits_of(player) == 1
    assert api.captures(payment.provider_payment_id) == 1


def test_a_cancelled_payment_fails_and_credits_nothing(client, make_user, api):
    player = make_user()
    payment = start(player).payment
    cancelled = api.cancel(payment.provider_payment_id)

    assert notify(client, "payment.canceled", cancelled).content == b"failed"

    payment.refresh_from_db()
    assert payment.status == Payment.Status.FAILED
    assert selectors.user_balance(user=player) == 0
    # A later forged "succeeded" for it is checked with the API, which says canceled.
    assert notify(client, "payment.succeeded", cancelled).content == b"ignored_failed"
    assert selectors.user_balance(user=player) == 0


def test_the_same_notification_twice_captures_and_credits_once(client, make_user, api):
    player = make_user()
    payment = start(player).payment
    held = api.pay(payment.provider_payment_id)

    answers = [notify(client, "payment.waiting_for_capture", held).content for _ in range(2)]

    assert answers == [b"credited", b"duplicate"]
    assert selectors.user_balance(user=player) == 500_00
    assert deposits_of(player) == 1
    assert api.captures(payment.provider_payment_id) == 1


def test_a_forged_notification_is_checked_with_the_api_and_changes_nothing(client, make_user, api):
    player = make_user()
    payment = start(player).payment
    # The body says the payment succeeded; the API says the player has not paid.
    unpaid = api.payments[payment.provider_payment_id]
    forged = json.loads(recorded_notification("payment.succeeded", unpaid))
    assert forged["object"]["status"] == "succeeded"

    response = notify(client, "", unpaid, body=json.dumps(forged))

    assert response.status_code == 200
    assert response.content == b"pending"
    payment.refresh_from_db()
    assert payment.status == Payment.Status.PENDING
    assert selectors.user_balance(user=player) == 0
    # A payment the API does not know, or a body that is not a notification, is refused.
    forged["object"]["id"] = "2e8dd95a-000f-5000-a000-000000000000"
    assert notify(client, "", unpaid, body=json.dumps(forged)).status_code == 400
    assert notify(client, "", unpaid, body="[]").status_code == 400
    assert selectors.user_balance(user=player) == 0


def test_only_yookassas_addresses_may_notify_when_so_configured(client, make_user, api):
    player = make_user()
    payment = start(player).payment
    held = api.pay(payment.provider_payment_id)

    refused = notify(client, "payment.waiting_for_capture", held, sender="203.0.113.7")

    assert refused.status_code == 400
    assert api.captures(payment.provider_payment_id) == 0
    assert selectors.user_balance(user=player) == 0
    with override_settings(YOOKASSA_TRUSTED_SENDERS_ONLY=False):
        assert notify(client, "payment.waiting_for_capture", held, sender="203.0.113.7").content
    assert selectors.user_balance(user=player) == 500_00


def test_a_late_payment_is_credited(client, make_user, api):
    player = make_user()
    payment = start(player).payment
    Payment.objects.filter(pk=payment.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    assert tasks.expire_payments() == 1
    held = api.pay(payment.provider_payment_id)

    assert notify(client, "payment.waiting_for_capture", held).content == b"credited_late"

    payment.refresh_from_db()
    assert payment.status == Payment.Status.SUCCEEDED
    assert payment.review == ""
    assert selectors.user_balance(user=player) == 500_00


def test_a_late_payment_past_the_players_limits_is_released_not_taken(client, make_user, api):
    player = make_user()
    late = start(player).payment
    Payment.objects.filter(pk=late.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    tasks.expire_payments()
    limits.limit_set(user=player, kind=PlayerLimit.Kind.DEPOSIT_DAY, value=800_00)
    on_time = start(player, amount=600_00).payment  # the expired one no longer counts
    notify(client, "payment.waiting_for_capture", api.pay(on_time.provider_payment_id))
    held = api.pay(late.provider_payment_id)

    assert notify(client, "payment.waiting_for_capture", held).content == b"late_released"

    assert api.payments[late.provider_payment_id]["status"] == "canceled"
    late.refresh_from_db()
    assert late.status == Payment.Status.FAILED
    assert "limit" in late.failure_reason
    assert selectors.user_balance(user=player) == 600_00


def test_reconciliation_finds_a_payment_whose_notification_never_came(make_user, api):
    player = make_user()
    paid, cancelled, waiting = (start(player).payment for _ in range(3))
    api.pay(paid.provider_payment_id)
    api.cancel(cancelled.provider_payment_id)

    assert tasks.reconcile_payments() == 2

    assert Payment.objects.get(pk=paid.pk).status == Payment.Status.SUCCEEDED
    assert Payment.objects.get(pk=cancelled.pk).status == Payment.Status.FAILED
    assert Payment.objects.get(pk=waiting.pk).status == Payment.Status.PENDING
    assert selectors.user_balance(user=player) == 500_00
    assert tasks.reconcile_payments() == 0  # nothing new: nothing moves twice
    assert deposits_of(player) == 1


def test_reconciliation_goes_on_when_the_api_is_down(make_user, api):
    player = make_user()
    payment = start(player).payment
    api.pay(payment.provider_payment_id)
    with override_settings(YOOKASSA_API_URL="http://127.0.0.1:9/v3"):
        assert tasks.reconcile_payments() == 0
    assert Payment.objects.get(pk=payment.pk).status == Payment.Status.PENDING
    assert tasks.reconcile_payments() == 1


def test_starting_a_payment_while_the_api_is_down_is_refused_clearly(make_user):
    player = make_user()
    with (
        override_settings(YOOKASSA_API_URL="http://127.0.0.1:9/v3"),
        pytest.raises(deposits.DepositUnavailable, match="не ответил"),
    ):
        start(player)
    assert Payment.objects.get(user=player).status == Payment.Status.FAILED


@pytest.fixture
def paid(client, make_user, api):
    player = make_user()
    payment = start(player).payment
    notify(client, "payment.waiting_for_capture", api.pay(payment.provider_payment_id))
    payment.refresh_from_db()
    return payment


@pytest.fixture
def refunder(make_user):
    clerk = make_user(is_staff=True, nickname="refunder")
    clerk.user_permissions.add(
        Permission.objects.get(codename="refund_payment"),
        Permission.objects.get(codename="view_payment"),
    )
    return clerk


def test_staff_refund_a_payment_from_the_admin(client, paid, refunder, api):
    client.force_login(refunder)
    url = reverse("admin:wallet_payment_refund", args=[paid.pk])
    assert "refund" in client.get(reverse("admin:wallet_payment_change", args=[paid.pk])).text
    form = client.get(url)
    key = form.context["form"]["request_key"].value()

    for _ in range(2):  # a double submit refunds once
        response = client.post(url, {"amount": "200.00", "reason": "Asked", "request_key": key})
        assert response.status_code == 302

    refund = Refund.objects.get(payment=paid)
    assert (refund.status, refund.amount) == (Refund.Status.SUCCEEDED, 200_00)
    assert api.refunds[refund.provider_refund_id]["amount"] == {
        "value": "200.00",
        "currency": "RUB",
    }
    assert api.refunds[refund.provider_refund_id]["payment_id"] == paid.provider_payment_id
    assert selectors.user_balance(user=paid.user) == 300_00
    assert refund.transaction.kind == LedgerTransaction.Kind.REFUND
    assert StaffAction.objects.filter(action="wallet.refund", staff=refunder).count() == 1
    assert selectors.ledger_findings().findings == []
    # More than is left to refund is refused, and nothing moves.
    response = client.post(
        url, {"amount": "300.01", "reason": "Again", "request_key": str(uuid.uuid4())}
    )
    assert response.status_code == 200
    assert "Вернуть по этому платежу можно не больше 300,00" in response.text
    assert selectors.user_balance(user=paid.user) == 300_00


def test_a_refund_the_provider_refuses_returns_the_money(paid, refunder, api):
    api.refund_outcome = "canceled"
    try:
        refund = refunds.refund_start(
            payment_id=paid.pk, amount=500_00, reason="Asked", staff_user=refunder
        )
    finally:
        api.refund_outcome = "succeeded"
    assert refund.status == Refund.Status.FAILED
    assert refund.return_transaction.kind == LedgerTransaction.Kind.REFUND_RETURN
    assert selectors.user_balance(user=paid.user) == 500_00
    assert selectors.ledger_findings().findings == []


def test_ledger_check_finds_a_refund_that_did_not_take_its_amount(paid, refunder):
    Refund.objects.create(
        payment=paid,
        amount=100_00,
        reason="forged",
        requested_by=refunder,
        transaction=paid.transaction,
        status=Refund.Status.SUCCEEDED,
    )
    assert selectors.ledger_findings().findings == [
        f"refund {Refund.objects.get().pk} of 10000 (succeeded) took -50000 from its player"
        " and gave back 0"
    ]


def test_a_refund_needs_the_permission_and_the_money_in_the_wallet(paid, refunder, make_user, api):
    with pytest.raises(services.NotAllowed):
        refunds.refund_start(
            payment_id=paid.pk, amount=100_00, reason="x", staff_user=make_user(is_staff=True)
        )
    services.stake_hold(user=paid.user, table_id=5, amount=450_00, idempotency_key="h:5")
    with pytest.raises(services.InsufficientFunds):
        refunds.refund_start(payment_id=paid.pk, amount=100_00, reason="x", staff_user=refunder)
    assert not Refund.objects.exists()
    assert not any(r["payment_id"] == paid.provider_payment_id for r in api.refunds.values())


def test_a_refund_the_api_did_not_take_is_sent_again_by_the_reconciliation(paid, refunder, api):
    with override_settings(YOOKASSA_API_URL="http://127.0.0.1:9/v3"):
        refund = refunds.refund_start(
            payment_id=paid.pk, amount=100_00, reason="Asked", staff_user=refunder
        )
    assert refund.status == Refund.Status.PENDING
    assert selectors.user_balance(user=paid.user) == 400_00  # set aside meanwhile

    tasks.reconcile_payments()

    refund.refresh_from_db()
    assert refund.status == Refund.Status.SUCCEEDED
    assert api.refunds[refund.provider_refund_id]["status"] == "succeeded"


def test_money_held_for_another_amount_is_released(client, make_user, api):
    player = make_user()
    payment = start(player, amount=500_00).payment
    held = api.pay(payment.provider_payment_id)
    api.payments[payment.provider_payment_id]["amount"] = {"value": "700.00", "currency": "RUB"}

    assert notify(client, "payment.waiting_for_capture", held).content == b"amount_mismatch"

    # Only held: released, not taken, so nothing is queued.
    assert api.payments[payment.provider_payment_id]["status"] == "canceled"
    assert Payment.objects.get(pk=payment.pk).review == ""


def test_statements_name_deposits_refunds_and_withdrawals_in_words(client, paid, refunder, staff):
    player = paid.user
    refunds.refund_start(payment_id=paid.pk, amount=100_00, reason="Asked", staff_user=refunder)
    to_card = withdrawals.withdrawal_request(
        user=player,
        amount=150_00,
        payout_details="Карта 5555 4444 3333 1234, Сбербанк",
        request_key="w-card",
    )
    withdrawals.withdrawal_approve(
        withdrawal_id=to_card.pk, staff_user=staff, payout_reference="P-77"
    )
    withdrawals.withdrawal_request(
        user=player, amount=100_00, payout_details="счёт 40817810099910004312", request_key="w-2"
    )
    today = timezone.localdate()
    wallet = Account.objects.get(kind=Account.Kind.USER, user=player)

    statement = account_statement_for(account=wallet, since=today, until=today)

    assert [(line.kind, line.description) for line in statement.lines] == [
        ("пополнение", "Пополнение через ЮKassa, карта *4477"),
        ("возврат платежа", "Возврат через ЮKassa, карта *4477, Asked"),
        ("заявка на вывод", "Вывод на карту *1234"),
        ("заявка на вывод", "Вывод на счёт *4312"),
    ]
    assert not any(paid.provider_payment_id in line.description for line in statement.lines)
    # The player's own wallet page says the same.
    client.force_login(player)
    page = client.get(reverse("wallet")).text
    assert "Пополнение через ЮKassa, карта *4477" in page
    assert "Вывод на карту *1234" in page
    assert "5555 4444" not in page


def test_the_deposit_page_sends_the_player_to_yookassas_confirmation_page(client, make_user, api):
    client.force_login(make_user())
    page = client.get("/wallet/deposit/")
    assert "form-action 'self' https://yoomoney.ru;" in page["Content-Security-Policy"]

    response = client.post("/wallet/deposit/", {"amount": "500", "provider": "yookassa"})

    payment = Payment.objects.get()
    assert response.status_code == 302
    assert (
        response["Location"]
        == (api.payments[payment.provider_payment_id]["confirmation"]["confirmation_url"])
    )
