"""Age and identity: the date of birth at sign-up, documents for staff review, what needs a
verified identity, and the documents' end after a closed account's retention period."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.models import Permission
from django.core.exceptions import PermissionDenied
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from durak_site.accounts import identity
from durak_site.accounts.closure import account_close
from durak_site.accounts.models import IdentityDocument, IdentityStatus, User
from durak_site.audit.models import StaffAction
from durak_site.tasks import purge_identity_documents
from games import services as games
from games.services import GameError
from tests.players import create_player
from wallet import deposits, withdrawals
from wallet.limits import IdentityNotVerified
from wallet.models import Payment, Withdrawal

pytestmark = pytest.mark.django_db

PASSWORD = "Kozyr-tuz-42"
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 64
PDF = b"%PDF-1.7\n" + b"x" * 64


@pytest.fixture(autouse=True)
def documents_dir(settings, tmp_path):
    settings.IDENTITY_DOCUMENTS_DIR = tmp_path / "identity"
    settings.IDENTITY_REQUIRED_FOR = frozenset()
    settings.IDENTITY_REQUIRED_DEPOSIT_ABOVE = None
    return settings.IDENTITY_DOCUMENTS_DIR


def reviewer(*, permission: bool = True) -> User:
    staff = create_player(is_staff=True)
    if permission:
        for codename in ("review_identity", "view_identitydocument", "view_user"):
            staff.user_permissions.add(Permission.objects.get(codename=codename))
    return User.objects.get(pk=staff.pk)  # fresh permission cache


def upload(user, content=PNG, name="passport.png") -> IdentityDocument:
    return identity.document_upload(user=user, file=SimpleUploadedFile(name, content))


def years_ago(years: int, today: date) -> date:
    return today.replace(year=today.year - years)


def sign_up(client, born: str, email="anna@example.com"):
    return client.post(
        reverse("account_signup"),
        {
            "email": email,
            "username": email.split("@")[0],
            "password1": PASSWORD,
            "password2": PASSWORD,
            "date_of_birth": born,
        },
    )


def test_sign_up_refuses_anyone_under_18_and_keeps_an_adults_date_of_birth(client):
    today = timezone.localdate()
    one_day_short = years_ago(18, today) + timedelta(days=1)
    response = sign_up(client, one_day_short.isoformat())
    assert response.status_code == 200
    assert response.context["form"].has_error("date_of_birth", "underage")
    assert "только с 18 лет" in response.content.decode()
    assert not User.objects.exists()

    for refused in ["", "2999-01-01", "31.02.2000"]:
        assert sign_up(client, refused).status_code == 200
        assert not User.objects.exists()

    eighteen_today = years_ago(18, today)
    assert sign_up(client, eighteen_today.isoformat()).status_code == 302
    user = User.objects.get()
    assert user.date_of_birth == eighteen_today
    assert user.identity_status == IdentityStatus.NOT_CHECKED


def test_age_counts_full_years_and_a_leap_day_birthday():
    assert identity.age_on(date(2008, 2, 29), date(2026, 2, 28)) == 17
    assert identity.age_on(date(2008, 2, 29), date(2026, 3, 1)) == 18
    assert identity.age_on(date(2000, 12, 5), date(2026, 12, 4)) == 25


def test_an_upload_is_stored_privately_and_makes_the_check_pending(client, documents_dir):
    player = create_player()
    client.force_login(player)
    page = client.get(reverse("identity")).content.decode()
    assert 'data-testid="identity-form"' in page
    response = client.post(
        reverse("identity"), {"file": SimpleUploadedFile("скан паспорта.pdf", PDF)}, follow=True
    )
    assert response.status_code == 200
    document = IdentityDocument.objects.get(user=player)
    player.refresh_from_db()
    assert player.identity_status == IdentityStatus.PENDING
    stored = documents_dir / document.file.name
    assert stored.read_bytes() == PDF and document.content_type == "application/pdf"
    assert document.file.name.startswith(f"{player.pk}/") and "паспорт" not in document.file.name
    assert not str(stored).startswith(str(django_settings.STATIC_ROOT))
    with pytest.raises(ValueError):
        document.file.url  # noqa: B018 (no public address to give)


@pytest.mark.parametrize(
    ("content", "name"),
    [
        (b"<html><script>alert(1)</script>", "passport.png"),
        (b"", "empty.png"),
        (b"\xff\xd8\xff" + b"\0" * (identity.DOCUMENT_MAX_BYTES), "huge.jpg"),
    ],
)
def test_a_file_that_is_not_a_small_picture_or_pdf_is_refused(content, name, documents_dir):
    player = create_player()
    with pytest.raises(identity.IdentityError):
        upload(player, content, name)
    assert not IdentityDocument.objects.exists()
    assert not documents_dir.exists() or not any(documents_dir.rglob("*.*"))
    player.refresh_from_db()
    assert player.identity_status == IdentityStatus.NOT_CHECKED


def test_the_files_open_only_to_staff_with_the_permission(client):
    document = upload(create_player())
    url = reverse("admin:accounts_identitydocument_file", args=[document.pk])
    client.force_login(create_player())
    assert client.get(url).status_code == 302  # to the staff login
    client.force_login(reviewer(permission=False))
    assert client.get(url).status_code == 403
    client.force_login(reviewer())
    response = client.get(url)
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == PNG
    assert response["Content-Type"] == "image/png"
    assert "sandbox" in response["Content-Security-Policy"]
    assert "no-store" in response["Cache-Control"]


def test_staff_decisions_need_the_permission_and_a_reason_and_go_to_the_audit_trail(client):
    player = create_player()
    with pytest.raises(identity.IdentityError):
        identity.identity_decide(user=player, staff=reviewer(), verified=True, reason="ok")
    document = upload(player)
    with pytest.raises(PermissionDenied):
        identity.identity_decide(
            user=player, staff=reviewer(permission=False), verified=True, reason="ok"
        )
    staff = reviewer()
    with pytest.raises(identity.IdentityError):
        identity.identity_decide(user=player, staff=staff, verified=True, reason=" ")
    assert not StaffAction.objects.exists()

    client.force_login(staff)
    page = reverse("admin:accounts_user_identity", args=[player.pk])
    assert f"/{document.pk}/file/" in client.get(page).content.decode()
    client.post(page, {"decision": "0", "reason": "Photo unreadable"})
    player.refresh_from_db()
    assert player.identity_status == IdentityStatus.REFUSED
    client.post(page, {"decision": "1", "reason": "Passport matches"})
    player.refresh_from_db()
    assert player.identity_status == IdentityStatus.VERIFIED
    decisions = StaffAction.objects.filter(action__startswith="accounts.identity_").order_by("id")
    assert list(decisions.values_list("action", "reason", "player")) == [
        ("accounts.identity_refuse", "Photo unreadable", player.pk),
        ("accounts.identity_verify", "Passport matches", player.pk),
    ]
    assert decisions.last().details == {
        "from": "refused",
        "documents": [document.pk],
    }
    with pytest.raises(identity.IdentityError):
        upload(player)  # nothing more to upload once verified


def test_a_first_withdrawal_needing_a_verified_identity_waits_for_staff_approval_of_the_documents(
    client, settings
):
    settings.IDENTITY_REQUIRED_FOR = frozenset({"first_withdrawal"})
    settings.WITHDRAWAL_MIN = 100_00
    player = create_player(balance=500_00)
    cashier = create_player(is_staff=True)
    cashier.user_permissions.add(Permission.objects.get(codename="approve_withdrawal"))
    cashier = User.objects.get(pk=cashier.pk)
    asked = withdrawals.withdrawal_request(
        user=player, amount=200_00, payout_details="card 4000", request_key="first"
    )
    client.force_login(player)
    assert (
        'data-testid="withdraw-needs-identity"' in client.get(reverse("withdraw")).content.decode()
    )

    with pytest.raises(withdrawals.WithdrawalAwaitsIdentity):
        withdrawals.withdrawal_approve(
            withdrawal_id=asked.pk, staff_user=cashier, payout_reference="P-1"
        )
    asked.refresh_from_db()
    assert asked.status == Withdrawal.Status.PENDING

    upload(player)
    with pytest.raises(withdrawals.WithdrawalAwaitsIdentity):
        withdrawals.withdrawal_approve(
            withdrawal_id=asked.pk, staff_user=cashier, payout_reference="P-1"
        )
    identity.identity_decide(user=player, staff=reviewer(), verified=True, reason="Passport")
    withdrawals.withdrawal_approve(
        withdrawal_id=asked.pk, staff_user=cashier, payout_reference="P-1"
    )
    asked.refresh_from_db()
    assert asked.status == Withdrawal.Status.APPROVED

    # Only the first one waits: a player whose earlier withdrawal was paid is not held again.
    settings.IDENTITY_REQUIRED_FOR = frozenset({"first_withdrawal"})
    User.objects.filter(pk=player.pk).update(identity_status=IdentityStatus.REFUSED)
    second = withdrawals.withdrawal_request(
        user=player, amount=100_00, payout_details="card 4000", request_key="second"
    )
    withdrawals.withdrawal_approve(
        withdrawal_id=second.pk, staff_user=cashier, payout_reference="P-2"
    )


def test_deposits_over_the_set_sum_and_play_need_a_verified_identity(settings):
    settings.PAYMENTS_TEST_MODE = True
    settings.IDENTITY_REQUIRED_DEPOSIT_ABOVE = 1_000_00
    settings.IDENTITY_REQUIRED_FOR = frozenset({"play"})
    player = create_player(balance=500_00)

    def deposit(amount):
        return deposits.deposit_start(
            user=player, amount=amount, provider_code="test", site_url="https://durak.example"
        )

    deposit(1_000_00)
    with pytest.raises(IdentityNotVerified):
        deposit(1_000_01)
    assert Payment.objects.count() == 1
    with pytest.raises(GameError) as refused:
        games.table_create(user=player, stake=100_00, seats=2)
    assert refused.value.message == identity.not_verified_message()
    games.practice_start(user=player, players=2, level="novice")  # no stake: open to all

    upload(player)
    identity.identity_decide(user=player, staff=reviewer(), verified=True, reason="Passport")
    deposit(1_000_01)
    games.table_create(user=player, stake=100_00, seats=2)


def test_documents_outlive_the_account_by_the_retention_period_then_go(
    settings, documents_dir, django_capture_on_commit_callbacks
):
    settings.IDENTITY_DOCUMENTS_RETENTION_DAYS = 30
    long_closed, lately_closed, open_account = (create_player() for _ in range(3))
    for player in (long_closed, lately_closed, open_account):
        User.objects.filter(pk=player.pk).update(date_of_birth=date(1990, 5, 17))
        upload(player)
    for player in (long_closed, lately_closed):
        account_close(user=player)
    assert IdentityDocument.objects.count() == 3  # closing deletes none of them
    User.objects.filter(pk=long_closed.pk).update(closed_at=timezone.now() - timedelta(days=31))
    User.objects.filter(pk=lately_closed.pk).update(closed_at=timezone.now() - timedelta(days=29))
    doomed = IdentityDocument.objects.get(user=long_closed).file.name

    assert "durak_site.tasks.purge_identity_documents" in {
        entry["task"] for entry in django_settings.CELERY_BEAT_SCHEDULE.values()
    }
    with django_capture_on_commit_callbacks(execute=True):
        assert purge_identity_documents() == 1
    assert set(IdentityDocument.objects.values_list("user", flat=True)) == {
        lately_closed.pk,
        open_account.pk,
    }
    assert not (documents_dir / doomed).exists()
    assert len(list(documents_dir.rglob("*.png"))) == 2
    assert User.objects.get(pk=long_closed.pk).date_of_birth is None
    assert User.objects.get(pk=lately_closed.pk).date_of_birth == date(1990, 5, 17)
