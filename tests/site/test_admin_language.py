"""Every admin list and change page reads right in Russian and in English.

Labels (titles, column heads, field labels, filter and inline headings, buttons, actions, the
side menu) are checked, data is not: a Russian page has no English label left and no title
built around a nominative name («Выберите игра»); an English page has no Russian label.
"""

from __future__ import annotations

import re
from datetime import time, timedelta
from html.parser import HTMLParser

import pytest
from django.contrib import admin
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import RequestFactory, override_settings
from django.urls import reverse
from django.utils import timezone, translation

from durak_site.accounts import identity
from durak_site.staff.admin_site import accusative
from games import services as games_services
from games.models import GameAnalysis, Puzzle
from tests.games.test_services import play_out, seated_game
from tests.players import create_staff
from tournaments import services as tournaments_services
from tournaments.models import Template, Tournament
from wallet import deposits, limits, withdrawals
from wallet import services as wallet_services

pytestmark = pytest.mark.django_db

# Latin letters that are at home in a Russian label.
LATIN_ALLOWED = {"ID", "SHA", "XLSX", "CSV", "PDF", "JSON", "IP"}
LABEL_TAGS = {"h1", "h2", "h3", "label", "legend", "caption", "summary", "button"}
SKIPPED_TAGS = {"script", "style", "textarea", "pre"}
SKIPPED_CLASSES = {"breadcrumbs", "readonly", "paginator", "results"}
SKIPPED_IDS = {"user-tools", "site-name"}


class LabelText(HTMLParser):
    """Collects the text of an admin page's labels, leaving out data and the staff's name."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, dict]] = []
        self.labels: list[str] = []

    VOID = {"input", "br", "img", "hr", "meta", "link", "col", "source"}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "input" and attrs.get("type") == "submit" and not self._skipped():
            self.labels.append(attrs.get("value") or "")
        if tag not in self.VOID:
            self.stack.append((tag, attrs))

    def handle_endtag(self, tag):
        for index in range(len(self.stack) - 1, -1, -1):
            if self.stack[index][0] == tag:
                del self.stack[index:]
                return

    def _skipped(self) -> bool:
        for tag, attrs in self.stack:
            classes = set((attrs.get("class") or "").split())
            if tag in SKIPPED_TAGS or classes & SKIPPED_CLASSES or attrs.get("id") in SKIPPED_IDS:
                return True
        return False

    def _is_label(self) -> bool:
        tags = [tag for tag, _attrs in self.stack]
        if any(tag in LABEL_TAGS for tag in tags):
            return True
        if "thead" in tags or "object-tools" in {a.get("class") for _t, a in self.stack}:
            return True
        if any(a.get("id") == "nav-sidebar" for _t, a in self.stack):
            return True
        # The bulk actions offered above a list.
        return any(tag == "select" and a.get("name") == "action" for tag, a in self.stack)

    def handle_data(self, data):
        text = " ".join(data.split())
        if text and not self._skipped() and self._is_label():
            self.labels.append(text)


def labels_of(page) -> list[str]:
    """The page's label texts, less the object's own name shown under a change page's title."""
    parser = LabelText()
    parser.feed(page.content.decode())
    subtitle = str(page.context.get("subtitle") or "")
    return [label for label in parser.labels if label != subtitle]


def english_words(labels: list[str]) -> set[str]:
    return {
        word
        for label in labels
        for word in re.findall(r"[A-Za-z]+", label)
        if word not in LATIN_ALLOWED
    }


def russian_labels(labels: list[str]) -> list[str]:
    return [label for label in labels if re.search(r"[А-Яа-яЁё]", label)]


@pytest.fixture
def history(settings, tmp_path):
    """At least one row of every model the admin shows."""
    settings.IDENTITY_DOCUMENTS_DIR = tmp_path / "identity"
    staff = create_staff(nickname="croupier", verified_email=True)
    game, users = seated_game(2)
    game = play_out(game, users)
    GameAnalysis.objects.create(game=game, user=users[0])
    Puzzle.objects.create(
        game=game, version=1, state=game.state, seat=0, answer={"type": "take"}, mu=25, sigma=8
    )
    open_game, seated = seated_game(3)  # a table still open
    said = games_services.chat_post(table_id=open_game.table_id, user=seated[0], text="Ходи!")
    report = games_services.chat_report(
        table_id=open_game.table_id, user=seated[1], message_id=said.pk
    )
    games_services.chat_ban(staff=staff, report_id=report.pk, hours=24, reason="Грубость")
    wallet_services.staff_adjust(
        user=users[0], amount=500, reason="Bonus", staff_user=staff, idempotency_key="adj:1"
    )
    Group.objects.create(name="cashiers")
    games_services.stake_block_create(
        staff_user=staff,
        user=users[1],
        reason="Fair play",
        ends_at=timezone.now() + timedelta(days=3),
    )
    with override_settings(PAYMENTS_TEST_MODE=True):
        deposits.deposit_start(
            user=users[1], amount=500_00, provider_code="test", site_url="https://durak.example"
        )
    withdrawals.withdrawal_request(
        user=users[0], amount=100_00, payout_details="card", request_key="withdrawal:1"
    )
    limits.limit_set(user=users[1], kind="loss_day", value=100_00)
    limits.break_start(user=users[1], length="24h")
    identity.document_upload(
        user=users[1], file=SimpleUploadedFile("passport.png", b"\x89PNG\r\n\x1a\n" + b"\0" * 64)
    )
    Template.objects.create(
        name="Арена", kind="arena", minutes=30, local_time=time(20), prize_percentages=[100]
    )
    arena = Tournament.objects.create(
        name="Арена", kind="arena", minutes=30, starts_at=timezone.now(), prize_percentages=[100]
    )
    tournaments_services.tournament_register(tournament_id=arena.pk, user=users[0])
    return staff


def _pages(staff):
    """(model, list page, change page) for every registered model admin."""
    request = RequestFactory().get("/")
    request.user = staff
    missing = []
    for model, model_admin in admin.site._registry.items():
        opts = model._meta
        changelist = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
        obj = model_admin.get_queryset(request).first()
        if obj is None:
            missing.append(opts.label)
            continue
        change = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk])
        yield model, changelist, change
    assert not missing, f"add a row of {missing} to the history fixture"


def test_every_admin_page_reads_in_russian(client, history):
    client.force_login(history)
    with translation.override("ru"):
        for model, changelist, change in _pages(history):
            names = {"accusative": accusative(model._meta)}
            for url in (changelist, change):
                page = client.get(url, HTTP_ACCEPT_LANGUAGE="ru")
                assert page.status_code == 200, url
                labels = labels_of(page)
                assert labels, url
                assert not english_words(labels), (url, english_words(labels))
                title = page.context["title"]
                # The object of «Выберите… / Просмотреть… / Изменить…» is in the accusative.
                assert names["accusative"] in title, (url, title)
                assert re.search(r"[А-Яа-яЁё]", names["accusative"]), (model, names)


def test_titles_decline_the_model_name(client, history):
    client.force_login(history)
    game_list = client.get(reverse("admin:games_game_changelist"))
    assert game_list.context["title"] == "Выберите игру для просмотра"
    game = client.get(
        reverse("admin:games_game_change", args=[game_list.context["cl"].result_list[0].pk])
    )
    assert game.context["title"] == "Просмотреть игру"
    transactions = client.get(reverse("admin:wallet_ledgertransaction_changelist"))
    assert transactions.context["title"] == "Выберите проводку для просмотра"
    players = client.get(reverse("admin:accounts_user_changelist")).content.decode()
    assert "Выберите игрока для изменения" in players
    assert "Добавить игрока" in players
    assert "Удалить выбранных игроков" in players


def test_every_admin_page_reads_in_english(client, history):
    client.force_login(history)
    for _model, changelist, change in _pages(history):
        for url in (changelist, change):
            page = client.get(url, HTTP_ACCEPT_LANGUAGE="en")
            assert page.status_code == 200, url
            labels = labels_of(page)
            assert not russian_labels(labels), (url, russian_labels(labels))


def test_bank_split_labels_tell_the_seat_from_the_finishing_place(client, history):
    client.force_login(history)
    game_list = client.get(reverse("admin:games_game_changelist") + "?status__exact=finished")
    game = game_list.context["cl"].result_list[0]
    response = client.get(reverse("admin:games_game_change", args=[game.pk]))
    page, labels = response.content.decode(), labels_of(response)
    assert "Занятое место" in labels and "Место за столом" in labels
    assert "Место" not in labels
    names = dict(game.table.seat_set.values_list("user_id", "user__username"))
    assert ", ".join(names[user_id] for user_id in game.players) in page  # names, not ids
    assert "100,00 ₽" in page and "200,00 ₽" in page  # stake and bank in rubles
    assert "100,0000" not in page
