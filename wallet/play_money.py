"""Play-money sites: a player may top his wallet up for free, once a day, up to a floor.

The chips come from the house, through the same ledger as everything else, so the books stay
balanced and ``ledger_check`` audits them like money. The day is the site's calendar day; its
date is in the ledger key, so a second top-up the same day is refused by the key itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from wallet import services
from wallet.models import LedgerTransaction
from wallet.money import format_money
from wallet.services import WalletError


class TopUpRefused(WalletError):
    code = "top_up_refused"


@dataclass(frozen=True)
class TopUpOffer:
    """What the wallet page offers today: ``amount`` to reach ``floor``, or why nothing."""

    floor: int
    amount: int
    refusal: str | None


def _key(user) -> str:
    return f"chips:{user.pk}:{timezone.localdate().isoformat()}"


def top_up_offer(*, user, balance: int) -> TopUpOffer | None:
    """Today's free top-up for a player holding ``balance``; None on a site with money."""
    if not settings.PLAY_MONEY:
        return None
    refusal = None
    if LedgerTransaction.objects.filter(idempotency_key=_key(user)).exists():
        refusal = _("You have had today's free chips. Come back tomorrow.")
    elif balance >= settings.PLAY_MONEY_DAILY_FLOOR:
        refusal = _("Free chips top your wallet up to %(floor)s; you hold that much already.") % {
            "floor": format_money(settings.PLAY_MONEY_DAILY_FLOOR)
        }
    floor = settings.PLAY_MONEY_DAILY_FLOOR
    return TopUpOffer(floor=floor, amount=max(0, floor - balance), refusal=refusal)


def chips_top_up(*, user) -> LedgerTransaction:
    """Credit the player, from the house, with the chips that bring him to the floor.

    Refused (``TopUpRefused``, nothing posted) on a site with money, a second time the same day,
    and when he holds the floor or more. Chips staked at a table do not count as held.
    """
    if not settings.PLAY_MONEY:
        raise TopUpRefused(_("Free chips exist only on a play-money site."))
    key = _key(user)
    with transaction.atomic():
        wallet = services.lock_wallet(user=user)
        offer = top_up_offer(user=user, balance=wallet.balance)
        if offer.refusal:
            raise TopUpRefused(offer.refusal)
        return services.post(
            kind=LedgerTransaction.Kind.CHIPS_TOP_UP,
            idempotency_key=key,
            movements={wallet: offer.amount, services.house_account(): -offer.amount},
            initiated_by=user,
        )
