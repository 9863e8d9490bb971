"""Why a command on a table or a game, or a socket message, was refused: a code for machines, a
message for people."""

from __future__ import annotations

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

ERROR_MESSAGES: dict[str, Promise] = {
    # The engine's codes (games.engine.IllegalAction.code).
    "bad_seat": _("There is no such seat."),
    "malformed": _("The move is malformed."),
    "game_finished": _("The game is over."),
    "not_your_turn": _("It is not your turn."),
    "card_not_in_hand": _("You do not hold that card."),
    "mixed_ranks": _("Lead one card or several cards of one rank."),
    "throw_limit": _("The defender cannot be given more cards than he holds."),
    "rank_not_on_table": _("Throw in only ranks that are on the table."),
    "attack_not_on_table": _("That card is not unbeaten on the table."),
    "cannot_beat": _("That card does not beat it."),
    "transfer_not_allowed": _("You cannot transfer now."),
    "take_declared": _("Take has been declared."),
    "take_not_allowed": _("Every card on the table is beaten."),
    "pass_not_allowed": _("You cannot pass now."),
    # Tables and games.
    "stale_version": _("The game has moved on; your view is being refreshed."),
    "not_a_player": _("You do not play in this game."),
    "game_not_found": _("There is no such game."),
    "no_game": _("No game is being played at this table."),
    "table_not_found": _("There is no such table."),
    "table_not_open": _("This table does not take players now."),
    "table_full": _("Every seat at this table is taken."),
    "already_seated": _("You already sit at this table."),
    "not_seated": _("You do not sit at this table."),
    "bad_invite_code": _("The invitation code is wrong."),
    "game_in_progress": _("You cannot leave during a game."),
    "invalid_stake": _("The stake must be a positive whole number of kopecks."),
    "invalid_seats": _("A table has 2 to 6 seats."),
    "invalid_time": _("The time limits are out of range."),
    "invalid_min_reliability": _("Choose the minimum reliability from the list."),
    "reliability_too_low": _("Your reliability is below this table's minimum."),
    "invite_not_friend": _("You can invite only your friends."),
    "invite_already_seated": _("Your friend sits at this table already."),
    "invite_repeated": _("You have just invited this friend; give him a minute."),
    "invite_too_fast": _("You send invitations too often; please wait a while."),
    "invalid_options": _("Choose the game, the deck, who throws in and the limits from the list."),
    "deck_too_small": _("A deck of 24 cards is for at most 4 players."),
    "rematch_closed": _("A rematch is no longer possible."),
    "commission_locked": _("The commission cannot change while a game is being played."),
    "rematch_already_confirmed": _("You have already confirmed the rematch."),
    "insufficient_funds": _("Not enough money in the wallet."),
    "wallet_error": _("The money command was refused."),
    "self_excluded": _("You are on a break from play."),
    "limit_reached": _("This stake could pass your loss limit."),
    # Analysis and puzzles.
    "analysis_game_not_over": _("A game can be analysed once it has ended."),
    "puzzle_not_found": _("There is no such puzzle."),
    "puzzle_bad_move": _("That move is not one of the puzzle's moves."),
    # Practice and quick play.
    "invalid_bot_level": _("Choose the bots' level: novice, amateur or master."),
    "bots_practice_only": _("Bots play only at practice tables."),
    # Staff blocks.
    "stake_blocked": _("Staff have blocked you from tables with stakes."),
    "block_refused": _("A block needs a reason, an end in the future and another staff member."),
    # The table chat.
    "chat_empty": _("Write something first."),
    "chat_too_long": _("A chat message is at most 200 characters."),
    "chat_unknown_phrase": _("There is no such quick phrase."),
    "chat_too_fast": _("You are writing too fast; wait a moment."),
    "chat_spectator": _("Spectators read the chat but do not write in it."),
    "chat_muted": _("Staff have muted you in the chat for a while."),
    "chat_not_at_table": _("That player is not at this table."),
    "chat_mute_self": _("You cannot mute yourself."),
    "chat_message_not_found": _("There is no such message at this table."),
    "chat_report_own": _("You cannot report your own message."),
}

# Refusals of a socket message itself (games.consumers), before any command runs.
PROTOCOL_ERRORS: dict[str, Promise] = {
    "invalid_json": _("The message is not valid JSON."),
    "not_an_object": _("The message must be a JSON object."),
    "unknown_type": _("Unknown message type."),
    "bad_message": _("The message has missing, extra or wrongly typed fields."),
    "frame_too_large": _("The message is too large."),
    "rate_limited": _("Too many messages; slow down."),
    "server_error": _("The server could not handle the message; please try again."),
}


class GameError(Exception):
    """A refused command. ``code`` is machine-readable; ``message`` is for people."""

    def __init__(self, code: str, message: str | Promise | None = None) -> None:
        self.code = code
        self.message = message if message is not None else ERROR_MESSAGES[code]
        super().__init__(code)
