"""The player's wallet page, the header balance and money formatting."""

from __future__ import annotations

import pytest
from django.urls import NoReverseMatch, reverse
from django.utils import translation

from games.services.bank import bank_settle
from wallet import services
from wallet.money import format_money

pytestmark = pytest.mark.django_db

WALLET = "/wallet/"


@pytest.mark.parametrize(
    ("language", "amount", "signed", "text"),
    [
        ("ru", 125_000, False, "1 250,00 ₽"),
        ("ru", 5, False, "0,05 ₽"),
        ("ru", -123_456_789, False, "\u22121 234 567,89 ₽"),
        ("ru", 100, True, "+1,00 ₽"),
        ("ru", 0, True, "0,00 ₽"),
        ("en", 125_000, False, "₽1,250.00"),
        ("en", -1, True, "\u2212₽0.01"),
        ("en", 100, True, "+₽1.00"),
    ],
)
def test_format_money(language, amount, signed, text):
    with translation.override(language):
        assert format_money(amount, signed=signed) == text


def test_wallet_page_needs_login(client):
    response = client.get(WALLET)
    assert response.status_code == 302
    assert reverse("account_login") in response["Location"]


def test_wallet_page_shows_balance_and_history(client, make_user):
    player = make_user(balance=200_000)
    services.stake_hold(
        user=player, table_id=5, amount=75_000, idempotency_key="hold:table:5:seat:1"
    )
    client.force_login(player)

    page = client.get(WALLET)

    assert reverse("wallet") == WALLET
    html = page.content.decode()
    assert page.status_code == 200
    assert 'data-testid="wallet-balance">1 250,00 ₽<' in html
    assert 'data-testid="balance">1 250,00 ₽<' in html  # the header
    entries = list(page.context["page"].object_list)
    assert [(entry.amount, entry.balance_after) for entry in entries] == [
        (-75_000, 125_000),
        (200_000, 200_000),
    ]
    assert "\u2212750,00 ₽" in html
    assert "+2 000,00 ₽" in html
    assert "Ставка" in html  # the kind in words, in Russian by default


def test_wallet_page_in_english(client, make_user):
    player = make_user(balance=125_000)
    client.force_login(player)
    page = client.get(WALLET, headers={"accept-language": "en"})
    html = page.content.decode()
    assert "₽1,250.00" in html
    assert "RUB" not in html
    assert "Deposit" in html


def test_history_links_the_settled_game(client, make_user):
    winner, loser = make_user(balance=1_000), make_user(balance=1_000)
    for seat, player in enumerate([winner, loser]):
        services.stake_hold(
            user=player, table_id=8, amount=1_000, idempotency_key=f"hold:table:8:seat:{seat}"
        )
    bank_settle(
        table_id=8,
        game_id=42,
        bank=2_000,
        commission_percent=0,
        places=[[0], [1]],
        seat_users={0: winner.pk, 1: loser.pk},
        percentages=[100, 0],
    )
    client.force_login(winner)
    html = client.get(WALLET).content.decode()
    try:
        game_url = reverse("game_detail", args=[42])
    except NoReverseMatch:
        game_url = None
    if game_url:
        assert f'href="{game_url}"' in html
    assert "+20,00 ₽" in html


def test_history_is_paginated(client, make_user):
    player = make_user()
    for number in range(30):
        services.deposit(
            user=player, amount=100, idempotency_key=f"d{number}", initiated_by=None, memo=""
        )
    client.force_login(player)
    first = client.get(WALLET)
    second = client.get(WALLET + "?page=2")
    assert len(first.context["page"].object_list) == 25
    assert [entry.balance_after for entry in second.context["page"].object_list] == [
        500,
        400,
        300,
        200,
        100,
    ]
    assert 'rel="next"' in first.content.decode()


def test_visitors_get_no_header_balance(client):
    response = client.get("/")
    assert response.context["header_balance"] is None


@pytest.mark.parametrize(
    ("language", "stake_label", "filter_label", "amount"),
    [
        ("ru", "Ставка, ₽", "Ставка до, ₽", "1 250,00 ₽"),
        ("en", "Stake, ₽", "Stake up to, ₽", "₽1,250.00"),
    ],
)
def test_labels_and_amounts_show_the_same_currency_sign(
    client, make_user, language, stake_label, filter_label, amount
):
    client.force_login(make_user(balance=125_000))
    html = client.get(reverse("lobby"), headers={"accept-language": language}).content.decode()
    assert stake_label in html and filter_label in html
    assert f'data-testid="balance">{amount}<' in html
    assert "RUB" not in html


def test_the_staff_amount_label_names_the_currency(client, staff):
    client.force_login(staff)
    html = client.get(
        reverse("admin:wallet_account_adjust"), headers={"accept-language": "en"}
    ).content.decode()
    assert "Amount, ₽" in html


def test_the_header_links_the_balance_to_the_wallet_and_offers_a_deposit_only_at_zero(
    client, make_user
):
    client.force_login(make_user(balance=0))
    html = client.get(reverse("lobby")).content.decode()
    assert f'href="{reverse("wallet")}"' in html
    deposit = f'href="{reverse("deposit")}" data-testid="header-deposit">Пополнить</a>'
    assert deposit in html
    client.force_login(make_user(balance=100))
    html = client.get(reverse("lobby")).content.decode()
    assert f'href="{reverse("deposit")}" data-testid="header-deposit" hidden>' in html


def test_a_stake_refused_for_lack_of_money_links_to_the_deposit_page(client, make_user):
    from games import services as games

    host = make_user(balance=10_000)
    table = games.table_create(user=host, stake=10_000, seats=2)
    client.force_login(make_user(balance=5_000))
    response = client.post(reverse("table_join", args=[table.pk]), follow=True)
    html = response.content.decode()
    assert "Недостаточно средств" in html
    assert f'<a href="{reverse("deposit")}" data-testid="message-deposit">Пополнить</a>' in html
    # Any other refusal says why, with no deposit link.
    response = client.post(reverse("table_join", args=[table.pk + 1000]), follow=True)
    assert 'data-testid="message-deposit"' not in response.content.decode()
