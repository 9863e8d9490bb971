"""Staff access: a second factor before any admin page, sign-in through allauth with TOTP or
recovery codes, throttled codes, idle sessions that end, the second factor asked again before
the riskiest money actions, and all of it in the audit trail."""

from __future__ import annotations

import re
import uuid

import pytest
from allauth.mfa.models import Authenticator
from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
from django.contrib import admin
from django.contrib.auth.models import Permission
from django.test import override_settings
from django.urls import URLPattern, URLResolver, reverse

from durak_site.audit.models import StaffAction
from tests.players import PASSWORD, create_player, totp_code
from wallet import selectors, withdrawals
from wallet.models import LedgerTransaction, Withdrawal

pytestmark = pytest.mark.django_db

LOGIN = reverse("account_login")
CODE = reverse("mfa_authenticate")
AGAIN = reverse("mfa_reauthenticate")
SETUP = reverse("mfa_index")


def admin_paths() -> list[str]:
    """A path for every named admin URL: each model admin's pages and tools, and the site's."""
    app_labels = sorted({model._meta.app_label for model in admin.site._registry})
    paths: set[str] = set()

    def walk(patterns, namespace: str) -> None:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, namespace)
            elif isinstance(pattern, URLPattern) and pattern.name:
                names = pattern.pattern.regex.groupindex
                values = {name: "1" for name in names}
                if "app_label" in names:
                    values["app_label"] = app_labels[0]
                if "url" in names:
                    values["url"] = "missing/"
                paths.add(reverse(f"{namespace}:{pattern.name}", kwargs=values))

    walk(admin.site.get_urls(), "admin")
    return sorted(paths)


def sign_in(client, user, *, password: str = PASSWORD, next_url: str = "/admin/"):
    return client.post(f"{LOGIN}?next={next_url}", {"login": user.email, "password": password})


def test_every_admin_url_sends_staff_without_a_second_factor_to_set_one_up(client):
    staff = create_player(is_staff=True, second_factor=False)
    staff.is_superuser = True
    staff.save()
    client.force_login(staff)
    paths = admin_paths()
    assert len(paths) > 50  # every model admin's list, add, change, history, export, tools
    for path in paths:
        response = client.get(path)
        assert response.status_code == 302, path
        assert response["Location"].startswith(f"{SETUP}?next="), path
    # Once a second factor is set up, the same pages open.
    Authenticator.objects.create(user=staff, type=Authenticator.Type.TOTP, data={"secret": "x"})
    assert client.get(reverse("admin:index")).status_code == 200
    assert client.get(reverse("admin:wallet_withdrawal_changelist")).status_code == 200


def test_the_setup_page_offers_an_authenticator_app_and_a_passkey(
    client, django_capture_on_commit_callbacks
):
    staff = create_player(is_staff=True, second_factor=False, verified_email=True)
    assert sign_in(client, staff)["Location"] == "/admin/"
    assert client.get("/admin/")["Location"] == f"{SETUP}?next=%2Fadmin%2F"
    index = client.get(SETUP)
    assert index.status_code == 200
    activate = reverse("mfa_activate_totp")
    assert activate.encode() in index.content
    assert reverse("mfa_add_webauthn").encode() in index.content
    # allauth asks for the password again before a second factor is added.
    again = client.get(activate)["Location"]
    assert client.post(again, {"password": PASSWORD})["Location"] == activate
    page = client.get(activate)
    assert page.status_code == 200
    assert b'src="data:image/svg+xml' in page.content  # the QR code an authenticator app scans
    secret = re.search(r'id="authenticator_secret"[^>]*value="([A-Z2-7]+)"', page.content.decode())
    assert secret, "the secret is shown for typing into an app"
    wrong = client.post(activate, {"code": "000000"})
    assert wrong.status_code == 200 and not Authenticator.objects.filter(user=staff).exists()
    with django_capture_on_commit_callbacks(execute=True):
        done = client.post(activate, {"code": totp_code(secret[1])})
    assert done.status_code == 302
    assert client.get("/admin/").status_code == 200
    assert StaffAction.objects.filter(staff=staff, action="staff.second_factor_added").exists()


def test_the_admin_login_is_allauths_with_the_second_factor(client):
    staff = create_player(is_staff=True)
    response = client.get(reverse("admin:login") + "?next=/admin/")
    assert response.status_code == 302
    assert response["Location"].startswith(LOGIN)
    after_password = sign_in(client, staff)
    assert after_password["Location"] == CODE
    assert client.get("/admin/")["Location"].startswith(reverse("admin:login"))  # not yet
    after_code = client.post(CODE, {"code": totp_code()})
    assert after_code["Location"] == "/admin/"
    assert client.get("/admin/").status_code == 200
    actions = list(StaffAction.objects.filter(staff=staff).values_list("action", flat=True))
    assert sorted(actions) == ["staff.second_factor_used", "staff.sign_in"]
    sign_in_record = StaffAction.objects.get(action="staff.sign_in")
    assert sign_in_record.details["ip"] == "127.0.0.1"


def test_recovery_codes_sign_in_once_each(client):
    staff = create_player(is_staff=True)
    codes = RecoveryCodes.activate(staff).get_unused_codes()
    sign_in(client, staff)
    assert client.post(CODE, {"code": codes[0]})["Location"] == "/admin/"
    client.logout()
    sign_in(client, staff)
    reused = client.post(CODE, {"code": codes[0]})
    assert reused.status_code == 200 and reused.context["form"].errors
    assert client.post(CODE, {"code": codes[1]})["Location"] == "/admin/"
    assert client.get("/admin/").status_code == 200


def test_wrong_codes_are_throttled_and_audited(client):
    staff = create_player(is_staff=True)
    sign_in(client, staff)
    for _ in range(5):
        wrong = client.post(CODE, {"code": "000000"})
        assert wrong.status_code == 200
    throttled = client.post(CODE, {"code": totp_code()})
    assert throttled.status_code == 200
    assert "code" in throttled.context["form"].errors
    assert client.get("/admin/")["Location"].startswith(reverse("admin:login"))
    assert StaffAction.objects.filter(staff=staff, action="staff.second_factor_failed").count() == 5


# allauth's own limits would refuse the attempts first (ACCOUNT_RATE_LIMITS): without them,
# django-axes is seen on its own.
@override_settings(ACCOUNT_RATE_LIMITS={"login_failed": "100/m/ip"})
def test_wrong_passwords_for_staff_are_audited_and_locked_per_address(client):
    staff = create_player(is_staff=True)
    player = create_player()
    for _ in range(4):
        assert sign_in(client, staff, password="wrong").status_code == 200
    sign_in(client, staff, password="wrong")
    sign_in(client, player, password="wrong")
    # django-axes locks this address for this staff member, even with the right password,
    assert sign_in(client, staff).status_code == 429
    # and only this address.
    other_address = type(client)(REMOTE_ADDR="192.0.2.44")
    assert sign_in(other_address, staff)["Location"] == CODE
    failures = StaffAction.objects.filter(action="staff.sign_in_failed")
    assert set(failures.values_list("staff", flat=True)) == {staff.pk}
    assert failures.count() >= 5


def test_a_staff_session_ends_after_thirty_idle_minutes(client):
    staff = create_player(is_staff=True)
    player = create_player()
    client.force_login(staff)
    client.get("/admin/")
    assert client.session.get_expiry_age() == 30 * 60
    client.force_login(player)
    client.get("/")
    assert client.session.get_expiry_age() > 30 * 60  # players keep the site's sessions


def test_a_balance_adjustment_asks_again_for_the_second_factor(client):
    staff = create_player(is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="adjust_balance"))
    anna = create_player(nickname="anna")
    client.force_login(staff)
    url = reverse("admin:wallet_account_adjust")
    page = client.get(url)
    data = {
        "player": "anna",
        "direction": "credit",
        "amount": "12.50",
        "kind": "adjustment",
        "reason": "Compensation for a lost connection",
        "request_key": page.context["form"]["request_key"].value(),
    }
    asked = client.post(url, data)
    assert asked.status_code == 302
    assert asked["Location"].startswith(f"{AGAIN}?next=")
    assert not LedgerTransaction.objects.filter(kind="adjustment").exists()
    # The password alone is not offered for it.
    assert reverse("account_reauthenticate").encode() not in client.get(asked["Location"]).content
    # The code given, the kept request goes through.
    confirmed = client.post(asked["Location"], {"code": totp_code()})
    assert confirmed.status_code == 302
    assert LedgerTransaction.objects.filter(kind="adjustment").count() == 1
    assert selectors.user_balance(user=anna) == 12_50
    assert StaffAction.objects.filter(
        staff=staff, action="staff.second_factor_used", details__authenticator="totp"
    ).exists()


@override_settings(WITHDRAWAL_MIN=100_00, WITHDRAWAL_FOUR_EYES_ABOVE=1_000_00)
def test_approving_above_the_four_eyes_limit_asks_again_for_the_second_factor(client):
    player = create_player(balance=5_000_00)
    small, large = (
        withdrawals.withdrawal_request(
            user=player, amount=amount, payout_details="card", request_key=str(uuid.uuid4())
        )
        for amount in (500_00, 2_000_00)
    )
    cashier = create_player(is_staff=True)
    cashier.user_permissions.add(Permission.objects.get(codename="approve_withdrawal"))
    client.force_login(cashier)

    below = client.post(
        f"/admin/wallet/withdrawal/{small.pk}/decide/",
        {"decision": "approve", "payout_reference": "bank-1"},
    )
    assert below["Location"].startswith(reverse("admin:wallet_withdrawal_changelist"))
    assert Withdrawal.objects.get(pk=small.pk).status == Withdrawal.Status.APPROVED

    decide = f"/admin/wallet/withdrawal/{large.pk}/decide/"
    rejected_page = client.post(decide, {"decision": "reject", "reason": ""})
    assert rejected_page.status_code == 200  # a form error: nothing to confirm yet
    asked = client.post(decide, {"decision": "approve", "payout_reference": "bank-2"})
    assert asked["Location"] == f"{AGAIN}?next={re.sub('/', '%2F', decide)}"
    assert Withdrawal.objects.get(pk=large.pk).first_approved_by is None
    wrong = client.post(asked["Location"], {"code": "123456"})
    assert wrong.status_code == 200
    assert Withdrawal.objects.get(pk=large.pk).first_approved_by is None
    confirmed = client.post(asked["Location"], {"code": totp_code()})
    assert confirmed.status_code == 302
    large.refresh_from_db()
    assert (large.status, large.first_approved_by) == (Withdrawal.Status.PENDING, cashier)
