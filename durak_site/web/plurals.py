"""Texts with a number for the browser: every plural form, so that the script picks its own."""

from __future__ import annotations

from django.utils.translation import ngettext

# A number in each plural category of the browser's Intl.PluralRules, for the languages served.
PLURAL_SAMPLES = {"one": 1, "few": 2, "many": 5, "other": 5}


def plural_forms(singular: str, plural: str) -> dict[str, str]:
    """A text with a number, in the form of each plural category (static/js/plural.js picks
    the one for the number shown)."""
    return {category: ngettext(singular, plural, n) for category, n in PLURAL_SAMPLES.items()}
