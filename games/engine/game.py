"""The game state and the rules of RULES.md §1-§5 and the table options of §7."""

from __future__ import annotations

import hashlib
import random
import secrets
from collections.abc import Mapping
from typing import Any

from .cards import (
    BEATERS,
    CARD_BY_CODE,
    CARD_CODES,
    CARDS_OF_RANKS,
    DECKS,
    HAND_SIZE,
    LEADS,
    RANK_CARDS,
    SUIT_BY_CODE,
    SUIT_CARDS,
    SUITS,
    cards_in,
    codes_of,
    in_rank_order,
    mask_of,
)

MIN_PLAYERS = 2
MAX_PLAYERS = 6
STATE_FORMAT = 1

# RULES.md §7: the table options and their defaults (the game of §1-§6).
OPTIONS: dict[str, Any] = {"transfer": True, "deck": 36, "throw_in": "all", "limit": "zavala"}
OPTION_VALUES: dict[str, tuple[Any, ...]] = {
    "transfer": (True, False),
    "deck": (24, 36, 52),
    "throw_in": ("all", "neighbours"),
    "limit": ("zavala", "classic"),
}
MAX_PLAYERS_BY_DECK = {24: 4, 36: MAX_PLAYERS, 52: MAX_PLAYERS}
# Classic limits (§7): never more attack cards in a bout than this, nor than this in the first.
CLASSIC_BOUT_CARDS = 6
CLASSIC_FIRST_BOUT_CARDS = 5
# The attack limit of a "zavala" table: more than a bout can ever hold, so it never binds.
NO_ATTACK_LIMIT = 1 << 8

# Phases of a bout; derived from the state after every change.
LEAD = 0  # table empty: the attacker must lead
DEFEND = 1  # unbeaten cards, no take: the defender must answer
THROW = 2  # every card beaten: throwers throw in or pass
TAKING = 3  # take declared: throwers throw in or pass
OVER = 4  # game finished

ACTION_KEYS: dict[str, frozenset[str]] = {
    "attack": frozenset({"type", "cards"}),
    "defend": frozenset({"type", "attack", "card"}),
    "transfer": frozenset({"type", "cards"}),
    "take": frozenset({"type"}),
    "pass": frozenset({"type"}),
}
TAKE = {"type": "take"}
PASS = {"type": "pass"}


class IllegalAction(ValueError):
    """An action the rules forbid or a malformed one; `code` is short and machine-readable."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _is_int(value: object) -> bool:
    return type(value) is int  # bool is an int subclass but never a seat or amount


def _derived_seed(seed: int | str, attempt: int) -> int:
    digest = hashlib.sha256(f"{seed}:redeal:{attempt}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def table_options(options: Mapping[str, Any] | None, players: int | None = None) -> dict[str, Any]:
    """The full options of RULES.md §7: the defaults for missing keys.

    Raises ValueError for an unknown key, a bad value, or (given `players`) more players than
    the deck allows.
    """
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise ValueError("options must be a dict")
    unknown = sorted(map(repr, set(options) - set(OPTIONS)))
    if unknown:
        raise ValueError("unknown table options: " + ", ".join(unknown))
    full = {**OPTIONS, **options}
    for key, value in full.items():
        # The type check keeps out 36.0 for 36 and 1 for True, which compare equal.
        if type(value) is not type(OPTIONS[key]) or value not in OPTION_VALUES[key]:
            allowed = ", ".join(map(repr, OPTION_VALUES[key]))
            raise ValueError(f"option {key!r} must be one of {allowed}, not {value!r}")
    if players is not None and players > MAX_PLAYERS_BY_DECK[full["deck"]]:
        raise ValueError(
            f"a {full['deck']}-card deck seats at most {MAX_PLAYERS_BY_DECK[full['deck']]} players"
        )
    return full


def _parse_cards(value: object) -> tuple[list[int], int]:
    """Card codes of an action -> (cards, mask); any junk or a duplicate is malformed."""
    if type(value) not in (list, tuple) or not value:
        raise IllegalAction("malformed", "cards must be a non-empty list of card codes")
    cards = []
    mask = 0
    for code in value:
        card = CARD_BY_CODE.get(code) if type(code) is str else None
        if card is None:
            raise IllegalAction("malformed", f"not a card code: {code!r}")
        if mask >> card & 1:
            raise IllegalAction("malformed", f"card given twice: {code}")
        cards.append(card)
        mask |= 1 << card
    return cards, mask


def _parse_card(value: object) -> int:
    card = CARD_BY_CODE.get(value) if type(value) is str else None
    if card is None:
        raise IllegalAction("malformed", f"not a card code: {value!r}")
    return card


class Game:
    """One game of durak "do zavala"; see the package docstring for the public face."""

    __slots__ = (
        "_players",
        "_seed",
        "_hands",
        "_talon",
        "_trump",
        "_trump_card",
        "_discard",
        "_attacker",
        "_defender",
        "_attacks",
        "_defenses",
        "_taking",
        "_passed",
        "_out",
        "_places",
        "_first_bout",
        "_finished",
        "_bouts",
        "_table_ranks",
        "_unbeaten",
        "_phase",
        "_waiting",
        "_options",
        "_neighbours_only",
        "_attack_limit",
        "_throwers",
    )

    def __init__(
        self,
        *,
        hands: list[int],
        talon: list[int],
        trump: int,
        trump_card: int | None,
        attacker: int,
        first_bout: bool,
        places: list[list[int]],
        options: dict[str, Any],
        seed: int | str | None = None,
    ) -> None:
        """Internal: games come from `new`, `from_position` or `from_dict`."""
        self._players = len(hands)
        self._seed = seed
        self._set_options(options)
        self._hands = hands
        self._talon = talon
        self._trump = trump
        self._trump_card = -1 if trump_card is None else trump_card
        self._discard = DECKS[options["deck"]] ^ mask_of(talon)
        for hand in hands:
            self._discard &= ~hand
        self._attacker = attacker
        self._attacks: list[int] = []
        self._defenses: list[int] = []
        self._taking = False
        self._passed = 0
        self._places = places
        self._out = mask_of([seat for group in places for seat in group])
        self._first_bout = first_bout
        self._finished = False
        self._bouts = 0
        self._defender = self._left_of(attacker)
        self._table_ranks = 0
        self._unbeaten = 0
        self._attack_limit = NO_ATTACK_LIMIT
        self._begin_defence()
        self._update_phase()

    def _set_options(self, options: dict[str, Any]) -> None:
        """Keep the full, checked options, and the flag the rules read on every move."""
        self._options = options
        self._neighbours_only = options["throw_in"] == "neighbours"

    # ----------------------------------------------------------------- construction

    @classmethod
    def new(
        cls,
        players: int,
        seed: int | str | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> Game:
        """Shuffle and deal per RULES.md §2 and §7; the same seed gives the same deal.

        `options` (RULES §7) may leave keys out: the defaults stand for them.
        """
        if not _is_int(players) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(f"players must be an int from {MIN_PLAYERS} to {MAX_PLAYERS}")
        options = table_options(options, players)
        if seed is None:
            seed = secrets.randbits(63)
        elif not (_is_int(seed) or isinstance(seed, str)):
            raise ValueError("seed must be an int or a str")
        cards = cards_in(DECKS[options["deck"]])
        attempt = 0
        while True:
            rng = random.Random(seed if attempt == 0 else _derived_seed(seed, attempt))
            deck = cards[:]
            rng.shuffle(deck)
            dealt = HAND_SIZE * players
            hands = [0] * players
            for index in range(dealt):  # one card at a time round the table
                hands[index % players] |= 1 << deck[index]
            if dealt < len(deck):
                trump_card = deck[dealt]
                talon = deck[dealt + 1 :] + [trump_card]  # the face-up card is drawn last
            else:  # the deal used the whole deck: the last card dealt is shown and stays
                trump_card = deck[-1]
                talon = []
            trump = trump_card & 3
            first = _lowest_trump_holder(hands, trump)
            if first is not None:
                return cls(
                    hands=hands,
                    talon=talon,
                    trump=trump,
                    trump_card=trump_card,
                    attacker=first,
                    first_bout=True,
                    places=[],
                    options=options,
                    seed=seed,
                )
            attempt += 1

    @classmethod
    def from_position(cls, position: dict[str, Any]) -> Game:
        """Any position with an empty table, for tests and replays (ENGINE_CONTRACT.md).

        Cards of the deck in no hand and not in the talon are out of the game (discarded). An
        optional "trump_card" names the face-up card when the talon is empty (None: no card
        shown); optional "options" are the table's (RULES §7), the defaults for missing keys.
        """
        if not isinstance(position, dict):
            raise ValueError("position must be a dict")
        hands_codes = position.get("hands")
        if not isinstance(hands_codes, list) or not MIN_PLAYERS <= len(hands_codes) <= MAX_PLAYERS:
            raise ValueError("hands must be a list of 2 to 6 lists of card codes")
        options = table_options(position.get("options"), len(hands_codes))
        deck = DECKS[options["deck"]]
        seen = 0
        hands = []
        for codes in [*hands_codes, position.get("talon", [])]:
            cards = _position_cards(codes)
            mask = mask_of(cards)
            if mask & seen or len(cards) != mask.bit_count():
                raise ValueError("a card appears twice in the position")
            if mask & ~deck:
                outside = " ".join(codes_of(mask & ~deck))
                raise ValueError(f"not in the {options['deck']}-card deck: {outside}")
            seen |= mask
            hands.append(cards)
        talon = hands.pop()
        trump_code = position.get("trump")
        trump = SUIT_BY_CODE.get(trump_code) if isinstance(trump_code, str) else None
        if trump is None:
            raise ValueError("trump must be one of " + ", ".join(SUITS))
        trump_card = talon[-1] if talon else None
        if position.get("trump_card") is not None:  # None, as to_dict writes it: not shown
            trump_card = _position_cards([position["trump_card"]])[0]
            if not deck >> trump_card & 1:
                raise ValueError(f"trump_card is not in the {options['deck']}-card deck")
            if talon and trump_card != talon[-1]:
                raise ValueError("trump_card must be the last card of the talon")
        if trump_card is not None and trump_card & 3 != trump:
            raise ValueError("the trump card's suit must be the trump suit")
        players = len(hands)
        places = _position_places(position.get("places", []), players)
        out = {seat for group in places for seat in group}
        for seat, cards in enumerate(hands):
            if (seat in out) == bool(cards):
                raise ValueError(f"seat {seat}: seats out hold no cards, others hold some")
        if players - len(out) < 2:
            raise ValueError("at least two players must still be in")
        attacker = position.get("attacker")
        if not _is_int(attacker) or not 0 <= attacker < players or attacker in out:
            raise ValueError("attacker must be a seat still in the game")
        first_bout = position.get("first_bout", False)
        if not isinstance(first_bout, bool):
            raise ValueError("first_bout must be a bool")
        return cls(
            hands=[mask_of(cards) for cards in hands],
            talon=talon,
            trump=trump,
            trump_card=trump_card,
            attacker=attacker,
            first_bout=first_bout,
            places=places,
            options=options,
        )

    def copy(self) -> Game:
        clone = Game.__new__(Game)
        for name in Game.__slots__:
            setattr(clone, name, getattr(self, name))
        clone._hands = self._hands[:]
        clone._talon = self._talon[:]
        clone._attacks = self._attacks[:]
        clone._defenses = self._defenses[:]
        clone._places = [group[:] for group in self._places]
        clone._waiting = self._waiting[:]
        return clone

    def to_dict(self) -> dict[str, Any]:
        """The whole state, JSON-safe (secret parts included: for storage, never for a client)."""
        return {
            "format": STATE_FORMAT,
            "seed": self._seed,
            "hands": [codes_of(hand) for hand in self._hands],
            "talon": [CARD_CODES[card] for card in self._talon],
            "trump": SUITS[self._trump],
            "trump_card": self._trump_card_code(),
            "discard": codes_of(self._discard),
            "attacker": self._attacker,
            "defender": self._defender,
            "table": self._table_view(),
            "taking": self._taking,
            "passed": self._seats_of(self._passed),
            "out": self._seats_of(self._out),
            "places": self.places,
            "first_bout": self._first_bout,
            "finished": self._finished,
            "bouts": self._bouts,
            "options": dict(self._options),
            "attack_limit": self._classic_attack_limit(),
        }

    @classmethod
    def from_dict(cls, state: dict[str, Any]) -> Game:
        """Rebuild a game from `to_dict()` output; raises ValueError on a damaged state.

        A state stored before table options existed has none: it is a game with the defaults.
        """
        try:
            if state["format"] != STATE_FORMAT:
                raise ValueError(f"unknown state format {state['format']!r}")
            if not MIN_PLAYERS <= len(state["hands"]) <= MAX_PLAYERS:
                raise ValueError("a game has 2 to 6 hands")
            game = Game.__new__(Game)
            game._players = len(state["hands"])
            game._set_options(table_options(state.get("options"), game._players))
            game._seed = state["seed"]
            game._hands = [mask_of(_position_cards(codes)) for codes in state["hands"]]
            game._talon = _position_cards(state["talon"])
            game._trump = SUIT_BY_CODE[state["trump"]]
            trump_card = state["trump_card"]
            game._trump_card = -1 if trump_card is None else CARD_BY_CODE[trump_card]
            game._discard = mask_of(_position_cards(state["discard"]))
            game._attacker = state["attacker"]
            game._defender = state["defender"]
            game._attacks = [CARD_BY_CODE[pair["attack"]] for pair in state["table"]]
            game._defenses = [
                -1 if pair["defense"] is None else CARD_BY_CODE[pair["defense"]]
                for pair in state["table"]
            ]
            game._taking = bool(state["taking"])
            game._passed = mask_of(_state_seats(state["passed"], game._players))
            game._out = mask_of(_state_seats(state["out"], game._players))
            game._places = _position_places(state["places"], game._players)
            game._first_bout = bool(state["first_bout"])
            game._finished = bool(state["finished"])
            game._bouts = state["bouts"]
            classic = game._options["limit"] == "classic"
            game._attack_limit = state["attack_limit"] if classic else NO_ATTACK_LIMIT
        except (KeyError, TypeError, AttributeError) as error:
            raise ValueError(f"damaged game state: {error!r}") from error
        _check_state(game)
        game._table_ranks = 0
        for card in game._attacks + game._defenses:
            if card >= 0:
                game._table_ranks |= 1 << (card >> 2)
        game._unbeaten = game._defenses.count(-1)
        game._set_throwers()
        game._update_phase()
        return game

    # ----------------------------------------------------------------- public reads

    @property
    def players(self) -> int:
        return self._players

    @property
    def seed(self) -> int | str | None:
        return self._seed

    @property
    def finished(self) -> bool:
        return self._finished

    @property
    def places(self) -> list[list[int]]:
        return [group[:] for group in self._places]

    @property
    def still_in(self) -> list[int]:
        """The seats still holding cards: all of them before anyone is out, the durak at the end."""
        return [seat for seat in range(self._players) if not self._out >> seat & 1]

    @property
    def durak(self) -> int | None:
        """The lone loser once finished; None while playing and after a draw."""
        if self._finished and self._out != (1 << self._players) - 1:
            return self._places[-1][0]
        return None

    @property
    def attacker(self) -> int:
        return self._attacker

    @property
    def defender(self) -> int:
        return self._defender

    @property
    def bouts(self) -> int:
        """Bouts completed so far."""
        return self._bouts

    @property
    def table(self) -> list[dict[str, str | None]]:
        """The cards of the bout in play order: {"attack": code, "defense": code or None}."""
        return self._table_view()

    @property
    def taking(self) -> bool:
        """Whether the defender has declared take in this bout."""
        return self._taking

    @property
    def trump_suit(self) -> str:
        return SUITS[self._trump]

    @property
    def talon_size(self) -> int:
        return len(self._talon)

    @property
    def waiting_for(self) -> list[int]:
        """The seats the game waits on (RULES.md §3.4), lowest seat first."""
        return self._waiting[:]

    @property
    def deadline_kind(self) -> str | None:
        """Which deadline runs: "turn" (lead or defence), "throw" (throwers), None when over."""
        if self._phase == OVER:
            return None
        return "throw" if self._phase >= THROW else "turn"

    def hand(self, seat: int) -> list[str]:
        """A seat's cards, lowest first (secret: only for that seat or the server)."""
        return codes_of(self._hands[seat])

    def view(self, seat: int | None) -> dict[str, Any]:
        """What `seat` may see (None: a spectator); JSON-safe, no other hand, no talon order."""
        if seat is not None and not self._is_seat(seat):
            raise IllegalAction("bad_seat", f"no such seat: {seat!r}")
        return {
            "seat": seat,
            "players": self._players,
            "hand": [] if seat is None else codes_of(self._hands[seat]),
            "hand_sizes": [hand.bit_count() for hand in self._hands],
            "talon_size": len(self._talon),
            "discard_size": self._discard.bit_count(),
            # Beaten-off cards: every seat saw them on the table, so they are no secret.
            "discard": codes_of(self._discard),
            "trump_card": self._trump_card_code(),
            "trump_suit": SUITS[self._trump],
            "table": self._table_view(),
            "attacker": self._attacker,
            "defender": self._defender,
            "taking": self._taking,
            "passed": self._seats_of(self._passed),
            "out": self._seats_of(self._out),
            "places": self.places,
            "finished": self._finished,
            "durak": self.durak,
            "first_bout": self._first_bout,
            "waiting_for": self._waiting[:],
            "deadline_kind": self.deadline_kind,
            "legal_actions": [] if seat is None else self.legal_actions(seat),
            "options": dict(self._options),
            "attack_limit": self._classic_attack_limit(),
        }

    # ----------------------------------------------------------------- legal actions

    def legal_actions(self, seat: int) -> list[dict[str, Any]]:
        """Every legal single-card action, every legal lead, take and pass where legal."""
        if type(seat) is not int or not 0 <= seat < self._players:
            return []
        phase = self._phase
        if phase == LEAD:
            return self._lead_actions() if seat == self._attacker else []
        if seat == self._defender:
            return self._defender_actions() if phase == DEFEND else []
        if phase == OVER or not self._throwers >> seat & 1:
            return []
        actions: list[dict[str, Any]] = []
        if self._taking or self._unbeaten < self._hands[self._defender].bit_count():
            throwable = self._hands[seat] & CARDS_OF_RANKS[self._table_ranks]
            actions = [
                {"type": "attack", "cards": [CARD_CODES[card]]} for card in cards_in(throwable)
            ]
        if phase != DEFEND and seat in self._waiting:
            actions.append({"type": "pass"})
        return actions

    def _lead_actions(self) -> list[dict[str, Any]]:
        # Classic limits never cut a lead short: a lead is at most the four cards of a rank.
        limit = self._hands[self._defender].bit_count()
        rest = self._hands[self._attacker]
        position = 0
        actions = []
        while rest:  # rank by rank, up to the highest the hand holds
            for lead in LEADS[position][rest & 15]:
                if len(lead) > limit:
                    break
                actions.append({"type": "attack", "cards": list(lead)})
            rest >>= 4
            position += 1
        return actions

    def _defender_actions(self) -> list[dict[str, Any]]:
        hand = self._hands[self._defender]
        beaters = BEATERS[self._trump]
        actions = [
            {"type": "defend", "attack": CARD_CODES[attack], "card": CARD_CODES[card]}
            for attack, defense in zip(self._attacks, self._defenses, strict=True)
            if defense < 0
            for card in cards_in(hand & beaters[attack])
        ]
        if self._transfer_problem(1) is None:
            transferable = hand & CARDS_OF_RANKS[self._table_ranks]
            actions += [
                {"type": "transfer", "cards": [CARD_CODES[card]]} for card in cards_in(transferable)
            ]
        actions.append(TAKE.copy())
        return actions

    def _transfer_problem(self, count: int) -> str | None:
        """Why the defender may not transfer `count` cards now (RULES §3.2 a-e, §7), or None.

        Classic limits need no check of their own: the table holds one rank, so at most four
        cards, and (e) makes the new defender's hand at least as large as them.
        """
        if self._first_bout:
            return "no transfer in the first bout"
        if self._taking:
            return "take has been declared"
        if self._unbeaten != len(self._attacks):
            return "a card on the table is already beaten"
        if self._table_ranks & (self._table_ranks - 1):
            return "the table holds more than one rank"
        if not self._options["transfer"]:  # checked late: the checks above are cheaper
            return "transfers are off at this table"
        new_defender = self._left_of(self._defender)
        if self._hands[new_defender].bit_count() < len(self._attacks) + count:
            return f"seat {new_defender} holds too few cards to defend against them all"
        return None

    def timeout_action(self, seat: int) -> dict[str, Any]:
        """What the server plays for an idle waited-on seat (RULES §5)."""
        if not self._is_seat(seat) or seat not in self._waiting:
            raise IllegalAction("not_your_turn", f"the game is not waiting for seat {seat!r}")
        if self._phase == DEFEND:
            return TAKE.copy()
        if self._phase != LEAD:
            return PASS.copy()
        hand = self._hands[seat]
        plain = hand & ~SUIT_CARDS[self._trump]
        lowest = in_rank_order(plain or hand)[0]
        return {"type": "attack", "cards": [CARD_CODES[lowest]]}

    # ----------------------------------------------------------------- apply

    def apply(self, seat: int, action: dict[str, Any]) -> None:
        """Play `action` for `seat` in place, or raise IllegalAction leaving the game unchanged."""
        if not self._is_seat(seat):
            raise IllegalAction("bad_seat", f"no such seat: {seat!r}")
        if not isinstance(action, dict):
            raise IllegalAction("malformed", "an action is a dict")
        kind = action.get("type")
        keys = ACTION_KEYS.get(kind) if type(kind) is str else None
        if keys is None:
            raise IllegalAction("malformed", f"unknown action type: {kind!r}")
        if action.keys() != keys:
            raise IllegalAction("malformed", f"a {kind} action has exactly the keys {sorted(keys)}")
        if kind == "attack":
            self._attack(seat, *_parse_cards(action["cards"]))
        elif kind == "defend":
            self._defend(seat, _parse_card(action["attack"]), _parse_card(action["card"]))
        elif kind == "transfer":
            self._transfer(seat, *_parse_cards(action["cards"]))
        elif kind == "take":
            self._take(seat)
        else:
            self._pass(seat)

    def _check_can_act(self, seat: int) -> None:
        if self._finished:
            raise IllegalAction("game_finished", "the game is over")
        if self._out >> seat & 1:
            raise IllegalAction("not_your_turn", f"seat {seat} is out of the game")

    def _check_defender(self, seat: int) -> None:
        self._check_can_act(seat)
        if seat != self._defender or self._phase == LEAD:
            raise IllegalAction("not_your_turn", "only the defender may do that, after the lead")

    def _check_in_hand(self, seat: int, mask: int) -> None:
        if mask & ~self._hands[seat]:
            missing = codes_of(mask & ~self._hands[seat])
            raise IllegalAction("card_not_in_hand", "not in your hand: " + " ".join(missing))

    def _attack(self, seat: int, cards: list[int], mask: int) -> None:
        self._check_can_act(seat)
        defender_hand = self._hands[self._defender].bit_count()
        if self._phase == LEAD:
            if seat != self._attacker:
                raise IllegalAction("not_your_turn", f"seat {self._attacker} leads")
            self._check_in_hand(seat, mask)
            if mask & ~RANK_CARDS[cards[0] >> 2]:
                raise IllegalAction("mixed_ranks", "a lead is one card or several of one rank")
            if len(cards) > defender_hand:
                raise IllegalAction("throw_limit", f"the defender holds only {defender_hand} cards")
        else:
            if seat == self._defender:
                raise IllegalAction("not_your_turn", "the defender does not throw in")
            if not self._throwers >> seat & 1:
                if len(self._attacks) >= self._attack_limit:
                    raise IllegalAction("throw_limit", "this bout holds all the cards it may")
                raise IllegalAction(
                    "not_your_turn", "only the defender's neighbours throw in at this table"
                )
            self._check_in_hand(seat, mask)
            if mask & ~CARDS_OF_RANKS[self._table_ranks]:
                raise IllegalAction("rank_not_on_table", "throw in only ranks on the table")
            if not self._taking and self._unbeaten + len(cards) > defender_hand:
                raise IllegalAction(
                    "throw_limit",
                    f"unbeaten cards may not outnumber the defender's {defender_hand} cards",
                )
            if len(self._attacks) + len(cards) > self._attack_limit:
                raise IllegalAction(
                    "throw_limit", f"at most {self._attack_limit} cards are attacked in this bout"
                )
        self._hands[seat] ^= mask
        self._put_attacks(cards)
        self._update_phase()

    def _defend(self, seat: int, attack: int, card: int) -> None:
        self._check_defender(seat)
        if self._taking:
            raise IllegalAction("take_declared", "take has been declared")
        try:
            index = self._attacks.index(attack)
        except ValueError:
            index = -1
        if index < 0 or self._defenses[index] >= 0:
            raise IllegalAction(
                "attack_not_on_table", f"{CARD_CODES[attack]} is not unbeaten on the table"
            )
        self._check_in_hand(seat, 1 << card)
        if not BEATERS[self._trump][attack] >> card & 1:
            raise IllegalAction(
                "cannot_beat", f"{CARD_CODES[card]} does not beat {CARD_CODES[attack]}"
            )
        self._hands[seat] ^= 1 << card
        self._defenses[index] = card
        self._unbeaten -= 1
        self._table_ranks |= 1 << (card >> 2)
        self._passed = 0
        self._update_phase()

    def _transfer(self, seat: int, cards: list[int], mask: int) -> None:
        self._check_defender(seat)
        self._check_in_hand(seat, mask)
        problem = self._transfer_problem(len(cards))
        if problem is None and mask & ~CARDS_OF_RANKS[self._table_ranks]:
            problem = "transfer only with the rank on the table"
        if problem is not None:
            raise IllegalAction("transfer_not_allowed", problem)
        self._hands[seat] ^= mask
        self._defender = self._left_of(seat)
        self._put_attacks(cards)
        self._begin_defence()
        self._update_phase()

    def _take(self, seat: int) -> None:
        self._check_defender(seat)
        if self._taking:
            raise IllegalAction("take_declared", "take has already been declared")
        if not self._unbeaten:
            raise IllegalAction("take_not_allowed", "every card on the table is beaten")
        self._taking = True
        self._update_phase()

    def _pass(self, seat: int) -> None:
        self._check_can_act(seat)
        if self._phase not in (THROW, TAKING) or seat not in self._waiting:
            raise IllegalAction("pass_not_allowed", "the game is not waiting for your pass")
        self._passed |= 1 << seat
        self._update_phase()

    def _put_attacks(self, cards: list[int]) -> None:
        for card in cards:
            self._attacks.append(card)
            self._defenses.append(-1)
            self._table_ranks |= 1 << (card >> 2)
        self._unbeaten += len(cards)
        self._passed = 0  # a new card may bring new ranks: every pass is void
        if len(self._attacks) >= self._attack_limit:
            self._throwers = 0

    # ----------------------------------------------------------------- bout flow

    def _update_phase(self) -> None:
        """Derive phase and waiting_for, and close the bout when nobody is left to wait for."""
        if self._finished:
            self._phase, self._waiting = OVER, []
        elif not self._attacks:
            self._phase, self._waiting = LEAD, [self._attacker]
        elif self._taking:
            self._phase, self._waiting = TAKING, self._waiting_throwers()
            if not self._waiting:
                self._end_bout(taken=True)
        elif self._unbeaten:
            self._phase, self._waiting = DEFEND, [self._defender]
        elif not self._hands[self._defender]:
            self._end_bout(taken=False)
        else:
            self._phase, self._waiting = THROW, self._waiting_throwers()
            if not self._waiting:
                self._end_bout(taken=False)

    def _waiting_throwers(self) -> list[int]:
        throwable = CARDS_OF_RANKS[self._table_ranks]
        waited = self._throwers & ~self._passed
        hands = self._hands
        return [
            seat for seat in range(self._players) if waited >> seat & 1 and hands[seat] & throwable
        ]

    def _end_bout(self, *, taken: bool) -> None:
        table = mask_of(self._attacks) | mask_of([card for card in self._defenses if card >= 0])
        defender = self._defender
        if taken:
            self._hands[defender] |= table
        else:
            self._discard |= table
        self._attacks = []
        self._defenses = []
        self._table_ranks = 0
        self._unbeaten = 0
        self._taking = False
        self._passed = 0
        self._first_bout = False
        self._bouts += 1
        self._draw_cards()
        if not self._talon:
            leaving = [
                seat
                for seat in range(self._players)
                if not self._out >> seat & 1 and not self._hands[seat]
            ]
            if leaving:
                self._places.append(leaving)
                self._out |= mask_of(leaving)
        still_in = self.still_in
        if len(still_in) <= 1:
            self._places += [still_in] if still_in else []
            self._finished = True
        elif taken or self._out >> defender & 1:
            self._attacker = self._left_of(defender)
        else:
            self._attacker = defender
        if not self._finished:
            self._defender = self._left_of(self._attacker)
            self._begin_defence()
        self._update_phase()

    def _draw_cards(self) -> None:
        """RULES §3.6: the leader, then clockwise from him, the final defender always last."""
        talon = self._talon
        if not talon:
            return
        order = [
            (self._attacker + step) % self._players
            for step in range(self._players)
            if (self._attacker + step) % self._players != self._defender
        ]
        for seat in [*order, self._defender]:
            if not talon:
                return
            need = HAND_SIZE - self._hands[seat].bit_count()
            if need > 0 and not self._out >> seat & 1:
                self._hands[seat] |= mask_of(talon[:need])
                del talon[:need]

    # ----------------------------------------------------------------- helpers

    def _begin_defence(self) -> None:
        """A defender begins (a new bout, or a transfer): fix the most attack cards the bout
        may hold for him under classic limits, from his hand now (RULES §7), and who may
        throw in at him."""
        if self._options["limit"] == "classic":
            cap = CLASSIC_FIRST_BOUT_CARDS if self._first_bout else CLASSIC_BOUT_CARDS
            self._attack_limit = min(self._hands[self._defender].bit_count(), cap)
        self._set_throwers()

    def _set_throwers(self) -> None:
        """Who may throw in from now on, hands aside, as a bitmask (RULES §3.3, §7): everyone
        still in but the defender, or only his neighbours; nobody once the bout holds all the
        attack cards classic limits allow. Kept from one change of defender to the next."""
        if len(self._attacks) >= self._attack_limit:
            self._throwers = 0
            return
        seats = ((1 << self._players) - 1) & ~self._out & ~(1 << self._defender)
        self._throwers = seats & self._neighbours() if self._neighbours_only else seats

    def _classic_attack_limit(self) -> int | None:
        """The bout's attack limit under classic limits, None at a "zavala" table."""
        return None if self._attack_limit == NO_ATTACK_LIMIT else self._attack_limit

    def _neighbours(self) -> int:
        """The defender's neighbours still in (RULES §7), as a bitmask of seats."""
        defender = self._defender
        right = defender
        for step in range(1, self._players):
            other = (defender - step) % self._players
            if not self._out >> other & 1:
                right = other
                break
        return 1 << self._left_of(defender) | 1 << right

    def _left_of(self, seat: int) -> int:
        """The next seat still in, clockwise (increasing seat order, wrapping)."""
        for step in range(1, self._players + 1):
            other = (seat + step) % self._players
            if not self._out >> other & 1:
                return other
        return seat

    def _is_seat(self, seat: object) -> bool:
        return type(seat) is int and 0 <= seat < self._players

    def _seats_of(self, mask: int) -> list[int]:
        return [seat for seat in range(self._players) if mask >> seat & 1]

    def _trump_card_code(self) -> str | None:
        return None if self._trump_card < 0 else CARD_CODES[self._trump_card]

    def _table_view(self) -> list[dict[str, str | None]]:
        return [
            {"attack": CARD_CODES[attack], "defense": None if defense < 0 else CARD_CODES[defense]}
            for attack, defense in zip(self._attacks, self._defenses, strict=True)
        ]


def _state_seats(seats: object, players: int) -> list[int]:
    if not isinstance(seats, list) or not all(
        _is_int(seat) and 0 <= seat < players for seat in seats
    ):
        raise ValueError(f"damaged game state: bad seats {seats!r}")
    return seats


def _check_state(game: Game) -> None:
    """A stored state holds each card of its deck exactly once and names real seats."""
    table = [*game._attacks, *(card for card in game._defenses if card >= 0)]
    lists = [game._talon, table]
    masks = [*game._hands, game._discard, mask_of(game._talon), mask_of(table)]
    everything = 0
    for mask in masks:
        everything |= mask
    count = sum(hand.bit_count() for hand in game._hands) + game._discard.bit_count()
    count += sum(len(cards) for cards in lists)
    deck = DECKS[game._options["deck"]]
    if count != deck.bit_count() or everything != deck:
        raise ValueError("damaged game state: the deck's cards are not all there exactly once")
    seats = (game._attacker, game._defender)
    if not all(_is_int(seat) and 0 <= seat < game._players for seat in seats):
        raise ValueError("damaged game state: attacker and defender must be seats")
    if not _is_int(game._bouts) or game._bouts < 0:
        raise ValueError("damaged game state: bouts must be a non-negative int")
    if not _is_int(game._attack_limit) or game._attack_limit < 0:
        raise ValueError("damaged game state: attack_limit must be a non-negative int")


def _lowest_trump_holder(hands: list[int], trump: int) -> int | None:
    for card in in_rank_order(SUIT_CARDS[trump]):
        for seat, hand in enumerate(hands):
            if hand >> card & 1:
                return seat
    return None


def _position_cards(codes: object) -> list[int]:
    if not isinstance(codes, list):
        raise ValueError("expected a list of card codes")
    cards = []
    for code in codes:
        if not isinstance(code, str) or code not in CARD_BY_CODE:
            raise ValueError(f"not a card code: {code!r}")
        cards.append(CARD_BY_CODE[code])
    return cards


def _position_places(places: object, players: int) -> list[list[int]]:
    if not isinstance(places, list):
        raise ValueError("places must be a list of lists of seats")
    seen: set[int] = set()
    result = []
    for group in places:
        if not isinstance(group, list) or not group:
            raise ValueError("each place is a non-empty list of seats")
        for seat in group:
            if not _is_int(seat) or not 0 <= seat < players or seat in seen:
                raise ValueError(f"bad or repeated seat in places: {seat!r}")
            seen.add(seat)
        result.append(sorted(group))
    return result
