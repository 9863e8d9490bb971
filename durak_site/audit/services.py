"""Recording staff actions. The one public entry point is ``record_staff_action``."""

from __future__ import annotations

from collections.abc import Mapping

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.utils.translation import gettext_lazy as _

from durak_site.audit.models import StaffAction


def record_staff_action(
    *,
    staff,
    action: str,
    reason: str,
    target: models.Model | None = None,
    player=None,
    details: Mapping | None = None,
    idempotency_key: str | None = None,
) -> StaffAction:
    """Record that ``staff`` did ``action`` to ``target`` (and/or ``player``) because ``reason``.

    Call it inside the transaction of the action itself. ``target`` is any saved model
    instance; when it is a user and ``player`` is not given, it is also the player.
    ``details`` holds what else explains the action (amounts, old and new values) as JSON.
    With ``idempotency_key``, a repeat returns the first record instead of adding another.
    Raises ``ValidationError`` for a missing staff member, action or reason.
    """
    reason = (reason or "").strip()
    if staff is None or not getattr(staff, "is_staff", False):
        raise ValidationError(_("Only staff actions are recorded in the audit trail."))
    if not action:
        raise ValidationError(_("The action is required."))
    if not reason:
        raise ValidationError(_("A reason is required."))
    if target is not None and target.pk is None:
        raise ValidationError(_("The target must be saved first."))
    if player is None and isinstance(target, get_user_model()):
        player = target
    with transaction.atomic():
        if idempotency_key is not None:
            existing = StaffAction.objects.filter(idempotency_key=idempotency_key).first()
            if existing is not None:
                return existing
        return StaffAction.objects.create(
            staff=staff,
            action=action,
            reason=reason,
            player=player,
            target_type=target._meta.label_lower if target is not None else "",
            target_id=str(target.pk) if target is not None else "",
            details=dict(details or {}),
            idempotency_key=idempotency_key,
        )
