// What a screen reader hears at the table: the other players' moves and the game's prompts as
// they happen, and the whole board as text. Pure: the translation function `t` and `nameOf`
// come in, so `node --test` covers every sentence.
import { spokenCard } from "../cardcodes.js";
import { beatenOffPasses, statusLine } from "./moves.js";

const spokenCards = (codes, t) => (codes || []).map((code) => spokenCard(code, t)).join(", ");

const SAY_KEYS = { take: "log_take", pass: "log_pass", transfer: "say_transfer", defend: "say_defend" };

/** One move in words, with card names a screen reader speaks well. */
export function spokenMove(event, { t, nameOf }) {
  const action = event.action || {};
  let key = SAY_KEYS[action.type] || "log_unknown";
  if (action.type === "attack") key = event.lead ? "say_lead" : "say_throw";
  if (action.type === "pass" && event.beatenOff) key = "log_done";
  const text = t(key, {
    name: nameOf(event.seat),
    cards: spokenCards(action.cards, t),
    card: action.card ? spokenCard(action.card, t) : "",
    attack: action.attack ? spokenCard(action.attack, t) : "",
  });
  return event.automatic ? `${text} ${t("log_automatic")}` : text;
}

const seatOf = (state) => (Number.isInteger(state.you) ? state.you : null);

/** The moves made since `previous` by anyone but the own seat, oldest first, in words. */
export function moveAnnouncements(previous, next, { t, nameOf }) {
  if (!next.game) return [];
  const sameGame = previous.game?.id === next.game.id;
  const since = sameGame ? previous.version ?? 0 : 0;
  const events = next.events || [];
  const done = beatenOffPasses(events);
  const seat = seatOf(next);
  return events
    .map((event, index) => ({ ...event, beatenOff: done[index] }))
    .filter((event) => event.version > since && (event.seat !== seat || event.automatic))
    .map((event) => spokenMove(event, { t, nameOf }));
}

/** The game's prompt to the own seat when it changed with `next`, else null; the result once. */
export function promptAnnouncement(previous, next, { t, nameOf }) {
  if (!next.game) return null;
  const sameGame = previous.game?.id === next.game.id;
  if (next.result) {
    if (sameGame && previous.result) return null;
    return resultSentence(next.result, seatOf(next), { t, nameOf });
  }
  const seat = seatOf(next);
  if (seat === null || !next.view) return null;
  const line = statusLine(next.view, seat, false);
  if (!line || line.seats) return null; // a wait for others is no prompt
  const before = sameGame && previous.view ? statusLine(previous.view, seat, false) : null;
  return before && before.key === line.key ? null : t(line.key);
}

function resultSentence(result, seat, { t, nameOf }) {
  const headline = result.stalemate ? t("result_stalemate")
    : result.durak === null || result.durak === undefined ? t("result_draw")
      : t("result_durak", { name: nameOf(result.durak) });
  const own = (result.payouts || []).find((row) => row.seat === seat);
  return own ? `${headline}. ${t("say_your_place", { n: own.place })}` : headline;
}

/** An attack card on the table and its beat, if any: "семёрка пик, побита: дама пик". */
export function spokenPair(pair, t) {
  const attack = spokenCard(pair.attack, t);
  return pair.defense ? t("say_pair_beaten", { attack, card: spokenCard(pair.defense, t) }) : t("say_pair_open", { attack });
}

/** The players around the table in words: cards held and what each is doing. */
function playerLines(view, { t, nameOf, seat }) {
  return (view.hand_sizes || []).map((count, index) => {
    const roles = [];
    if ((view.out || []).includes(index)) roles.push(t("role_out"));
    else if (index === view.defender) roles.push(view.taking ? t("role_taking") : t("role_defender"));
    else if (index === view.attacker) roles.push(t("role_attacker"));
    if ((view.waiting_for || []).includes(index)) roles.push(t("role_turn"));
    const name = index === seat ? t("say_you") : nameOf(index);
    return [t("say_player_cards", { name, n: count }), ...roles].join(", ");
  });
}

/**
 * The board as sentences for a screen reader: {hand, table, talon, players, turn}; null before
 * a game. The hand is in the order shown on the screen (`sortBy`).
 */
export function boardText(state, { t, nameOf, sortHand }) {
  const view = state.view;
  if (!view) return null;
  const seat = seatOf(state);
  const hand = seat === null ? null : sortHand(view.hand || [], view.trump_suit);
  const pairs = view.table || [];
  const table = pairs.length ? pairs.map((pair) => spokenPair(pair, t)).join("; ") : t("say_table_empty");
  const line = statusLine(view, seat, false);
  const turn = !line ? "" : line.seats ? t(line.key, { names: line.seats.map(nameOf).join(", ") }) : t(line.key);
  return {
    hand: hand === null ? null : hand.length ? `${t("say_hand", { n: hand.length })}: ${spokenCards(hand, t)}` : t("say_hand_empty"),
    table: `${t("say_table")}: ${table}`,
    talon: t("say_talon", {
      n: view.talon_size,
      card: spokenCard(view.trump_card, t),
      discard: view.discard_size ?? 0,
    }),
    players: playerLines(view, { t, nameOf, seat }),
    turn,
  };
}

/** The board in one announcement: whose move, the table, then the own hand. */
export function boardSummary(board) {
  if (!board) return "";
  return [board.turn, board.table, board.hand].filter(Boolean).join(". ");
}
