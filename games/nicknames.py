"""Nicknames as players read them. The bots' accounts keep one stored nickname in Russian
(«Новичок 1»), whatever the language of the page that shows it; a page shows it in its own
language («Novice 1»)."""

from __future__ import annotations

from games.models import BotLevel

# The first word of a bot's stored nickname, by level. A signup nickname may hold no space, so no
# player's nickname reads as a bot's.
BOT_WORDS = {
    BotLevel.NOVICE: "Новичок",
    BotLevel.AMATEUR: "Любитель",
    BotLevel.MASTER: "Мастер",
}
_LEVEL_OF_WORD = {word: level for level, word in BOT_WORDS.items()}


def bot_nickname(level: str, number: int) -> str:
    """The stored nickname of bot `number` of `level`."""
    return f"{BOT_WORDS[level]} {number}"


def nickname_shown(nickname: str) -> str:
    """The nickname in the active language: a bot's by its level's name, any other as it is."""
    word, _, number = nickname.rpartition(" ")
    level = _LEVEL_OF_WORD.get(word)
    if level is None or not number.isdigit():
        return nickname
    return f"{BotLevel(level).label} {number}"


def bot_words_shown() -> dict[str, str]:
    """Each bot nickname's stored first word and its level's name in the active language, for
    the scripts that show nicknames (static/js/nicknames.js)."""
    return {word: str(BotLevel(level).label) for level, word in BOT_WORDS.items()}
