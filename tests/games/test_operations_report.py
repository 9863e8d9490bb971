"""The operations report over a known history: every figure, per period and in total, and the
same figures recomputed straight from the ledger."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.db.models import Sum
from django.urls import reverse
from django.utils import timezone

from games import services
from games.models import Game, GameEvent, Table
from games.selectors.reports import operations_report
from tests.games.conftest import OPENING_BALANCE, STAKE, create_player
from tests.games.test_services import expire_deadline, play_out, seated_game
from tests.players import create_staff
from tests.spreadsheets import read_csv, read_xlsx
from wallet import services as wallet_services
from wallet.models import Account, Entry

pytestmark = pytest.mark.django_db
REPORT = reverse("admin:games_operations_report")


def ledger_sum(kind: str, **filters) -> int:
    total = Entry.objects.filter(transaction__kind=kind, **filters).aggregate(s=Sum("amount"))
    return total["s"] or 0


@pytest.fixture
def history():
    """Six funded players and a staff member; two games, a timeout, a table left, a paid and
    a pending withdrawal and two staff adjustments. The three-player game is moved three days
    back."""
    staff = create_staff(nickname="boss")

    pair, pair_users = seated_game(2)
    Table.objects.filter(pk=pair.table_id).update(commission_percent="5")
    pair.refresh_from_db()
    expire_deadline(pair)
    assert services.game_timeout(game_id=pair.pk, version=pair.version)
    pair = play_out(pair, pair_users)

    trio, trio_users = seated_game(3)
    trio = play_out(trio, trio_users)
    three_days_ago = timezone.now() - timedelta(days=3)
    Game.objects.filter(pk=trio.pk).update(
        started_at=three_days_ago,
        finished_at=three_days_ago + (trio.finished_at - trio.started_at),
        stalemate=True,
    )

    leaver = create_player()
    table = services.table_create(user=leaver, stake=STAKE, seats=4)
    services.table_leave(table_id=table.pk, user=leaver)

    wallet_services.withdrawal_hold(user=pair_users[0], amount=5_000, idempotency_key="w:1")
    wallet_services.withdrawal_pay(
        amount=5_000, idempotency_key="w:1:pay", initiated_by=None, memo=""
    )
    wallet_services.withdrawal_hold(user=pair_users[0], amount=2_000, idempotency_key="w:2")
    for key, amount in (("a:1", 1_234), ("a:2", -234)):
        wallet_services.staff_adjust(
            user=pair_users[1],
            amount=amount,
            reason="Goodwill",
            staff_user=staff,
            idempotency_key=key,
        )
    pair.refresh_from_db()
    trio.refresh_from_db()
    return {"staff": staff, "pair": pair, "trio": trio, "three_days_ago": three_days_ago}


def test_every_figure_of_a_known_history(history):
    today = timezone.localdate()
    report = operations_report(since=today - timedelta(days=6), until=today, grouping="day")
    assert [bucket.start for bucket in report.buckets] == [
        today - timedelta(days=n) for n in range(6, -1, -1)
    ]
    by_day = {bucket.start: bucket for bucket in report.buckets}
    now, back = by_day[today], by_day[timezone.localtime(history["three_days_ago"]).date()]
    pair, trio = history["pair"], history["trio"]

    # Money: all of it was posted today.
    assert now.deposits == 6 * OPENING_BALANCE
    assert now.stakes_held == (2 + 3 + 1) * STAKE
    assert now.stakes_returned == STAKE
    assert now.banks_settled == (2 + 3) * STAKE
    assert now.commission == pair.commission == 1_000
    assert now.withdrawals_requested == 7_000
    assert now.withdrawals_paid == 5_000
    assert now.withdrawals_pending == 2_000
    assert by_day[today - timedelta(days=1)].withdrawals_pending == 0
    assert now.staff_adjustments == 1_000
    assert all(
        bucket.deposits == bucket.stakes_held == 0 for bucket in report.buckets if bucket != now
    )
    # Players and games follow the games' own dates.
    assert now.new_players == 6  # not the staff member
    assert now.paying_players == 6
    assert (now.active_players, back.active_players) == (2, 3)
    assert (now.games, back.games) == (1, 1)
    assert now.games_by_players == {2: 1} and back.games_by_players == {3: 1}
    assert now.timeouts == GameEvent.objects.filter(game=pair, automatic=True).count() == 1
    assert (now.stalemates, back.stalemates) == (0, 1)
    assert now.average_game_seconds == (pair.finished_at - pair.started_at).total_seconds()

    total = report.total
    assert total.active_players == 5 and total.paying_players == 6 and total.games == 2
    assert total.games_by_players == {2: 1, 3: 1}
    assert total.average_game_seconds == pytest.approx(
        sum((g.finished_at - g.started_at).total_seconds() for g in (pair, trio)) / 2
    )


def test_bots_and_staff_are_not_players_and_practice_games_count_apart(history):
    """The staff member plays a practice game to its end against two bots made for it."""
    from tests.games.test_practice import practice_game, step

    game, staff = practice_game(players=3, level="novice", user=history["staff"])
    while game.status == Game.Status.PLAYING:
        step(game, staff)
        game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    today = timezone.localdate()
    report = operations_report(since=today, until=today, grouping="day")
    now = report.buckets[0]
    assert now.new_players == 6
    assert now.active_players == 2
    assert (now.games, now.practice_games) == (1, 1)
    assert now.games_by_players == {2: 1}
    assert report.total.practice_games == 1


def test_the_money_reconciles_with_the_ledger(history):
    today = timezone.localdate()
    total = operations_report(since=today - timedelta(days=30), until=today, grouping="week").total
    assert total.deposits == ledger_sum("deposit", account__kind="user")
    assert total.withdrawals_requested == -ledger_sum("withdraw_hold", account__kind="user")
    assert total.withdrawals_paid == ledger_sum("withdrawal", account__kind="external")
    pending = Account.objects.get(kind=Account.Kind.PENDING_PAYOUTS).balance
    assert total.withdrawals_pending == pending == 2_000
    assert total.stakes_held == ledger_sum("stake_hold", account__kind="table_bank")
    assert total.stakes_returned == -ledger_sum("stake_release", account__kind="table_bank")
    assert total.banks_settled == -ledger_sum("bank_settle", account__kind="table_bank")
    assert total.commission == ledger_sum("bank_settle", account__kind="house")
    assert total.staff_adjustments == ledger_sum("adjustment", account__kind="user")
    # What the players hold now is what came in, less what they asked to withdraw, the house's
    # cut and the stakes still on the tables.
    wallets = Entry.objects.filter(account__kind="user").aggregate(s=Sum("amount"))["s"]
    on_tables = Entry.objects.filter(account__kind="table_bank").aggregate(s=Sum("amount"))["s"]
    assert wallets == (
        total.deposits
        - total.withdrawals_requested
        + total.staff_adjustments
        - total.commission
        - on_tables
    )


def _figures(bucket) -> tuple:
    return (
        bucket.moved,
        bucket.net,
        bucket.withdrawals_pending,
        bucket.games_by_players,
        bucket.new_players,
        bucket.active_players,
        bucket.paying_players,
        bucket.timeouts,
        bucket.stalemates,
    )


def test_weeks_and_months_add_up_to_the_days(history):
    today = timezone.localdate()
    since = today - timedelta(days=40)
    day, week, month = (
        operations_report(since=since, until=today, grouping=grouping)
        for grouping in ("day", "week", "month")
    )
    assert _figures(week.total) == _figures(month.total) == _figures(day.total)
    assert all(bucket.start.weekday() == 0 for bucket in week.buckets)
    assert all(bucket.start.day == 1 for bucket in month.buckets)
    assert sum(bucket.deposits for bucket in week.buckets) == day.total.deposits


def test_the_page_shows_the_figures_and_a_chart_and_exports_them(client, history):
    client.force_login(history["staff"])
    assert REPORT in client.get(reverse("admin:app_list", args=["games"])).content.decode()
    today = timezone.localdate()
    query = f"?since={today - timedelta(days=6)}&until={today}&grouping=day"
    page = client.get(REPORT + query)
    assert page.status_code == 200
    html = page.content.decode()
    assert "<polyline" in html and "<script" not in html.split("ops-chart", 1)[1].split("</svg>")[0]
    assert "6 000,00 ₽" in html  # deposits in the total row
    assert "Операционный отчёт" in html

    table = read_xlsx(client.get(REPORT + query + "&format=xlsx"))
    assert table.filename == f"operations_{today - timedelta(days=6)}_{today}_day_MSK.xlsx"
    assert table.title == "Операционный отчёт"
    assert table.header[:5] == [
        "Период",
        "Ставки приняты, ₽",
        "Ставки возвращены, ₽",
        "Банки выплачены, ₽",
        "Комиссия заведения, ₽",
    ]
    *days, total = table.rows
    assert len(days) == 7 and total["Период"] == "Итого"
    assert total["Пополнения, ₽"] == 6_000
    assert sum(Decimal(str(row["Пополнения, ₽"])) for row in days) == 6_000
    assert total["Игры с 3 игроками"] == 1

    english = read_csv(
        client.get(REPORT + query + "&format=csv", HTTP_ACCEPT_LANGUAGE="en"), delimiter=","
    )
    assert english.header[1] == "Stakes held, ₽"
    assert english.rows[-1]["Deposits, ₽"] == "6000.00"


def test_a_bad_period_is_refused_in_words(client, history):
    client.force_login(history["staff"])
    page = client.get(REPORT + "?since=2026-12-07&until=2026-12-01&grouping=day")
    assert page.status_code == 200
    assert "Период заканчивается раньше, чем начинается." in page.content.decode()
    assert client.get(REPORT + "?since=x&until=y&grouping=year").status_code == 200
