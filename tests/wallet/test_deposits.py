"""Deposits through payment providers: signed notifications credit a wallet exactly once."""

from __future__ import annotations

import json
import logging
import threading
from io import StringIO
from urllib.parse import parse_qs, urlsplit

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone

from durak_site.audit.models import StaffAction
from wallet import deposits, limits, selectors, tasks
from wallet.models import Account, LedgerTransaction, Payment
from wallet.payments.test_provider import TestProvider
from wallet.payments.webhook import SIGNATURE_HEADER, sign

pytestmark = pytest.mark.django_db

WEBHOOK_SECRET = "whsec-for-tests"
CASHIER = override_settings(
    PAYMENTS_TEST_MODE=True,
    PAYMENTS_WEBHOOK_SECRET=WEBHOOK_SECRET,
    PAYMENTS_WEBHOOK_CHECKOUT_URL="https://pay.example.com/checkout",
    DEPOSIT_MIN=100_00,
    DEPOSIT_MAX=10_000_00,
)


@pytest.fixture(autouse=True)
def _cashier_settings():
    with CASHIER:
        yield


def start(user, amount=500_00, provider="webhook"):
    return deposits.deposit_start(
        user=user, amount=amount, provider_code=provider, site_url="https://durak.example"
    )


def body_for(payment, **changes) -> bytes:
    fields = {
        "reference": str(payment.reference),
        "payment_id": f"pay-{payment.pk}",
        "status": "succeeded",
        "amount": payment.amount,
        "currency": payment.currency,
        **changes,
    }
    return json.dumps(fields).encode()


def notify(client, body: bytes, *, secret=WEBHOOK_SECRET, provider="webhook", signature=None):
    headers = {SIGNATURE_HEADER: signature if signature is not None else sign(secret, body)}
    return client.post(
        f"/wallet/payments/{provider}/notify/",
        data=body,
        content_type="application/json",
        headers=headers,
    )


def credited(user) -> int:
    return LedgerTransaction.objects.filter(
        kind=LedgerTransaction.Kind.DEPOSIT, entries__account__user=user
    ).count()


def test_starting_a_deposit_creates_a_pending_payment_and_a_signed_checkout_address(make_user):
    player = make_user()
    checkout = start(player, amount=1_234_56 // 100 * 100)
    payment = checkout.payment
    assert payment.status == Payment.Status.PENDING
    assert (payment.user, payment.provider, payment.amount) == (player, "webhook", 1_234_00)
    url = urlsplit(checkout.url)
    assert f"{url.scheme}://{url.netloc}{url.path}" == "https://pay.example.com/checkout"
    query, signature = url.query.rsplit("&signature=", 1)
    assert signature == sign(WEBHOOK_SECRET, query.encode())
    params = {key: values[0] for key, values in parse_qs(query).items()}
    assert params["reference"] == str(payment.reference)
    assert params["amount"] == "123400"
    assert params["notify_url"] == "https://durak.example/wallet/payments/webhook/notify/"
    assert params["return_url"] == f"https://durak.example/wallet/deposit/{payment.reference}/"
    assert selectors.user_balance(user=player) == 0


@pytest.mark.parametrize("amount", [99_99, 10_000_01, 0, -500])
def test_an_amount_outside_the_configured_range_is_refused(make_user, amount):
    with pytest.raises(deposits.AmountOutOfRange):
        start(make_user(), amount=amount)
    assert not Payment.objects.exists()


def test_a_provider_that_is_not_enabled_is_refused(make_user):
    with override_settings(PAYMENTS_TEST_MODE=False), pytest.raises(deposits.DepositUnavailable):
        start(make_user(), provider="test")
    with pytest.raises(deposits.DepositUnavailable):
        start(make_user(), provider="nonexistent")
    assert not Payment.objects.exists()


def test_a_signed_notification_credits_the_wallet_from_the_providers_external_account(
    client, make_user
):
    player = make_user()
    payment = start(player).payment

    response = notify(client, body_for(payment))

    assert response.status_code == 200
    assert response.json() == {"result": "credited"}
    payment.refresh_from_db()
    assert payment.status == Payment.Status.SUCCEEDED
    assert payment.provider_payment_id == f"pay-{payment.pk}"
    assert payment.transaction.kind == LedgerTransaction.Kind.DEPOSIT
    assert selectors.user_balance(user=player) == 500_00
    external = Account.objects.get(kind=Account.Kind.EXTERNAL, provider="webhook")
    assert external.balance == -500_00
    call_command("ledger_check")


def test_a_notification_sent_twice_credits_once(client, make_user):
    player = make_user()
    payment = start(player).payment
    body = body_for(payment)
    assert notify(client, body).json() == {"result": "credited"}

    again = notify(client, body)

    assert again.status_code == 200  # received: the provider stops retrying
    assert again.json() == {"result": "duplicate"}
    assert selectors.user_balance(user=player) == 500_00
    assert credited(player) == 1


@pytest.mark.parametrize(
    "forge",
    [
        pytest.param(lambda body: {"secret": "guessed-secret"}, id="wrong secret"),
        pytest.param(lambda body: {"signature": ""}, id="no signature"),
        pytest.param(lambda body: {"signature": sign(WEBHOOK_SECRET, body)[:-1]}, id="cut"),
        pytest.param(
            lambda body: {"signature": sign(WEBHOOK_SECRET, body).upper()}, id="other case"
        ),
    ],
)
def test_a_forged_notification_is_refused_and_changes_nothing(client, make_user, forge):
    player = make_user()
    payment = start(player).payment
    body = body_for(payment)

    response = notify(client, body, **forge(body))

    assert response.status_code == 400
    payment.refresh_from_db()
    assert payment.status == Payment.Status.PENDING
    assert selectors.user_balance(user=player) == 0


def test_a_body_changed_after_signing_is_refused(client, make_user):
    player = make_user()
    payment = start(player).payment
    signature = sign(WEBHOOK_SECRET, body_for(payment))

    response = notify(client, body_for(payment, amount=5_000_00), signature=signature)

    assert response.status_code == 400
    assert selectors.user_balance(user=player) == 0


def test_the_test_providers_secret_does_not_sign_for_the_webhook_provider(client, make_user):
    player = make_user()
    payment = start(player).payment
    response = notify(client, body_for(payment), secret=TestProvider().secret)
    assert response.status_code == 400
    assert selectors.user_balance(user=player) == 0


@pytest.mark.parametrize(
    "body",
    [
        b"not json",
        b"[]",
        b'{"reference": "x"}',
        json.dumps(
            {
                "reference": "not-a-uuid",
                "payment_id": "p",
                "status": "succeeded",
                "amount": 1,
                "currency": "RUB",
            }
        ).encode(),
    ],
)
def test_a_malformed_signed_notification_is_refused(client, body):
    assert notify(client, body).status_code == 400


@pytest.mark.parametrize(
    ("changes", "reason"),
    [({"amount": 5_000_00}, "notified 500000 RUB"), ({"currency": "USD"}, "notified 50000 USD")],
)
def test_a_wrong_amount_or_currency_fails_the_payment_without_credit(
    client, make_user, changes, reason
):
    player = make_user()
    payment = start(player).payment

    response = notify(client, body_for(payment, **changes))

    assert response.status_code == 200
    assert response.json() == {"result": "amount_mismatch"}
    payment.refresh_from_db()
    assert (payment.status, payment.failure_reason) == (Payment.Status.FAILED, reason)
    # The provider took money that is not credited: staff must look at it.
    assert payment.review == Payment.Review.NOT_CREDITED
    assert selectors.user_balance(user=player) == 0
    # A correct notification after the refusal changes nothing either.
    assert notify(client, body_for(payment)).json() == {"result": "ignored_failed"}
    assert selectors.user_balance(user=player) == 0


def test_a_payment_confirmed_after_expiry_is_credited(client, make_user):
    player = make_user()
    overdue, fresh = start(player).payment, start(player).payment
    Payment.objects.filter(pk=overdue.pk).update(expires_at=timezone.now())

    assert tasks.expire_payments() == 1

    assert Payment.objects.get(pk=overdue.pk).status == Payment.Status.EXPIRED
    assert Payment.objects.get(pk=fresh.pk).status == Payment.Status.PENDING
    assert notify(client, body_for(overdue)).json() == {"result": "credited_late"}
    overdue.refresh_from_db()
    assert (overdue.status, overdue.review) == (Payment.Status.SUCCEEDED, "")
    assert selectors.user_balance(user=player) == 500_00


def test_a_late_payment_past_the_players_limits_is_credited_and_queued_for_staff(
    client, make_user, staff, caplog
):
    player = make_user()
    late = start(player).payment
    Payment.objects.filter(pk=late.pk).update(expires_at=timezone.now())
    tasks.expire_payments()
    limits.break_start(user=player, length="24h")

    with caplog.at_level(logging.ERROR, logger="wallet.deposits"):
        response = notify(client, body_for(late))

    assert response.json() == {"result": "credited_late_for_review"}
    late.refresh_from_db()
    assert late.status == Payment.Status.SUCCEEDED
    assert late.review == Payment.Review.LATE_OVER_LIMITS
    assert selectors.user_balance(user=player) == 500_00  # the provider took it: it is his
    [alert] = [record for record in caplog.records if record.levelno == logging.ERROR]
    assert str(late.reference) in alert.getMessage()
    assert "break" in alert.getMessage()
    # The queue in the admin, and closing the review there, recorded in the audit trail.
    client.force_login(staff)
    queue = client.get(reverse("admin:wallet_payment_changelist") + "?review=open")
    assert str(late.reference) in queue.text or f">{late.pk}<" in queue.text
    review = reverse("admin:wallet_payment_review", args=[late.pk])
    assert client.post(review, {"note": ""}).status_code == 200
    assert client.post(review, {"note": "Called him; he keeps it"}).status_code == 302
    late.refresh_from_db()
    assert (late.reviewed_by, late.reviewed_at is not None) == (staff, True)
    action = StaffAction.objects.get(action="wallet.payment_review")
    assert (action.reason, action.player) == ("Called him; he keeps it", player)
    assert (
        client.get(reverse("admin:wallet_payment_changelist") + "?review=open")
        .context["cl"]
        .result_count
        == 0
    )


def test_a_declined_payment_fails(client, make_user):
    player = make_user()
    payment = start(player).payment
    assert notify(client, body_for(payment, status="failed")).json() == {"result": "failed"}
    payment.refresh_from_db()
    assert payment.status == Payment.Status.FAILED
    assert selectors.user_balance(user=player) == 0


def test_one_provider_payment_id_never_pays_two_payments(client, make_user):
    player = make_user()
    first, second = start(player).payment, start(player).payment
    notify(client, body_for(first, payment_id="same-id"))

    response = notify(client, body_for(second, payment_id="same-id"))

    assert response.json() == {"result": "payment_id_reused"}
    assert selectors.user_balance(user=player) == 500_00
    assert Payment.objects.get(pk=second.pk).status == Payment.Status.PENDING


def test_an_unknown_payment_or_provider_is_refused(client, make_user):
    payment = start(make_user()).payment
    body = body_for(payment, reference="00000000-0000-0000-0000-000000000000")
    assert notify(client, body).status_code == 400
    assert notify(client, body_for(payment), provider="nonexistent").status_code == 404


def test_notifications_only_accept_post(client):
    assert client.get("/wallet/payments/webhook/notify/").status_code == 405


@pytest.mark.django_db(transaction=True)
def test_the_same_notification_delivered_at_once_by_eight_threads_credits_once(make_user):
    player = make_user()
    payment = start(player).payment
    body = body_for(payment)
    headers = {SIGNATURE_HEADER: sign(WEBHOOK_SECRET, body)}
    barrier = threading.Barrier(8, timeout=30)
    results: list[str] = []

    def deliver() -> None:
        try:
            barrier.wait()
            response = deposits.notification_receive(
                provider_code="webhook", body=body, headers=headers
            )
            results.append(json.loads(response.content)["result"])
        finally:
            connection.close()

    threads = [threading.Thread(target=deliver) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(results) == ["credited"] + ["duplicate"] * 7
    assert selectors.user_balance(user=player) == 500_00
    call_command("ledger_check")


# --- the test provider's page ----------------------------------------------------------------


def test_the_test_page_pays_with_a_signed_notification(client, make_user):
    player = make_user()
    client.force_login(player)
    response = client.post("/wallet/deposit/", {"amount": "250.00", "provider": "test"})
    payment = Payment.objects.get(user=player)
    assert response.status_code == 302
    assert response["Location"].endswith(f"/wallet/payments/test/{payment.reference}/")

    page = client.get(response["Location"])
    assert "TEST MODE" in page.content.decode() or "ТЕСТОВЫЙ РЕЖИМ" in page.content.decode()
    paid = client.post(response["Location"], {"outcome": "pay"})

    assert paid["Location"] == f"/wallet/deposit/{payment.reference}/"
    payment.refresh_from_db()
    assert payment.status == Payment.Status.SUCCEEDED
    assert payment.provider_payment_id == f"test-{payment.reference}"
    assert selectors.user_balance(user=player) == 250_00
    status_page = client.get(paid["Location"]).content.decode()
    assert 'data-testid="payment-status">' in status_page
    # Paying again from the same page is a repeat notification: nothing more is credited.
    client.post(response["Location"], {"outcome": "pay"})
    assert selectors.user_balance(user=player) == 250_00


def test_the_test_page_can_decline(client, make_user):
    player = make_user()
    client.force_login(player)
    payment = start(player, provider="test").payment
    client.post(f"/wallet/payments/test/{payment.reference}/", {"outcome": "decline"})
    payment.refresh_from_db()
    assert payment.status == Payment.Status.FAILED
    assert selectors.user_balance(user=player) == 0


def test_the_test_page_exists_only_in_test_mode_and_only_for_the_payer(client, make_user):
    player, other = make_user(), make_user()
    payment = start(player, provider="test").payment
    url = f"/wallet/payments/test/{payment.reference}/"
    client.force_login(other)
    assert client.post(url, {"outcome": "pay"}).status_code == 404
    client.force_login(player)
    with override_settings(PAYMENTS_TEST_MODE=False):
        assert client.get(url).status_code == 404
        assert client.post(url, {"outcome": "pay"}).status_code == 404
        assert notify(client, b"{}", provider="test").status_code == 404
    assert selectors.user_balance(user=player) == 0


def test_the_deposit_page_offers_the_enabled_providers_and_refuses_bad_amounts(client, make_user):
    player = make_user()
    client.force_login(player)
    page = client.get("/wallet/deposit/")
    assert set(page.context["providers"]) == {"webhook", "test"}
    refused = client.post("/wallet/deposit/", {"amount": "5.00", "provider": "test"})
    assert refused.status_code == 200
    assert "100,00" in refused.content.decode()
    assert not Payment.objects.exists()
    with override_settings(PAYMENTS_TEST_MODE=False, PAYMENTS_WEBHOOK_SECRET=""):
        page = client.get("/wallet/deposit/")
    assert 'data-testid="deposit-unavailable"' in page.content.decode()


def test_the_wallet_page_shows_each_payments_state(client, make_user):
    player = make_user()
    client.force_login(player)
    pending = start(player).payment
    failed = start(player).payment
    notify(client, body_for(failed, status="failed"))
    states = {
        payment.pk: payment.get_status_display()
        for payment in client.get("/wallet/").context["payments"]
    }
    assert states == {pending.pk: "ожидает оплаты", failed.pk: "не прошёл"}


def test_the_deposit_page_lets_its_form_lead_to_the_providers_checkout(client, make_user):
    client.force_login(make_user())
    policy = client.get("/wallet/deposit/")["Content-Security-Policy"]
    assert "form-action 'self' https://pay.example.com;" in policy
    assert "script-src 'self';" in policy
    assert "form-action 'self';" in client.get("/wallet/")["Content-Security-Policy"]


def test_ledger_check_finds_a_payment_credited_with_another_amount(client, make_user):
    player = make_user()
    payment = start(player).payment
    notify(client, body_for(payment))
    Payment.objects.filter(pk=payment.pk).update(amount=600_00)
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("ledger_check", stdout=out)
    assert f"payment {payment.pk} succeeded for 60000, its player was credited 50000" in (
        out.getvalue()
    )


def test_ledger_check_finds_a_provider_deposit_without_a_payment(make_user):
    from wallet import services

    tx = services.deposit(
        user=make_user(),
        amount=100,
        provider="webhook",
        idempotency_key="by-hand",
        initiated_by=None,
        memo="",
    )
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("ledger_check", stdout=out)
    assert f"deposit transaction {tx.pk} from a provider has no succeeded payment" in (
        out.getvalue()
    )
