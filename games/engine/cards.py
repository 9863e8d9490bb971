"""Card encoding and precomputed tables.

A card is an int ``position * 4 + suit`` (suit 0..3 for S C D H), the four cards of a rank
four adjacent bits, and a set of cards an int bitmask. The ranks 6..A of the 36-card deck take
positions 0..8 and the ranks 2..5 of the 52-card deck positions 9..12: the default game's card
sets stay within 36 bits, ints Python handles fastest, and within each of the two blocks int
order is rank order. ``in_rank_order`` lists cards lowest rank first across both blocks.
``CARD_CODES[card]`` is every card's code; ``CODES`` those of the 36-card deck, a default game.
A game's deck is its top ranks (``DECKS``): 24 cards from 9, 36 from 6, 52 from 2.
"""

from __future__ import annotations

RANKS = "23456789TJQKA"  # lowest first
SUITS = "SCDH"
POSITION_RANKS = "6789TJQKA2345"
ALL_CARDS = len(RANKS) * len(SUITS)
# The first bit of ranks 2..5, which rank below every card of the bits under it.
LOW_RANKS_BIT = 4 * POSITION_RANKS.index("2")
HAND_SIZE = 6

CARD_CODES: tuple[str, ...] = tuple(
    POSITION_RANKS[card >> 2] + SUITS[card & 3] for card in range(ALL_CARDS)
)
CARD_BY_CODE: dict[str, int] = {code: card for card, code in enumerate(CARD_CODES)}
# The codes of the default 36-card deck, by card: the cards of a game with default options.
CODES: tuple[str, ...] = CARD_CODES[:LOW_RANKS_BIT]
SUIT_BY_CODE: dict[str, int] = {suit: index for index, suit in enumerate(SUITS)}

# RANK_CARDS[p]: the four cards of the rank at position p.
RANK_CARDS: tuple[int, ...] = tuple(0xF << (4 * rank) for rank in range(len(RANKS)))
# DECKS[size]: the cards of the deck of that size (its top ranks), as a bitmask.
DECKS: dict[int, int] = {
    size: sum(RANK_CARDS[POSITION_RANKS.index(rank)] for rank in RANKS[len(RANKS) - size // 4 :])
    for size in (24, 36, 52)
}
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


# CARDS_OF_RANKS[m]: every card whose rank position bit is set in the 13-bit set m.
CARDS_OF_RANKS: tuple[int, ...] = _cards_of_ranks()


def _rank_of(card: int) -> int:
    return RANKS.index(POSITION_RANKS[card >> 2])


def _beaters(card: int, trump: int) -> int:
    suit = card & 3
    higher_same_suit = sum(
        1 << other for other in range(suit, ALL_CARDS, 4) if _rank_of(other) > _rank_of(card)
    )
    return higher_same_suit if suit == trump else higher_same_suit | SUIT_CARDS[trump]


# BEATERS[trump][card]: every card that beats `card` when `trump` is the trump suit.
BEATERS: tuple[tuple[int, ...], ...] = tuple(
    tuple(_beaters(card, trump) for card in range(ALL_CARDS)) for trump in range(len(SUITS))
)


def _subsets_by_size(rank: int, suits: int) -> tuple[tuple[str, ...], ...]:
    cards = [4 * rank + suit for suit in range(4) if suits >> suit & 1]
    subsets = [
        tuple(CARD_CODES[card] for index, card in enumerate(cards) if pick >> index & 1)
        for pick in range(1, 1 << len(cards))
    ]
    return tuple(sorted(subsets, key=len))


# LEADS[position][suits]: every non-empty set of codes of that rank among the 4-bit suit set,
# smallest first, so a lead limit cuts the tuple short instead of filtering it.
LEADS: tuple[tuple[tuple[tuple[str, ...], ...], ...], ...] = tuple(
    tuple(_subsets_by_size(rank, suits) for suits in range(16)) for rank in range(len(RANKS))
)


def cards_in(mask: int) -> list[int]:
    """The cards of a bitmask, lowest bit first (rank order within 6..A, and within 2..5)."""
    cards = []
    while mask:
        low = mask & -mask
        cards.append(low.bit_length() - 1)
        mask ^= low
    return cards


def in_rank_order(mask: int) -> list[int]:
    """The cards of a bitmask, lowest rank first (suits S C D H within a rank)."""
    if mask >> LOW_RANKS_BIT:
        return cards_in(mask >> LOW_RANKS_BIT << LOW_RANKS_BIT) + cards_in(
            mask & ((1 << LOW_RANKS_BIT) - 1)
        )
    return cards_in(mask)


def codes_of(mask: int) -> list[str]:
    """The codes of a bitmask's cards, lowest rank first."""
    return [CARD_CODES[card] for card in in_rank_order(mask)]


def deck_codes(size: int) -> list[str]:
    """The codes of the deck of `size` cards (24, 36 or 52), lowest first."""
    return codes_of(DECKS[size])


def mask_of(cards: list[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask
