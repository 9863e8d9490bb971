"""Staff pages: tables, games with their log and distribution, exports, payout schemes."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import pytest
from django.urls import reverse

from games import services
from games.models import PayoutScheme, Table
from games.services import GameError
from tests.games.conftest import STAKE, create_player
from tests.games.test_services import play_out, seated_game
from tests.players import create_staff
from tests.spreadsheets import read_csv, read_xlsx
from wallet.models import Account, Entry, LedgerTransaction
from wallet.money import format_money

pytestmark = pytest.mark.django_db
GAMES_EXPORT = reverse("admin:games_game_export")


@pytest.fixture
def staff_client(client):
    staff = create_staff(nickname="croupier")
    client.force_login(staff)
    return client


def test_changelists_render_with_their_filters(staff_client):
    seated_game(2)
    for name in ("table", "game", "payoutscheme"):
        response = staff_client.get(reverse(f"admin:games_{name}_changelist"))
        assert response.status_code == 200
    response = staff_client.get(
        reverse("admin:games_game_changelist") + "?status__exact=playing&stake_range=small"
    )
    assert response.status_code == 200
    assert response.context["cl"].result_count == 1
    response = staff_client.get(reverse("admin:games_game_changelist") + "?stake_range=large")
    assert response.context["cl"].result_count == 0


def test_a_running_game_hides_its_seed_and_hands_a_finished_one_shows_its_log(staff_client):
    game, users = seated_game(2)
    page = staff_client.get(reverse("admin:games_game_change", args=[game.pk]))
    assert page.status_code == 200
    assert game.seed not in page.content.decode()
    game = play_out(game, users)
    page = staff_client.get(reverse("admin:games_game_change", args=[game.pk])).content.decode()
    assert game.seed in page
    assert f'name="events-TOTAL_FORMS" value="{game.version}"' in page
    assert format_money(game.distribution.get(seat=0).amount) in page


def _finished_game(players: int, commission_percent: str = "0"):
    game, users = seated_game(players)
    Table.objects.filter(pk=game.table_id).update(commission_percent=commission_percent)
    return play_out(game, users), users


def test_game_export_is_one_row_a_game_in_rubles(staff_client):
    game, users = _finished_game(2)
    table = read_xlsx(staff_client.post(GAMES_EXPORT, {"format": "0", "resource": "0"}))
    assert table.title == "Игры"
    assert table.filename == "games_all_MSK.xlsx"
    [row] = table.rows
    assert row["№ игры"] == game.pk
    assert (row["Ставка, ₽"], row["Банк, ₽"], row["Комиссия, ₽"]) == (100, 200, 0)
    assert row["Игроки"] == ", ".join(user.username for user in users)
    assert isinstance(row["Окончена"], datetime)


def test_payout_export_is_one_row_a_player_a_game_and_matches_the_ledger(staff_client):
    games = [_finished_game(2)[0], _finished_game(3, commission_percent="5")[0]]
    response = staff_client.post(GAMES_EXPORT, {"format": "0", "resource": "1"})
    table = read_xlsx(response)
    assert table.title == "Выплаты"
    assert table.filename == "payouts_all_MSK.xlsx"
    assert table.header == [
        "№ игры",
        "Стол",
        "Окончена",
        "Игра",
        "Колода, карт",
        "Кто подкидывает",
        "Лимит",
        "Игрок",
        "Занятое место",
        "Доля банка, %",
        "Ставка, ₽",
        "Выплачено, ₽",
        "Чистый итог, ₽",
    ]
    assert len(table.rows) == 2 + 3
    for game in games:
        rows = [row for row in table.rows if row["№ игры"] == game.pk]
        assert {row["Игрок"] for row in rows} == {
            share.user.username for share in game.distribution.all()
        }
        paid = sum(Decimal(str(row["Выплачено, ₽"])) for row in rows)
        assert paid * 100 == game.bank - game.commission
        settled = Entry.objects.filter(
            transaction__kind=LedgerTransaction.Kind.BANK_SETTLE,
            transaction__game_id=game.pk,
            account__kind=Account.Kind.USER,
        )
        by_player = {entry.account.user.username: entry.amount for entry in settled}
        assert {
            row["Игрок"]: Decimal(str(row["Выплачено, ₽"])) * 100
            for row in rows
            if row["Выплачено, ₽"]
        } == by_player
        assert sum(Decimal(str(row["Чистый итог, ₽"])) for row in rows) * 100 == -game.commission
    assert games[1].commission == 1_500

    english = read_csv(
        staff_client.post(
            GAMES_EXPORT, {"format": "1", "resource": "1"}, HTTP_ACCEPT_LANGUAGE="en"
        ),
        delimiter=",",
    )
    assert english.header[:8] == [
        "Game no.",
        "Table",
        "Finished at",
        "Game",
        "Deck, cards",
        "Who throws in",
        "Limits",
        "Player",
    ]
    assert english.filename == "payouts_all_MSK.csv"
    assert len(english.rows) == 5


def test_payout_schemes_are_edited_with_validation(staff_client):
    scheme = PayoutScheme.objects.get(players=3)
    url = reverse("admin:games_payoutscheme_change", args=[scheme.pk])
    response = staff_client.post(url, {"players": 3, "percentages": "[20, 80, 0]"})
    assert response.status_code == 200  # the form comes back with the error
    scheme.refresh_from_db()
    assert scheme.percentages == [80, 20, 0]
    response = staff_client.post(url, {"players": 3, "percentages": "[70, 30, 0]"})
    assert response.status_code == 302
    scheme.refresh_from_db()
    assert scheme.percentages == [70, 30, 0]


def _table_form(table, commission: str) -> dict:
    return {
        "commission_percent": commission,
        "seat_set-TOTAL_FORMS": "0",
        "seat_set-INITIAL_FORMS": "0",
        "seat_set-MIN_NUM_FORMS": "0",
        "seat_set-MAX_NUM_FORMS": "0",
    }


def test_staff_change_the_commission_of_an_open_table_and_nothing_else(staff_client):
    creator = create_player()
    table = services.table_create(user=creator, stake=STAKE, seats=2)
    url = reverse("admin:games_table_change", args=[table.pk])
    response = staff_client.post(url, {**_table_form(table, "5"), "status": "closed"})
    assert response.status_code == 302, response.content.decode()[:2000]
    table.refresh_from_db()
    assert table.commission_percent == Decimal("5") and table.status == Table.Status.OPEN

    response = staff_client.post(url, _table_form(table, "150"))
    assert response.status_code == 200  # the form comes back with its error, no crash
    table.refresh_from_db()
    assert table.commission_percent == Decimal("5")


def test_a_running_games_commission_cannot_be_changed(staff_client):
    game, users = seated_game(2)
    url = reverse("admin:games_table_change", args=[game.table_id])
    staff_client.post(url, _table_form(game.table, "50"))
    game.table.refresh_from_db()
    assert game.table.commission_percent == Decimal("0")
    with pytest.raises(GameError) as refused:
        services.table_set_commission(table_id=game.table_id, commission_percent=Decimal("50"))
    assert refused.value.code == "commission_locked"
    game = play_out(game, users)
    assert game.commission == 0


def test_a_reported_chat_message_waits_in_the_staff_queue_until_staff_mute_its_author(
    staff_client, monkeypatch
):
    from durak_site.audit.models import StaffAction
    from games.models import ChatBan, ChatReport
    from games.services import chat

    monkeypatch.setattr(chat, "CHAT_BURST", 1000)
    game, (reporter, author) = seated_game(2)
    rude = services.chat_post(table_id=game.table_id, user=author, text="<b>rude</b> words")
    calm = services.chat_post(table_id=game.table_id, user=author, phrase="good_luck")
    for message in (rude, calm):
        services.chat_report(table_id=game.table_id, user=reporter, message_id=message.pk)

    queue = staff_client.get(reverse("admin:games_chatreport_changelist") + "?status__exact=open")
    page = queue.content.decode()
    assert "&lt;b&gt;rude&lt;/b&gt; words" in page and "<b>rude</b>" not in page
    assert author.username in page and reporter.username in page
    assert reverse("game_detail", args=[game.pk]) in page
    assert reverse("admin:games_game_change", args=[game.pk]) in page
    calm_report, rude_report = ChatReport.objects.order_by("-id")
    mute_url = reverse("admin:games_chatreport_mute", args=[rude_report.pk])
    assert mute_url in page

    refused = staff_client.post(mute_url, {"hours": "24", "reason": ""})
    assert refused.status_code == 200 and not ChatBan.objects.exists()
    staff_client.post(mute_url, {"hours": "5", "reason": "insults"})  # not an offered time
    assert not ChatBan.objects.exists()
    done = staff_client.post(mute_url, {"hours": "168", "reason": "insults"})
    assert done.status_code == 302
    ban = ChatBan.objects.get()
    assert ban.user == author and 167 < (ban.until - ban.created_at).total_seconds() / 3600 < 169
    rude_report.refresh_from_db()
    assert rude_report.status == ChatReport.Status.MUTED
    record = StaffAction.objects.get(action="games.chat_mute")
    assert (record.player, record.reason, record.target_id) == (author, "insults", str(ban.pk))

    staff_client.post(
        reverse("admin:games_chatreport_changelist"),
        {"action": "dismiss", "_selected_action": [calm_report.pk, rude_report.pk]},
    )
    calm_report.refresh_from_db()
    rude_report.refresh_from_db()
    assert (calm_report.status, rude_report.status) == ("dismissed", "muted")
    for name in ("chatmessage", "chatban"):
        assert staff_client.get(reverse(f"admin:games_{name}_changelist")).status_code == 200
    assert (
        "rude"
        in staff_client.get(reverse("admin:games_game_change", args=[game.pk])).content.decode()
    )
