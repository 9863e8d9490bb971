// Pure layout helpers: seat order, the hand's rows, the log's bouts.

/** Seats in display order: the own seat first (shown at the bottom), the rest clockwise. */
export function displayOrder(total, mySeat) {
  const start = mySeat ?? 0;
  return Array.from({ length: total }, (_, index) => (start + index) % total);
}

/**
 * Lay a hand out in as few rows as keep every card's corner readable and tappable: cards spread
 * out when there is room and overlap (then wrap into more rows) when there is not. Past
 * `maxRows` the last layout keeps its rows and the minimum overlap, and `scrolls` says that the
 * rows are wider than `available` (the hand then scrolls sideways).
 * Returns the rows, the cards per row and the horizontal step from one card to the next.
 */
export function handLayout({ count, cardWidth, available, gap, minVisible, maxRows = Infinity }) {
  const perRowMax = available > cardWidth ? Math.floor((available - cardWidth) / minVisible) + 1 : 1;
  const rows = Math.max(1, Math.min(maxRows, Math.ceil(count / perRowMax)));
  const perRow = Math.max(1, Math.ceil(count / rows));
  const step = perRow > 1
    ? Math.max(minVisible, Math.min(cardWidth + gap, (available - cardWidth) / (perRow - 1)))
    : cardWidth + gap;
  const width = cardWidth + step * (perRow - 1);
  return { rows, perRow, step, scrolls: width > available };
}

/** The game's moves (the latest ones the server sent), grouped by bout, oldest first. */
export function logBouts(events) {
  const bouts = [];
  for (const event of events || []) {
    const last = bouts[bouts.length - 1];
    if (last && last[0].bout === event.bout) last.push(event);
    else bouts.push([event]);
  }
  return bouts;
}

/** A seat's place from the engine's groups of seats in finishing order (ties share a place). */
export function placeOf(places, seat) {
  let before = 0;
  for (const group of places || []) {
    if (group.includes(seat)) return before + 1;
    before += group.length;
  }
  return null;
}
