"""Template helpers for the game pages: the JS string table and card rendering."""

from __future__ import annotations

from django import template
from django.utils.html import format_html, json_script
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from durak_site.web.plurals import plural_forms as _plural
from games.errors import ERROR_MESSAGES, PROTOCOL_ERRORS
from games.nicknames import bot_words_shown, nickname_shown
from wallet.money import money_format_spec

register = template.Library()

SUIT_SYMBOLS = {"S": "♠", "C": "♣", "D": "♦", "H": "♥"}


def _strings() -> dict[str, str]:
    """Every text the scripts show, translated into the active language."""
    strings = {
        # cards
        "rank_J": _("J"),
        "rank_Q": _("Q"),
        "rank_K": _("K"),
        "rank_A": _("A"),
        # spoken card names for screen readers: "queen of spades" / "дама пик"
        "card_name": _("%(rank)s of %(suit)s"),
        "rank_name_2": pgettext("card rank", "two"),
        "rank_name_3": pgettext("card rank", "three"),
        "rank_name_4": pgettext("card rank", "four"),
        "rank_name_5": pgettext("card rank", "five"),
        "rank_name_6": pgettext("card rank", "six"),
        "rank_name_7": pgettext("card rank", "seven"),
        "rank_name_8": pgettext("card rank", "eight"),
        "rank_name_9": pgettext("card rank", "nine"),
        "rank_name_T": pgettext("card rank", "ten"),
        "rank_name_J": pgettext("card rank", "jack"),
        "rank_name_Q": pgettext("card rank", "queen"),
        "rank_name_K": pgettext("card rank", "king"),
        "rank_name_A": pgettext("card rank", "ace"),
        "suit_name_S": pgettext("card suit", "spades"),
        "suit_name_C": pgettext("card suit", "clubs"),
        "suit_name_D": pgettext("card suit", "diamonds"),
        "suit_name_H": pgettext("card suit", "hearts"),
        # the post-game analysis
        "analysis_progress": _("Analysed %(done)s of %(total)s decisions…"),
        # table information
        "game_number": pgettext("the game's number at its table", "Game"),
        "stake": _("Stake"),
        "bank": _("Bank"),
        "commission": _("Commission"),
        "turn_time": _("Move time"),
        "throw_time": _("Throw-in time"),
        "attack_limit": _("Cards this bout, at most"),
        "seconds_short": _("s"),
        "talon": _("Talon"),
        "trump": _("Trump"),
        "seat_n": _("Seat %(n)s"),
        "free_seat": _("Free seat"),
        "connected": _("online"),
        "disconnected": _("no connection"),
        "role_attacker": _("attacks"),
        "role_thrower": _("throws in"),
        "role_turn": _("to move"),
        "role_defender": _("defends"),
        "role_taking": _("takes"),
        "role_passed": _("pass"),
        "role_done": _("beaten off"),
        "role_out": _("out"),
        "role_away": _("away"),
        "role_offline": _("offline"),
        # whose turn
        "your_lead": _("Your lead: choose a card and put it on the table"),
        "lead_by": _("%(name)s leads"),
        "you_defend": _("Beat the cards, transfer or take"),
        "you_may_throw_done": _("Everything is beaten: throw in more, or press Done"),
        "you_may_throw_pass": _("You may throw in, or press Pass"),
        "you_may_throw_taking": _("Defender takes: throw in as much as you like, or pass"),
        "waiting_for": _("Waiting for %(names)s"),
        "waiting_players": _("Waiting for players: %(taken)s/%(total)s"),
        "table_closed": _("The table is closed."),
        "spectating": _("You are watching this game."),
        "sending": _("Sending your move…"),
        "game_over": _("The game is over"),
        "hint_click_table": _("Click the table (or drag the card there) to play"),
        "hint_click_card": _("Click the card you want to beat"),
        "drop_here": _("Put your cards here"),
        # buttons
        "do_lead": _("Lead"),
        "do_throw": _("Throw in"),
        "do_transfer": _("Transfer"),
        "take": _("Take"),
        "done": _("Done"),
        "pass": _("Pass"),
        "cancel": _("Cancel"),
        "copied": _("Link copied"),
        # practice
        "hint": _("Hint"),
        "hint_none": _("No hint now: it is not your move."),
        "hint_attack": _("Hint: put the selected cards on the table"),
        "hint_transfer": _("Hint: transfer with the selected card"),
        "hint_defend": _("Hint: beat %(attack)s with the selected card"),
        "hint_take": _("Hint: take"),
        "hint_pass": _("Hint: pass"),
        "practice": _("Practice"),
        "bots_novice": _("bots: Novice"),
        "bots_amateur": _("bots: Amateur"),
        "bots_master": _("bots: Master"),
        # log
        "log_lead": _("%(name)s leads %(cards)s"),
        "log_throw": _("%(name)s throws in %(cards)s"),
        "log_defend": _("%(name)s beats %(attack)s with %(card)s"),
        "log_transfer": _("%(name)s transfers with %(cards)s"),
        "log_take": _("%(name)s takes"),
        "log_pass": _("%(name)s passes"),
        "log_done": _("%(name)s: beaten off"),
        "log_unknown": _("%(name)s moves"),
        "log_automatic": _("(by the server)"),
        "log_empty": _("No moves in this bout yet."),
        # fairness and results
        "seed_hidden": _("revealed when the game ends"),
        "result_draw": _("A draw: no durak this time"),
        "result_stalemate": _(
            "Everyone still in was away and the game could not go on: they share the places left"
        ),
        "result_durak": _("%(name)s is the durak"),
        "durak_short": _("D"),
        "result_rating": _("rating %(rating)s (%(change)s)"),
        "rematch_for": _("Play again · stake %(stake)s"),
        "rematch_none": _("Nobody has confirmed a rematch yet."),
        "rematch_confirmed": _("Rematch confirmed by %(names)s (%(count)s/%(total)s)"),
        "rematch_waiting": _("Waiting for the others…"),
        "rematch_expired": _("The time for a rematch is over: not everyone agreed."),
        "rematch_expired_refunded": _(
            "Not everyone agreed in time: no rematch. Your stake is back in your wallet."
        ),
        # what the server played for the player while he was away
        "away_summary": _("While you were away the server played for you: %(moves)s"),
        "server_take": _plural("took %(n)s time", "took %(n)s times"),
        "server_pass": _plural("passed %(n)s time", "passed %(n)s times"),
        "server_lead": _plural(
            "led your lowest card %(n)s time", "led your lowest card %(n)s times"
        ),
        # your turn, settings
        "title_your_turn": _("Your move!"),
        "your_move_left": _("Your move: %(n)s s"),
        "notify_your_turn": _("Your move at the durak table"),
        "take_confirm": _("Take the cards?"),
        "place_n": _("place %(n)s"),
        "discard_count": _("Beaten off: %(n)s"),
        "player_card_failed": _("The figures could not be loaded."),
        "card_reliability_games": _plural(
            "of the last %(n)s game with a stake", "of the last %(n)s games with a stake"
        ),
        "card_friend": _("Your friend"),
        "card_asked": _("Friend request sent"),
        "card_asked_you": _("He asked to be your friend"),
        "card_blocked": _("Blocked"),
        "card_action_failed": _("That did not work. Try again."),
        "lobby_min_reliability": _("reliability from %(percent)s"),
        "invite_text": _(
            "%(name)s invites you to table #%(table)s: stake %(stake)s, %(seats)s players."
        ),
        "settings_not_saved": _("The settings could not be saved. Try again."),
        "notifications_unsupported": _("This browser cannot show notifications."),
        "notifications_blocked": _("The browser blocks notifications from this site."),
        # chat
        "chat_empty": _("No messages yet."),
        "chat_offline": _("No connection: the message was not sent."),
        "chat_unmute": _("unmute"),
        "chat_reported": _("reported"),
        "chat_report_sent": _("Thank you: staff will read the message."),
        "chat_blocked_until": _("Staff have muted you in the chat until %(until)s."),
        # connection and errors
        "reconnecting": _("No connection, reconnecting…"),
        "connection_refused": _("The connection was refused. Reload the page."),
        "too_many_sockets": _("Too many open tabs; close some, reconnecting…"),
        "server_unavailable": _("The server is restarting; reconnecting in a moment…"),
        "error_offline": _("No connection: the move was not sent."),
        "error_generic": _("The move was refused."),
        "error_illegal_drop": _("That card cannot go there."),
        # spoken at the table (static/js/table/speech.js): card names are in the nominative
        "say_lead": _("%(name)s leads: %(cards)s"),
        "say_throw": _("%(name)s throws in: %(cards)s"),
        "say_defend": _("%(name)s beats: %(attack)s with %(card)s"),
        "say_transfer": _("%(name)s transfers: %(cards)s"),
        "say_your_place": _("Your place: %(n)s"),
        "say_you": _("You"),
        "say_player_cards": _("%(name)s, cards: %(n)s"),
        "say_hand": _("Your hand, cards: %(n)s"),
        "say_hand_empty": _("Your hand is empty"),
        "say_table": _("On the table"),
        "say_table_empty": _("nothing"),
        "say_pair_open": _("%(attack)s, not beaten"),
        "say_pair_beaten": _("%(attack)s, beaten: %(card)s"),
        "say_talon": _("Talon: %(n)s, trump: %(card)s, beaten off: %(discard)s"),
        "say_table_field": _("The table: Enter puts the selected cards here"),
        "say_no_game": _("No game is being played at this table."),
        # keyboard (static/js/table/keys.js)
        "key_space": pgettext("the keyboard key", "Space"),
        "keys_tab": _("Move between your hand, the table and the buttons"),
        "keys_arrows": _("Move between the cards"),
        "keys_select": _("On a card of your hand: select it, or drop it from the selection"),
        "keys_beat": _("On a card on the table: beat it with the selected card"),
        "keys_play": _("Put the selected cards on the table: lead or throw in"),
        "keys_transfer": _("Transfer (with the selected card, or one that can)"),
        "keys_take": _("Take the cards"),
        "keys_pass": _("Pass, or «Done» when everything is beaten"),
        "keys_cancel": _("Drop the selection"),
        "keys_hand": _("Go to your hand"),
        "keys_table": _("Go to the cards on the table"),
        "keys_say": _("Read out whose move it is, the table and your hand"),
        "keys_help": _("This help"),
        "keys_not_now": _("That move is not possible now."),
        "keys_select_first": _("First select a card in your hand (Space)."),
        # lobby
        "lobby_empty": _("No open tables match. Create one!"),
        "lobby_join": _("Sit down"),
        "lobby_open": _("Open"),
        "lobby_players": _("%(taken)s of %(seats)s players"),
        "lobby_time": _("%(turn)s s per move"),
        "lobby_nobody": _("nobody yet"),
        "lobby_live": _("live"),
        # table options as badges: the short text, and what it means
        "badge_transfer": pgettext("badge", "Transfer"),
        "badge_podkidnoy": pgettext("badge", "Podkidnoy"),
        "badge_neighbours": pgettext("badge", "Neighbours"),
        "badge_classic": pgettext("badge", "Classic"),
        "badge_fast": "⚡",
        "option_transfer": _("Transfer durak (perevodnoy)"),
        "option_podkidnoy": _("Throw-in only (podkidnoy)"),
        "option_deck": _("%(n)s cards"),
        "option_neighbours": _("Only the defender's neighbours throw in"),
        "option_classic": _("Classic limits: 6 cards a bout, 5 in the first"),
        "option_fast": _("Fast: 15 s per move"),
        # replay
        "replay_start": _("The deal"),
        "replay_step": _("Move %(n)s of %(total)s"),
    }
    errors = {**ERROR_MESSAGES, **PROTOCOL_ERRORS}
    strings.update({f"error_{code}": str(message) for code, message in errors.items()})
    return strings


@register.simple_tag
def ui_strings_json() -> SafeString:
    """<script type="application/json" id="ui-strings"> with the strings, the money format and
    the bots' names."""
    return json_script(
        {**_strings(), "__money": money_format_spec(), "__bot_words": bot_words_shown()},
        "ui-strings",
    )


@register.filter
def nickname(value: str) -> str:
    """A nickname as the page's language shows it (a bot's in that language)."""
    return nickname_shown(value)


@register.filter
def card(code: str) -> SafeString:
    """A card code as coloured text: "TH" -> 10♥."""
    if not isinstance(code, str) or len(code) != 2:
        return format_html("{}", code)
    rank, suit = code[0], code[1]
    label = {"T": "10", "J": _("J"), "Q": _("Q"), "K": _("K"), "A": _("A")}.get(rank, rank)
    red = " red" if suit in "DH" else ""
    return format_html(
        '<span class="card-text{}">{}{}</span>', red, label, SUIT_SYMBOLS.get(suit, suit)
    )


@register.simple_tag
def rating_chart(history: list[int]) -> SafeString:
    """A line of the rating after each rated game, oldest first, as an inline SVG."""
    low, high = min(history), max(history)
    span = max(high - low, 1)
    points = " ".join(
        f"{index},{(high - value) / span * 100:.1f}" for index, value in enumerate(history)
    )
    label = _("Rating from %(first)s to %(last)s") % {"first": history[0], "last": history[-1]}
    return format_html(
        '<svg class="rating-chart" viewBox="0 0 {} 100" preserveAspectRatio="none" role="img" '
        'aria-label="{}" data-testid="rating-chart"><polyline points="{}"/></svg>',
        max(len(history) - 1, 1),
        label,
        points,
    )
