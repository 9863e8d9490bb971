"""A signed payment notification with a payment id no provider sends is refused as invalid, so
that the provider stops retrying it and nothing changes."""

from __future__ import annotations

import pytest

from tests.players import create_player
from tests.wallet.test_deposits import CASHIER, body_for, credited, notify, start
from wallet.models import Payment

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _cashier_settings():
    with CASHIER:
        yield


@pytest.mark.parametrize(
    "payment_id",
    [
        pytest.param("pay\x00ment", id="NUL"),
        pytest.param("pay\ud800ment", id="lone surrogate"),
        pytest.param("pay\nment", id="newline"),
        pytest.param("pay\x1bment", id="escape"),
    ],
)
def test_a_signed_notification_with_an_unprintable_payment_id_is_invalid(client, payment_id):
    payer = create_player()
    payment = start(payer).payment

    response = notify(client, body_for(payment, payment_id=payment_id))

    assert response.status_code == 400
    assert response.json() == {"result": "invalid"}
    payment.refresh_from_db()
    assert payment.status == Payment.Status.PENDING
    assert payment.provider_payment_id == ""
    assert credited(payer) == 0
