"""Rules engine for durak "do zavala" (transfer durak, throw-ins limited only before take).

Pure Python, standard library only, deterministic for a seed, JSON-safe. The rules are
RULES.md; the public face below is ENGINE_CONTRACT.md plus a few extras the server uses.

Contract::

    Game.new(players=4, seed=12345)     # seed may be omitted: one is drawn from `secrets`
    Game.new(players=4, seed=1, options={"deck": 24, "transfer": False})  # RULES §7
    Game.from_position({...})           # hands, talon, trump, attacker, first_bout, places
                                        #   (+ optional "trump_card" when the talon is empty,
                                        #   + optional "options")
    OPTIONS                             # the default options; missing keys take these
    g.legal_actions(seat) -> list[dict] # [] for a seat that may not act (or is no seat)
    g.apply(seat, action)               # in place; IllegalAction leaves g unchanged
    g.copy(); g.view(seat | None); g.to_dict(); Game.from_dict(d)
    g.finished; g.places                # places: lists of seats in leaving order
    split_bank(bank, places, percentages) -> {seat: units}

Extras:

- ``g.waiting_for`` -> list[int]: the seats the game waits on (RULES §3.4), lowest first:
  the attacker on an empty table; the defender while unbeaten cards lie and take is not
  declared; otherwise every thrower who holds a card he may throw in and has not passed.
- ``g.deadline_kind`` -> "turn" (waiting for the leading attacker or the defender), "throw"
  (waiting for throwers after all is beaten or take is declared) or None once finished.
- ``g.timeout_action(seat)`` -> dict: what the server plays for an idle waited-on seat (RULES
  §5): take for the defender, pass for a thrower, the lowest non-trump card (lowest trump if
  only trumps; ties by suit order S C D H) for a leading attacker. IllegalAction
  "not_your_turn" when the game does not wait for that seat.
- ``g.durak`` (lone loser once finished, None on a draw), ``g.players``, ``g.seed``,
  ``g.attacker``, ``g.defender``, ``g.bouts`` (bouts completed), ``g.trump_suit``,
  ``g.talon_size``, ``g.hand(seat)``.
- ``g.still_in`` -> list[int]: the seats still holding cards (the durak once finished).
- ``MIN_PLAYERS``, ``MAX_PLAYERS``: a game has 2 to 6 players; ``MAX_PLAYERS_BY_DECK``
  {deck: most players} (24 cards seat four).
- ``OPTION_VALUES`` {option: allowed values}; ``table_options(options, players=None)`` -> the
  full options dict (defaults filled in), or ValueError for an unknown key, a bad value or too
  many players for the deck. ``to_dict()`` and every view carry ``options`` and
  ``attack_limit``: with classic limits the most attack cards the bout may hold (None at a
  "zavala" table).
- ``DEFAULT_PERCENTAGES``: the RULES §6 table, {players: row}.
- ``bank_shares(bank, places, percentages)`` -> list[Share]: each seat's ``place``,
  ``percent`` and ``amount`` (``split_bank`` gives the amounts); ``house_commission(bank,
  percent)``, rounded down; ``check_percentages(row)`` raises BadPercentages (a ValueError
  with ``.code``: "not_a_row", "not_100", "increasing", "last_not_zero").
- ``games.engine.autoplay``: ``auto_play_is_endless(g)`` (the server's moves for every seat
  would repeat forever) and ``final_places(g, stalemate=...)``.
- ``g.table`` (the bout's cards, as in a view), ``g.taking`` (take declared).
- ``games.engine.bots.decide(view, log, level) -> dict | None``: a bot's move from a seat's
  view and the public move log only, at level "novice", "amateur" or "master";
  ``choose_action(game, seat)`` is the "amateur" on ``game.view(seat)``.
- ``games.engine.bots.search_escapes(view, log, actions, rng, deals=..., deadline=...)``: the
  Мастер's determinized search, how often the seat escaped being the durak after each action;
  ``candidate_moves(view)``: the moves it searches.
- ``games.engine.analysis.analyse_seat(start, events, seat, deals=..., seconds=..., seed=...)``
  -> list[Decision]: each of the seat's decisions judged from its view and the public log only.
- ``games.engine.endgame``: ``Solver().outcome(g)`` / ``.escaping_moves(g)``, perfect play once
  the talon is empty and two players are left; ``endgame_puzzle(g)`` -> Puzzle or None, a
  position where exactly one move escapes being the durak.
- ``python -m games.engine.simulate --players 4 --games 1000 [--seed S]``: bot statistics.
- ``python -m games.engine.arena [--games N] [--seed S] [--jobs J]``: levels against levels.

IllegalAction (a ValueError) has ``.code``, one of: "bad_seat", "malformed" (not a dict,
unknown type, wrong keys, bad or repeated card code), "game_finished", "not_your_turn",
"card_not_in_hand", "mixed_ranks" (a lead of several ranks), "throw_limit",
"rank_not_on_table", "attack_not_on_table", "cannot_beat", "transfer_not_allowed",
"take_declared" (beating after take), "take_not_allowed" (nothing unbeaten),
"pass_not_allowed"; and ``.message`` for people. A throw-in by a seat that is no neighbour of
the defender at a "neighbours" table is "not_your_turn"; one past the classic limit is
"throw_limit"; a transfer at a table without transfers is "transfer_not_allowed".
"""

from .bank import (
    DEFAULT_PERCENTAGES,
    BadPercentages,
    Share,
    bank_shares,
    check_percentages,
    house_commission,
    split_bank,
)
from .game import (
    MAX_PLAYERS,
    MAX_PLAYERS_BY_DECK,
    MIN_PLAYERS,
    OPTION_VALUES,
    OPTIONS,
    Game,
    IllegalAction,
    table_options,
)

__all__ = [
    "DEFAULT_PERCENTAGES",
    "MAX_PLAYERS",
    "MAX_PLAYERS_BY_DECK",
    "MIN_PLAYERS",
    "OPTIONS",
    "OPTION_VALUES",
    "BadPercentages",
    "Game",
    "IllegalAction",
    "Share",
    "bank_shares",
    "check_percentages",
    "house_commission",
    "split_bank",
    "table_options",
]
