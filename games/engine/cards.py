"""Card encoding and precomputed tables.

A card is an int ``rank * 4 + suit`` (rank 0..12 for 2..A, suit 0..3 for S C D H), so int order
is rank order with suit as tie-break, and the four cards of a rank are four adjacent bits.
A set of cards is an int bitmask over those 52 positions; a game's deck is the top ranks
(``DECKS``): 24 cards from 9, 36 from 6, 52 from 2.
"""

from __future__ import annotations

RANKS = "23456789TJQKA"
SUITS = "SCDH"
ALL_CARDS = len(RANKS) * len(SUITS)
HAND_SIZE = 6

CODES: tuple[str, ...] = tuple(RANKS[card >> 2] + SUITS[card & 3] for card in range(ALL_CARDS))
CARD_BY_CODE: dict[str, int] = {code: card for card, code in enumerate(CODES)}
SUIT_BY_CODE: dict[str, int] = {suit: index for index, suit in enumerate(SUITS)}

# DECKS[size]: the cards of the deck of that size, as a bitmask.
DECKS: dict[int, int] = {
    size: ((1 << ALL_CARDS) - 1) ^ ((1 << (ALL_CARDS - size)) - 1) for size in (24, 36, 52)
}

# RANK_CARDS[r]: the four cards of rank r.
RANK_CARDS: tuple[int, ...] = tuple(0xF << (4 * rank) for rank in range(len(RANKS)))
# SUIT_CARDS[s]: the thirteen cards of suit s.
SUIT_CARDS: tuple[int, ...] = tuple(
    sum(1 << (4 * rank + suit) for rank in range(len(RANKS))) for suit in range(len(SUITS))
)


def _cards_of_ranks() -> tuple[int, ...]:
    table = [0] * (1 << len(RANKS))
    for ranks in range(1, len(table)):
        lowest = (ranks & -ranks).bit_length() - 1
        table[ranks] = table[ranks ^ (1 << lowest)] | RANK_CARDS[lowest]
    return tuple(table)


# CARDS_OF_RANKS[m]: every card whose rank bit is set in the 13-bit rank set m.
CARDS_OF_RANKS: tuple[int, ...] = _cards_of_ranks()


def _beaters(card: int, trump: int) -> int:
    suit = card & 3
    higher_same_suit = sum(1 << other for other in range(card + 4, ALL_CARDS, 4))
    return higher_same_suit if suit == trump else higher_same_suit | SUIT_CARDS[trump]


# BEATERS[trump][card]: every card that beats `card` when `trump` is the trump suit.
BEATERS: tuple[tuple[int, ...], ...] = tuple(
    tuple(_beaters(card, trump) for card in range(ALL_CARDS)) for trump in range(len(SUITS))
)


def _subsets_by_size(rank: int, suits: int) -> tuple[tuple[str, ...], ...]:
    cards = [4 * rank + suit for suit in range(4) if suits >> suit & 1]
    subsets = [
        tuple(CODES[card] for index, card in enumerate(cards) if pick >> index & 1)
        for pick in range(1, 1 << len(cards))
    ]
    return tuple(sorted(subsets, key=len))


# LEADS[rank][suits]: every non-empty set of codes of that rank among the 4-bit suit set,
# smallest first, so a lead limit cuts the tuple short instead of filtering it.
LEADS: tuple[tuple[tuple[tuple[str, ...], ...], ...], ...] = tuple(
    tuple(_subsets_by_size(rank, suits) for suits in range(16)) for rank in range(len(RANKS))
)


def cards_in(mask: int) -> list[int]:
    """The cards of a bitmask, lowest first."""
    cards = []
    while mask:
        low = mask & -mask
        cards.append(low.bit_length() - 1)
        mask ^= low
    return cards


def codes_of(mask: int) -> list[str]:
    """The codes of a bitmask's cards, lowest first."""
    return [CODES[card] for card in cards_in(mask)]


def deck_codes(size: int) -> list[str]:
    """The codes of the deck of `size` cards (24, 36 or 52), lowest first."""
    return codes_of(DECKS[size])


def mask_of(cards: list[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask
