"""Template helpers for the analysis and puzzle pages: cards as the table draws them, moves in
words, shares as percent and the day's puzzle."""

from __future__ import annotations

from functools import cache

from django import template
from django.utils import timezone
from django.utils.html import conditional_escape, format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from games import services
from games.selectors import boards
from games.templatetags.game_ui import SUIT_SYMBOLS, _strings, card

register = template.Library()


@cache
def _spoken(language: str) -> dict[str, str]:
    """The scripts' card-name strings in `language` (the active one when first asked)."""
    return {
        key: text
        for key, text in _strings().items()
        if key.startswith(("card_name", "rank_name_", "suit_name_"))
    }


@register.filter
def suit_symbol(suit: str) -> str:
    return SUIT_SYMBOLS.get(suit, suit)


@register.filter
def playing_card(code: str, size: str = "small") -> SafeString:
    """A face-up card as the table draws it (static/js/cards.js ``cardElement``)."""
    rank, suit = code[0], code[1]
    label = {"T": "10", "J": _("J"), "Q": _("Q"), "K": _("K"), "A": _("A")}.get(rank, rank)
    symbol = SUIT_SYMBOLS[suit]
    pip = (
        format_html('<span class="pip face"><span>{}</span></span>', symbol)
        if rank in "JQK"
        else format_html('<span class="pip">{}</span>', symbol)
    )
    corner = format_html('<span><span>{}</span><span class="suit">{}</span></span>', label, symbol)
    names = _spoken(get_language() or "")
    spoken = names["card_name"] % {
        "rank": names[f"rank_name_{rank}"],
        "suit": names[f"suit_name_{suit}"],
    }
    return format_html(
        '<div class="pcard {}{}" role="img" aria-label="{}" data-card="{}">'
        '<span class="corner top">{}</span>{}<span class="corner bottom">{}</span></div>',
        size,
        " red" if suit in "DH" else "",
        spoken,
        code,
        corner,
        pip,
        corner,
    )


@register.filter
def percent(share: float) -> str:
    """A share of one as whole percent: 0.625 -> "62 %"."""
    return f"{round(share * 100)}\u00a0%"


def _words(text: str, **parts: SafeString) -> SafeString:
    """A translated text with %(name)s places filled with markup."""
    return mark_safe(conditional_escape(text) % parts)  # noqa: S308 - the text is escaped


@register.filter
def move_text(action: dict) -> SafeString:
    """A move in words with its cards: «бить 7♠ картой 9♠», «взять»."""
    kind = action.get("type")
    if kind == "defend":
        return _words(
            _("beat %(attack)s with %(card)s"),
            attack=card(action["attack"]),
            card=card(action["card"]),
        )
    if kind in ("attack", "transfer"):
        cards = format_html_join(" ", "{}", ((card(code),) for code in action["cards"]))
        text = _("play %(cards)s") if kind == "attack" else _("transfer with %(cards)s")
        return _words(text, cards=cards)
    return format_html("{}", _("take") if kind == "take" else _("pass / beaten off"))


@register.inclusion_tag("games/_daily_puzzle.html")
def daily_puzzle() -> dict:
    """The day's puzzle for the home page, with its board."""
    puzzle = services.puzzle_daily(day=timezone.localdate())
    return {"puzzle": puzzle, "board": boards.puzzle_board(puzzle) if puzzle else None}
