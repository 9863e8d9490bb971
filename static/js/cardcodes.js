// Card codes are rank + suit: ranks 23456789TJQKA (a 36-card deck has 6 to A, a 24-card deck
// 9 to A), suits SCDH (e.g. "TH" = ten of hearts). Pure helpers, shared by the pages and the
// unit tests.

export const RANKS = "23456789TJQKA";
export const SUITS = "SCDH";
const RED = new Set(["D", "H"]);

export const rankOf = (code) => code[0];
export const suitOf = (code) => code[1];
export const isRed = (code) => RED.has(suitOf(code));

/** The spoken name of a card for screen readers, "дама пик" / "queen of spades", with the
 * page's translation function `t`. */
export function spokenCard(code, t) {
  return t("card_name", { rank: t(`rank_name_${rankOf(code)}`), suit: t(`suit_name_${suitOf(code)}`) });
}

/** The number a rank shows ("10" for T, "2"…"9"), or null for a picture card and the ace. */
export function rankNumber(rank) {
  if (rank === "T") return "10";
  return rank >= "2" && rank <= "9" ? rank : null;
}

/**
 * Sort a hand with trumps last: `by` "rank" orders by rank (ties by suit), "suit" groups the
 * suits (in SCDH order) and orders each by rank.
 */
export function sortHand(codes, trumpSuit, by = "rank") {
  const rank = (code) => RANKS.indexOf(rankOf(code));
  const suit = (code) => SUITS.indexOf(suitOf(code));
  const key = by === "suit"
    ? (code) => (suitOf(code) === trumpSuit ? 100 : 0) + suit(code) * 10 + rank(code)
    : (code) => (suitOf(code) === trumpSuit ? 100 : 0) + rank(code) * 4 + suit(code);
  return [...codes].sort((a, b) => key(a) - key(b));
}
