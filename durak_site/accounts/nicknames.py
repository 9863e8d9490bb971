"""Nicknames that cannot pass for someone else's.

A nickname is stored in Unicode NFKC form (so fullwidth or "mathematical" letters become plain
ones), may not hold invisible characters (Hangul fillers, zero-width marks) and may not mix
scripts (a Cyrillic "А" among Latin letters). Two nicknames that look alike share one
``skeleton``: case folded, then every character replaced by a representative of its class of
look-alikes (Unicode's confusables, through confusable-homoglyphs). Skeletons are unique.
"""

from __future__ import annotations

import unicodedata
from functools import cache

from confusable_homoglyphs import confusables
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

# Default-ignorable code points that Python counts as letters or that render as nothing.
INVISIBLE = frozenset(
    [0x115F, 0x1160, 0x3164, 0xFFA0, 0x17B4, 0x17B5, 0x180E, 0x034F, 0x061C, 0xFEFF]
    + list(range(0x200B, 0x2010))
    + list(range(0x202A, 0x202F))
    + list(range(0x2060, 0x2070))
    + list(range(0xFE00, 0xFE10))
)


def normalize(nickname: str) -> str:
    return unicodedata.normalize("NFKC", nickname)


def validate(nickname: str) -> None:
    """Refuse invisible characters and mixed scripts (digits, "_", "." and "-" mix with any)."""
    if any(ord(char) in INVISIBLE for char in nickname):
        raise ValidationError(
            _("A nickname may not contain invisible characters."), code="invisible"
        )
    if confusables.is_mixed_script(nickname, allowed_aliases=["COMMON"]):
        raise ValidationError(
            _("A nickname is written in one alphabet: do not mix, say, Latin and Cyrillic."),
            code="mixed_script",
        )


def skeleton(nickname: str) -> str:
    """What the nickname looks like: equal for nicknames that can be told apart only by code."""
    representative = _representatives()
    return "".join(representative.get(char, char) for char in normalize(nickname).casefold())


@cache
def _representatives() -> dict[str, str]:
    """Each confusable character's class representative (its smallest member, so plain Latin
    letters and digits where the class has one)."""
    parent: dict[str, str] = {}

    def root(char: str) -> str:
        while parent.setdefault(char, char) != char:
            parent[char] = parent[parent[char]]
            char = parent[char]
        return char

    pairs = [
        (char, homoglyph["c"].strip("\u200e"))
        for char, homoglyphs in confusables.confusables_data.items()
        for homoglyph in homoglyphs
    ]
    # Case is folded first, so a capital I (which looks like l) is compared as i.
    pairs.append(("i", "l"))
    for char, other in pairs:
        if len(char) == 1 and len(other) == 1:
            first, second = sorted((root(char), root(other)))
            parent[second] = first
    return {char: root(char) for char in parent}
