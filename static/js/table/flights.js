// Pure planning of card motion: where each card that moved between two views came from and
// went to. Places: "hand" (the own hand), "table", "deck", "discard", or "seat:N" (a player).

const tableCards = (view) => (view?.table || []).flatMap((pair) => [pair.attack, pair.defense].filter(Boolean));

/**
 * The flights from `previous` to `next` (views of one game; `previous` null for a new deal).
 * `actor` is the seat whose move led to `next` (null when unknown).
 */
export function cardFlights(previous, next, actor = null) {
  if (!next) return [];
  const beforeTable = new Set(tableCards(previous));
  const afterTable = new Set(tableCards(next));
  const beforeHand = new Set(previous?.hand || []);
  const afterHand = new Set(next.hand || []);
  const discard = new Set(next.discard || []);
  const flights = [];
  for (const code of afterTable) {
    if (beforeTable.has(code)) continue;
    const from = beforeHand.has(code) ? "hand" : actor === null ? "deck" : `seat:${actor}`;
    flights.push({ code, from, to: "table" });
  }
  for (const code of beforeTable) {
    if (afterTable.has(code)) continue;
    const to = afterHand.has(code) ? "hand" : discard.has(code) ? "discard" : `seat:${previous.defender}`;
    flights.push({ code, from: "table", to });
  }
  for (const code of afterHand) {
    if (!beforeHand.has(code) && !beforeTable.has(code)) flights.push({ code, from: "deck", to: "hand" });
  }
  return flights;
}
