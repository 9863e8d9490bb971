"""Closing an account: refused while it holds a seat, money or a deposit in progress; then the
personal data goes and the books, games and replays stay exactly as they were."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import SESSION_KEY
from django.contrib.sessions.models import Session
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from durak_site.accounts.closure import AccountClosureRefused, account_close
from durak_site.accounts.models import User
from durak_site.audit.models import StaffAction
from games import services as game_services
from games.models import Game
from tests.games.test_services import play_out, seated_game
from tests.players import PASSWORD, create_player, create_staff, session_cookie
from wallet import withdrawals
from wallet.models import Entry, Payment
from wallet.selectors import user_balance

pytestmark = pytest.mark.django_db

CLOSE = reverse("account_close")


@pytest.fixture(autouse=True)
def small_withdrawals(settings):
    settings.WITHDRAWAL_MIN = 1


def _request_everything(user):
    return withdrawals.withdrawal_request(
        user=user,
        amount=user_balance(user=user),
        payout_details="card 4276 …",
        request_key=f"all:{user.pk}",
    )


def _pay_out(withdrawal) -> None:
    cashier = User.objects.filter(username="cashier").first() or create_staff(nickname="cashier")
    withdrawals.withdrawal_approve(
        withdrawal_id=withdrawal.pk, staff_user=cashier, payout_reference="bank #1"
    )


def _empty_wallet(user) -> None:
    """The rule: the player asks for all his money and staff pay it out."""
    _pay_out(_request_everything(user))


def _unchanged(user) -> bool:
    fresh = User.objects.get(pk=user.pk)
    return (fresh.username, fresh.email, fresh.is_active, fresh.closed_at) == (
        user.username,
        user.email,
        True,
        None,
    )


@pytest.fixture
def staff():
    return create_staff(nickname="support")


def test_a_player_closes_his_account_from_the_profile(client):
    anna = create_player(nickname="anna", verified_email=True)
    other_device = session_cookie(anna).removeprefix("sessionid=")
    client.force_login(anna)
    assert CLOSE in client.get(reverse("profile")).content.decode()

    wrong = client.post(CLOSE, {"password": "not-it"})
    assert wrong.status_code == 200 and wrong.context["form"].errors["password"]
    assert _unchanged(anna)

    closed = client.post(CLOSE, {"password": PASSWORD})
    assert closed.status_code == 302 and closed["Location"] == reverse("home")
    anna.refresh_from_db()
    assert anna.username == f"удалённый игрок №{anna.pk}"
    assert anna.email == f"closed-{anna.pk}@closed.invalid"
    assert not anna.is_active and not anna.has_usable_password() and anna.closed_at
    assert not EmailAddress.objects.filter(user=anna).exists()
    assert SESSION_KEY not in client.session
    assert not Session.objects.filter(pk=other_device).exists()
    # Nobody logs in as her any more; her address is free for a new account.
    client.post(reverse("account_login"), {"login": "anna@example.com", "password": PASSWORD})
    assert SESSION_KEY not in client.session
    create_player(nickname="anna")


def test_closing_is_refused_while_the_player_holds_a_seat(client):
    game, (anna, boris) = seated_game(2)
    _empty_wallet(anna)
    with pytest.raises(AccountClosureRefused, match=f"место за столом №{game.table_id}"):
        account_close(user=anna)
    assert _unchanged(anna)

    waiting = create_player(balance=10_000)
    table = game_services.table_create(user=waiting, stake=10_000, seats=3)
    client.force_login(waiting)
    refused = client.post(CLOSE, {"password": PASSWORD})
    assert f"за столом №{table.pk}" in str(refused.context["form"].non_field_errors())
    assert _unchanged(waiting)


def test_closing_is_refused_while_the_wallet_holds_money_or_a_deposit_is_in_progress():
    anna = create_player(balance=1_250)
    with pytest.raises(AccountClosureRefused, match="В кошельке ещё 12,50"):
        account_close(user=anna)
    assert _unchanged(anna)

    _empty_wallet(anna)
    payment = Payment.objects.create(
        user=anna, provider="test", amount=5_000, expires_at=timezone.now() + timedelta(hours=1)
    )
    with pytest.raises(AccountClosureRefused, match="Пополнение ещё не завершено"):
        account_close(user=anna)
    assert _unchanged(anna)

    Payment.objects.filter(pk=payment.pk).update(status=Payment.Status.EXPIRED)
    account_close(user=anna)
    with pytest.raises(AccountClosureRefused, match="уже закрыт"):
        account_close(user=anna)


def test_closing_is_refused_while_a_withdrawal_waits_for_staff():
    anna = create_player(balance=1_250)
    waiting = _request_everything(anna)
    assert user_balance(user=anna) == 0
    with pytest.raises(AccountClosureRefused, match="Заявка на вывод ещё ждёт"):
        account_close(user=anna)
    assert _unchanged(anna)

    _pay_out(waiting)
    account_close(user=anna)
    with pytest.raises(AccountClosureRefused, match="уже закрыт"):
        account_close(user=anna)


def test_after_closing_the_books_and_every_replay_still_check_out(client):
    game, users = seated_game(3)
    game = play_out(game, users)
    closing = users[0]
    _empty_wallet(closing)
    entries = list(Entry.objects.filter(account__user=closing).values_list("pk", "amount"))
    balances = {user.pk: user_balance(user=user) for user in users}

    account_close(user=closing)

    assert list(Entry.objects.filter(account__user=closing).values_list("pk", "amount")) == entries
    assert {user.pk: user_balance(user=user) for user in users} == balances
    out = StringIO()
    call_command("ledger_check", stdout=out)
    assert "ledger OK: 0 findings" in out.getvalue()
    for finished in Game.objects.filter(status=Game.Status.FINISHED):
        out = StringIO()
        call_command("verify_game", finished.pk, stdout=out)
        assert f"OK game {finished.pk}" in out.getvalue()
    page = client.get(reverse("game_detail", args=[game.pk])).content.decode()
    assert f"удалённый игрок №{closing.pk}" in page
    assert "@example.com" not in page


def test_staff_close_an_account_from_the_admin_with_a_reason(client, staff):
    anna = create_player(nickname="anna", balance=300)
    close = reverse("admin:accounts_user_close", args=[anna.pk])
    client.force_login(staff)
    change = client.get(reverse("admin:accounts_user_change", args=[anna.pk]))
    assert close in change.content.decode()

    assert client.post(close, {"reason": "  "}).context["form"].errors["reason"]
    refused = client.post(close, {"reason": "Asked by e-mail"})
    assert "В кошельке ещё 3,00" in str(refused.context["form"].non_field_errors())
    assert _unchanged(anna) and not StaffAction.objects.filter(action="accounts.close").exists()

    _empty_wallet(anna)
    assert client.post(close, {"reason": "Asked by e-mail"}).status_code == 302
    anna.refresh_from_db()
    assert anna.closed_at and anna.username == f"удалённый игрок №{anna.pk}"
    record = StaffAction.objects.get(action="accounts.close")
    assert (record.staff, record.player, record.reason) == (staff, anna, "Asked by e-mail")


def test_closing_from_the_admin_needs_the_permission(client):
    clerk = create_player(is_staff=True)
    anna = create_player()
    client.force_login(clerk)
    assert (
        client.post(
            reverse("admin:accounts_user_close", args=[anna.pk]), {"reason": "x"}
        ).status_code
        == 403
    )
    assert _unchanged(anna)
