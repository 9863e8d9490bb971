"""Sign-up with a nickname, mandatory e-mail verification, login and logout through allauth."""

import re

import pytest
from allauth.account.models import EmailAddress
from django.core import mail
from django.urls import reverse

from durak_site.accounts.models import User

pytestmark = pytest.mark.django_db

PASSWORD = "Kozyr-tuz-42"


def _sign_up(client, email="anna@example.com", nickname="Anna"):
    return client.post(
        reverse("account_signup"),
        {
            "email": email,
            "username": nickname,
            "password1": PASSWORD,
            "password2": PASSWORD,
            "date_of_birth": "1990-05-17",
        },
    )


@pytest.fixture
def mandatory_verification(settings):
    settings.ACCOUNT_EMAIL_VERIFICATION = "mandatory"


def test_signup_verify_login_logout(client, mandatory_verification):
    response = _sign_up(client)
    assert response.status_code == 302
    user = User.objects.get(email="anna@example.com")
    assert user.nickname == "Anna"
    assert not EmailAddress.objects.get(user=user).verified

    # Unverified: logging in is refused and sends the user to the verification notice.
    client.logout()
    response = client.post(
        reverse("account_login"), {"login": "anna@example.com", "password": PASSWORD}
    )
    assert "_auth_user_id" not in client.session
    assert response.status_code == 302
    assert "confirm-email" in response["Location"]

    confirmation_mail = mail.outbox[-1]
    assert "anna@example.com" in confirmation_mail.to
    link = re.search(r"https?://\S+/accounts/confirm-email/\S+/", confirmation_mail.body).group(0)
    response = client.post(link.split("testserver", 1)[1])
    assert response.status_code == 302
    assert EmailAddress.objects.get(user=user).verified

    client.logout()
    response = client.post(
        reverse("account_login"), {"login": "anna@example.com", "password": PASSWORD}
    )
    assert response.status_code == 302
    assert int(client.session["_auth_user_id"]) == user.pk
    page = client.get(reverse("home"))
    assert "Anna" in page.content.decode()

    client.post(reverse("account_logout"))
    assert "_auth_user_id" not in client.session


def test_nickname_must_be_unique_ignoring_case(client):
    assert _sign_up(client).status_code == 302
    client.logout()
    response = _sign_up(client, email="other@example.com", nickname="anna")
    assert response.status_code == 200
    assert User.objects.filter(email="other@example.com").count() == 0


def test_nickname_rejects_spaces_and_symbols(client):
    response = _sign_up(client, nickname="bad name!")
    assert response.status_code == 200
    assert not User.objects.exists()


def test_wrong_password_is_refused(client):
    _sign_up(client)
    client.logout()
    response = client.post(
        reverse("account_login"), {"login": "anna@example.com", "password": "wrong-password"}
    )
    assert response.status_code == 200
    assert "_auth_user_id" not in client.session


def test_password_reset_sends_a_working_link(client):
    _sign_up(client)
    client.logout()
    mail.outbox.clear()
    client.post(reverse("account_reset_password"), {"email": "anna@example.com"})
    assert len(mail.outbox) == 1
    body = mail.outbox[0].body
    link = re.search(r"https?://testserver(/accounts/password/reset/key/\S+/)", body)
    response = client.get(link.group(1), follow=True)
    form_url = response.redirect_chain[-1][0] if response.redirect_chain else link.group(1)
    new_password = "Novyi-parol-77"
    response = client.post(form_url, {"password1": new_password, "password2": new_password})
    assert response.status_code == 302
    assert User.objects.get(email="anna@example.com").check_password(new_password)


def test_account_pages_use_the_site_layout_in_russian(client):
    page = client.get(reverse("account_login")).content.decode()
    assert 'class="site-header"' in page
    assert '<html lang="ru">' in page
    assert "Регистрация" in page


def test_english_is_available(client):
    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    page = client.get(reverse("home")).content.decode()
    assert '<html lang="en">' in page
    assert "Sign up" in page


@pytest.mark.parametrize(
    ("language", "name"), [("ru", "Дурак до завала"), ("en", "Durak do zavala")]
)
def test_account_emails_carry_the_site_name_not_the_host(
    client, mandatory_verification, language, name
):
    client.cookies["django_language"] = language
    _sign_up(client, email="vera@example.com", nickname="Vera")
    message = mail.outbox[-1]
    assert message.subject.startswith(f"[{name}] ")
    first_line = message.body.splitlines()[0]
    assert name in first_line and "testserver" not in first_line
