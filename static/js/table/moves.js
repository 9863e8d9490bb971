// Pure move helpers: what the own seat may do, derived from the server's legal_actions.
// No DOM here, so `node --test` covers all of it.
import { rankOf } from "../cardcodes.js";

export const sameSet = (a, b) => a.length === b.length && [...a].sort().join() === [...b].sort().join();

/** What the own seat may do with its cards right now. */
export function moveOptions(view) {
  const options = { leads: [], throws: new Set(), beats: new Map(), transfers: new Set(), take: false, pass: false };
  if (!view) return options;
  const leading = (view.table || []).length === 0;
  for (const action of view.legal_actions || []) {
    if (action.type === "attack" && leading) options.leads.push(action.cards);
    else if (action.type === "attack") action.cards.forEach((card) => options.throws.add(card));
    else if (action.type === "defend") {
      if (!options.beats.has(action.card)) options.beats.set(action.card, []);
      options.beats.get(action.card).push(action.attack);
    } else if (action.type === "transfer") action.cards.forEach((card) => options.transfers.add(card));
    else if (action.type === "take") options.take = true;
    else if (action.type === "pass") options.pass = true;
  }
  return options;
}

/** Every hand card that takes part in at least one legal move. */
export function playableCards(options) {
  const cards = new Set([...options.throws, ...options.beats.keys(), ...options.transfers]);
  options.leads.forEach((lead) => lead.forEach((card) => cards.add(card)));
  return cards;
}

/** The move `cards` make when dropped on the table (not on a card), or null. */
export function tableMove(options, cards) {
  if (!cards.length) return null;
  if (options.leads.length) {
    return options.leads.some((lead) => sameSet(lead, cards)) ? { type: "attack", cards: [...cards] } : null;
  }
  if (cards.every((card) => options.transfers.has(card))) return { type: "transfer", cards: [...cards] };
  if (cards.every((card) => options.throws.has(card))) return { type: "attack", cards: [...cards] };
  return null;
}

/** The move `cards` make when dropped on the attack card `targetAttack` (or the table), or null. */
export function dropMove(options, cards, targetAttack = null) {
  if (targetAttack && cards.length === 1 && (options.beats.get(cards[0]) || []).includes(targetAttack)) {
    return { type: "defend", attack: targetAttack, card: cards[0] };
  }
  return tableMove(options, cards);
}

/** The selection after a tap on `code`; the same selection when the card cannot be played. */
export function nextSelection(options, selected, code) {
  if (!playableCards(options).has(code)) return selected;
  if (selected.includes(code)) return selected.filter((card) => card !== code);
  // A lead is one rank: choosing another rank starts a new selection.
  if (options.leads.length) return selected.length && rankOf(selected[0]) === rankOf(code) ? [...selected, code] : [code];
  if (options.beats.has(code) && !options.transfers.has(code)) return [code];
  const together = [...selected, code];
  return tableMove(options, together) ? together : [code];
}

/** The attack cards the one selected card may beat. */
export function beatTargets(options, selected) {
  return selected.length === 1 ? options.beats.get(selected[0]) || [] : [];
}

/** Russian players say «Бито» for the attacker's side when all is beaten, «Пас» for the rest. */
export function passIsDone(view, seat) {
  return view.attacker === seat && !view.taking;
}

/** The status line under the table as a translation key and its parameters. */
export function statusLine(view, seat, inFlight) {
  if (view.finished) return { key: "game_over" };
  if (inFlight) return { key: "sending" };
  const waiting = view.waiting_for || [];
  if (seat !== null && waiting.includes(seat)) {
    if (view.defender === seat && !view.taking) return { key: "you_defend" };
    if ((view.table || []).length === 0) return { key: "your_lead" };
    if (view.taking) return { key: "you_may_throw_taking" };
    return { key: passIsDone(view, seat) ? "you_may_throw_done" : "you_may_throw_pass" };
  }
  if (!waiting.length) return null;
  return { key: "waiting_for", seats: waiting };
}

/**
 * Whether each pass in `events` (consecutive moves, oldest first) was the leader's «Бито»:
 * the bout's leader passing with nothing taken. Others are a thrower's «Пас». A bout whose
 * lead lies before the first event given counts its passes as «Пас».
 */
export function beatenOffPasses(events) {
  const leaders = new Map();
  const taken = new Set();
  return events.map((event) => {
    if (event.lead) leaders.set(event.bout, event.seat);
    if (event.action?.type === "take") taken.add(event.bout);
    return event.action?.type === "pass" && leaders.get(event.bout) === event.seat && !taken.has(event.bout);
  });
}

/** What a practice hint (the server's suggested action, or null) asks of the player: the cards
 * to select, and the words to show as a translation key and its parameters. */
export function hintFor(action) {
  if (!action) return { cards: [], key: "hint_none", params: {} };
  if (action.type === "defend") return { cards: [action.card], key: "hint_defend", params: { attack: action.attack } };
  return { cards: action.cards || [], key: `hint_${action.type}`, params: {} };
}
