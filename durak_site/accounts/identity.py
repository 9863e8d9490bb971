"""Age and identity: the players' identity documents, staff's decision on them, and what a
player may do before it.

A player uploads scans or photos of his documents (JPEG, PNG or PDF); his check is then
pending until staff verify or refuse it, which the audit trail records. The settings say what
needs a verified identity (``needs_identity``): the first withdrawal, a deposit above a sum, or
play at stakes at all; the apps that move money ask here. The files are kept in a private
folder; a closed account's are deleted once ``IDENTITY_DOCUMENTS_RETENTION_DAYS`` have passed
(``documents_purge``, run hourly by Celery beat).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from durak_site.accounts.models import IdentityDocument, IdentityStatus, User
from durak_site.audit.services import record_staff_action

ADULT_AGE = 18
REVIEW_PERMISSION = "accounts.review_identity"
DOCUMENT_MAX_BYTES = 10 * 1024 * 1024
# Documents one player may have stored at a time.
DOCUMENTS_MAX = 10
# What a file must start with to be taken as its type, whatever its name or the browser says.
SIGNATURES = {
    b"\xff\xd8\xff": ("image/jpeg", ".jpg"),
    b"\x89PNG\r\n\x1a\n": ("image/png", ".png"),
    b"%PDF-": ("application/pdf", ".pdf"),
}


class IdentityError(Exception):
    def __init__(self, message) -> None:
        self.message = str(message)
        super().__init__(self.message)


def age_on(born: date, day: date) -> int:
    """Full years between ``born`` and ``day`` (born on 29 February: a year older on 1 March)."""
    return day.year - born.year - ((day.month, day.day) < (born.month, born.day))


def check_adult(born: date, *, today: date | None = None) -> None:
    """Raise ``ValidationError`` unless someone born on ``born`` is 18 or older today."""
    today = today or timezone.localdate()
    if born > today:
        raise ValidationError(_("The date of birth is in the future."), code="future")
    if age_on(born, today) < ADULT_AGE:
        raise ValidationError(
            _("You must be 18 or older to play here. Come back when you are."), code="underage"
        )


def needs_identity(*, purpose: str, amount: int | None = None) -> bool:
    """Whether the settings ask for a verified identity before ``purpose``: "first_withdrawal",
    "play", or "deposit" of ``amount`` minor units."""
    if purpose == "deposit":
        above = settings.IDENTITY_REQUIRED_DEPOSIT_ABOVE
        return above is not None and amount is not None and amount > above
    return purpose in settings.IDENTITY_REQUIRED_FOR


def is_verified(user) -> bool:
    """Read from the database, so that a decision taken meanwhile counts."""
    return User.objects.filter(pk=user.pk, identity_status=IdentityStatus.VERIFIED).exists()


def not_verified_message() -> str:
    return str(
        _(
            "This needs your identity verified first. Upload your documents on the identity "
            "page; staff review them."
        )
    )


def document_upload(*, user: User, file: UploadedFile) -> IdentityDocument:
    """Store ``file`` for staff review and make the player's check pending.

    Refused (``IdentityError``, nothing stored) when the identity is verified already, when
    the player holds too many documents, and for a file that is empty, too large, or not a
    JPEG, PNG or PDF by its content.
    """
    if file.size == 0:
        raise IdentityError(_("The file is empty."))
    if file.size > DOCUMENT_MAX_BYTES:
        raise IdentityError(_("A file may be at most 10 MB."))
    head = file.read(8)
    file.seek(0)
    kind = next((found for sig, found in SIGNATURES.items() if head.startswith(sig)), None)
    if kind is None:
        raise IdentityError(_("Upload a photo (JPEG or PNG) or a PDF of the document."))
    content_type, suffix = kind
    with transaction.atomic():
        user = User.objects.select_for_update().get(pk=user.pk)
        if user.identity_status == IdentityStatus.VERIFIED:
            raise IdentityError(_("Your identity is verified already."))
        if user.identity_documents.count() >= DOCUMENTS_MAX:
            raise IdentityError(
                _("You have uploaded %(count)s documents; wait for staff to review them.")
                % {"count": DOCUMENTS_MAX}
            )
        document = IdentityDocument(user=user, content_type=content_type, size=file.size)
        document.file.save(f"document{suffix}", file, save=False)
        try:
            document.save()
            if user.identity_status != IdentityStatus.PENDING:
                user.identity_status = IdentityStatus.PENDING
                user.save(update_fields=["identity_status"])
        except Exception:
            document.file.delete(save=False)
            raise
    return document


def identity_decide(*, user: User, staff, verified: bool, reason: str) -> User:
    """Staff verify or refuse the player's identity on his documents, with a reason, recorded
    in the audit trail. Verifying needs documents to look at."""
    if staff is None or not staff.is_staff or not staff.has_perm(REVIEW_PERMISSION):
        raise PermissionDenied
    reason = (reason or "").strip()
    if not reason:
        raise IdentityError(_("A reason is required."))
    with transaction.atomic():
        user = User.objects.select_for_update().get(pk=user.pk)
        documents = list(user.identity_documents.values_list("id", flat=True))
        if verified and not documents:
            raise IdentityError(_("There are no documents to verify the identity on."))
        previous = user.identity_status
        user.identity_status = IdentityStatus.VERIFIED if verified else IdentityStatus.REFUSED
        user.identity_decided_at = timezone.now()
        user.save(update_fields=["identity_status", "identity_decided_at"])
        record_staff_action(
            staff=staff,
            action="accounts.identity_verify" if verified else "accounts.identity_refuse",
            reason=reason,
            target=user,
            details={"from": previous, "documents": documents},
        )
    return user


def documents_purge(*, now: datetime | None = None) -> int:
    """Delete the documents (files and rows) and the date of birth of accounts closed more than
    the retention period ago; return how many documents went."""
    cutoff = (now or timezone.now()) - timedelta(days=settings.IDENTITY_DOCUMENTS_RETENTION_DAYS)
    expired = IdentityDocument.objects.filter(user__closed_at__lt=cutoff)
    purged = 0
    for document in expired.iterator():
        with transaction.atomic():
            IdentityDocument.objects.filter(pk=document.pk).delete()
            # The file goes once the row's deletion is committed.
            transaction.on_commit(lambda file=document.file: file.delete(save=False))
        purged += 1
    User.objects.filter(closed_at__lt=cutoff, date_of_birth__isnull=False).update(
        date_of_birth=None
    )
    return purged
