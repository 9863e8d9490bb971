// The live table: renders the server's state and sends moves over /ws/table/<id>/.
// The server decides everything; this code only shows the state and offers legal moves.
// The pieces: table/store.js (state), table/moves.js (pure move rules), table/views/* (one per
// board region, each redrawn only when its inputs change), table/drag.js (drag and drop),
// table/keyboard.js (play by keyboard) and table/announce.js (what a screen reader is told).
import { sortHand } from "./cards.js";
import { nickname, readJson, t } from "./i18n.js";
import { ReconnectingSocket, offlineMessage } from "./socket.js";
import { Announcer } from "./table/announce.js";
import { CardDrag } from "./table/drag.js";
import { cardFlights } from "./table/flights.js";
import { cardRects, flightMs, fly, motionCount, stopFlights } from "./table/motion.js";
import { TableKeyboard } from "./table/keyboard.js";
import { transferCards } from "./table/keys.js";
import { dropMove, hintFor, moveOptions, nextSelection } from "./table/moves.js";
import { onSettingsChange, settings } from "./table/settings.js";
import { isMyTurn, soundFor } from "./table/signals.js";
import { AwayWatch } from "./table/server-moves.js";
import { boardSummary, moveAnnouncements, promptAnnouncement, spokenPair } from "./table/speech.js";
import { played, playSound } from "./table/sound.js";
import { TableStore } from "./table/store.js";
import { bindAway, renderAway } from "./table/views/away.js";
import { bindActions, renderActions } from "./table/views/actions.js";
import { currentBoard, renderBoardText } from "./table/views/board-text.js";
import { bindChat, chatRefused, receiveChat, renderChat } from "./table/views/chat.js";
import { tickCountdown } from "./table/views/clock.js";
import { renderDeck } from "./table/views/deck.js";
import { renderFairness } from "./table/views/fairness.js";
import { renderHand } from "./table/views/hand.js";
import { renderInfo } from "./table/views/info.js";
import { renderLog } from "./table/views/log.js";
import { bindPlayerCards } from "./table/views/player-card.js";
import { renderPlayfield } from "./table/views/playfield.js";
import { renderResult } from "./table/views/result.js";
import { bindMenu, renderScreen } from "./table/views/screen.js";
import { renderSeatButtons } from "./table/views/seat-buttons.js";
import { renderSeats } from "./table/views/seats.js";
import { renderTurn } from "./table/views/turn.js";

const root = document.getElementById("table-app");
const tableId = Number(root.dataset.tableId);
const MOVE_TIMEOUT_MS = 8000;
const TOAST_MS = 3500;

const els = {
  banner: document.getElementById("conn-banner"),
  toast: document.getElementById("toast"),
  hand: document.getElementById("hand"),
  playfield: document.getElementById("playfield"),
};

const store = new TableStore(readJson("initial-state"));
const awayWatch = new AwayWatch();
let socket = null;

const nameOf = (seat) => {
  const name = store.player(seat)?.nickname;
  return name ? nickname(name) : t("seat_n", { n: seat + 1 });
};

/** Everything the views read, computed once per render. */
function context() {
  const state = store.state;
  return {
    state,
    view: store.view,
    seat: store.seat,
    options: moveOptions(store.view),
    selected: store.selected,
    inFlight: Boolean(store.inFlight),
    takenSeats: (state.players || []).filter((player) => player.nickname).length,
    takeArmed: store.takeArmed,
    rematch: store.openRematch(),
    rematchAgreed: store.rematchAgreed,
    rematchSent: store.rematchSent,
    rematchShort: store.rematchShort,
    sortBy: settings().hand_order,
    cardSize: settings().card_size,
    nameOf,
  };
}

function render() {
  const ctx = context();
  renderScreen(ctx);
  renderInfo(ctx);
  renderSeats(ctx);
  renderDeck(ctx);
  renderPlayfield(ctx);
  renderHand(ctx);
  renderActions(ctx);
  renderLog(ctx);
  renderFairness(ctx);
  renderResult(ctx);
  renderSeatButtons(ctx);
  renderTurn(ctx);
  renderAway(ctx, awayWatch);
  renderChat(ctx);
  renderBoardText(ctx);
  tickCountdown(store);
  keyboard.arrange();
}

// ------------------------------------------------------------------ moves

function sendAction(action) {
  if (store.inFlight || !store.state.game) return;
  if (!socket.send({ type: "act", action, version: store.state.version })) {
    showToast(t("error_offline"), true);
    return;
  }
  store.beginMove(() => {
    // No answer: ask for the current state instead of guessing.
    socket.send(store.syncRequest());
    render();
  }, MOVE_TIMEOUT_MS);
  render();
}

function select(cards) {
  store.select(cards);
  render();
}

function toggleSelect(code) {
  if (store.inFlight) return;
  select(nextSelection(moveOptions(store.view), store.selected, code));
}

/** Play `cards` onto the attack card `attack` (or the table); false when that is no move. */
function playOn(attack, cards = store.selected) {
  const move = dropMove(moveOptions(store.view), cards, attack);
  if (move) sendAction(move);
  return Boolean(move);
}

function errorText(message) {
  const key = `error_${message.code}`;
  return t(key) !== key ? t(key) : message.message || t("error_generic");
}

function onMessage(message) {
  if (message.type === "state") {
    drag.cancel(); // the hand under the finger may be about to change
    stopFlights();
    if (!store.continues(message)) {
      // A change was missed: the latest moves alone would leave a gap in the log.
      socket.send(store.syncRequest());
      return;
    }
    const previous = store.state;
    const before = cardRects();
    if (!store.receive(message)) return;
    render();
    announcer.say(...moveAnnouncements(previous, store.state, { t, nameOf }), promptAnnouncement(previous, store.state, { t, nameOf }));
    animate(previous, store.state, before);
    // A rematch begins with the page scrolled down to the last result: show the new deal.
    if (previous.game && previous.game.id !== message.game?.id) window.scrollTo({ top: 0 });
    signal(previous, store.state);
    refreshBalance();
  } else if (message.type === "unchanged") {
    // The answer to a sync: the state shown is the latest, nothing to take.
  } else if (receiveChat(message)) {
    if (message.type === "chat_reported") showToast(t("chat_report_sent"));
  } else if (message.type === "error" && message.code.startsWith("chat_")) {
    chatRefused(message); // a move in flight is still waiting for its own answer
    showToast(errorText(message), true);
  } else if (message.type === "error") {
    store.endMove();
    store.rematchSent = false; // a refused confirmation may be tried again
    if (message.code === "insufficient_funds") store.rematchShort = true;
    showToast(errorText(message), true);
    render();
  }
}

/** Fly the cards that moved from `previous` to `next` from where they were (`before`). */
function animate(previous, next, before) {
  const sameGame = previous.game?.id === next.game?.id;
  const events = next.events || [];
  const actor = events.length ? events[events.length - 1].seat : null;
  fly(cardFlights(sameGame ? previous.view : null, next.view, actor), before, flightMs(settings().motion));
}

/** Sound, and a notification when the own turn begins in a hidden tab. */
function signal(previous, next) {
  const sound = soundFor(previous, next);
  if (sound && settings().sound) playSound(sound);
  const turnBegins = isMyTurn(next) && !(isMyTurn(previous) && previous.game?.id === next.game?.id);
  if (turnBegins && settings().notifications && document.hidden && window.Notification?.permission === "granted") {
    new Notification(t("notify_your_turn"), { body: document.title, tag: `durak-table-${tableId}` });
  }
}

// ------------------------------------------------------------------ input

const drag = new CardDrag(els.hand, {
  cardsFor: (code) => (store.selected.includes(code) ? [...store.selected] : [code]),
  onTap: toggleSelect,
  onDrop: (cards, { attack, onTable }) => {
    if (onTable && playOn(attack, cards)) return;
    if (onTable) showToast(t("error_illegal_drop"), true);
    render();
  },
});

els.playfield.addEventListener("click", (event) => {
  if (drag.justDropped || !store.selected.length) return;
  const attack = event.target.closest(".pcard.attack");
  if (!playOn(attack ? attack.dataset.card : null) && attack) showToast(t("error_cannot_beat"), true);
});

bindAway(() => socket.send({ type: "back" }));
bindMenu();
// The rematch is confirmed over the socket; while it is down, the form posts and the page reloads.
// A new practice game is always a page of its own: its form posts.
document.getElementById("result").addEventListener("submit", (event) => {
  if (event.target.classList.contains("practice-again")) return;
  if (!socket.send({ type: "rematch", game: store.gameId })) return;
  event.preventDefault();
  store.rematchSent = true;
  render();
});
bindChat((message) => {
  const sent = socket.send(message);
  if (!sent) showToast(t("chat_offline"), true);
  return sent;
});
bindPlayerCards(document.querySelector(".board"), (seat) => store.player(seat)?.nickname);

const actions = {
  play: () => playOn(null),
  take: () => {
    if (settings().confirm_take && !store.takeArmed) {
      store.takeArmed = true;
      render();
    } else {
      sendAction({ type: "take" });
    }
  },
  pass: () => sendAction({ type: "pass" }),
  cancel: () => {
    store.takeArmed = false;
    select([]);
  },
  hint: showHint,
};
bindActions(actions);

const announcer = new Announcer(document.getElementById("announcer"));
/** A move asked for by a key: done when the game allows it, else said why not. */
function keyMove(allowed, move, refusal = "keys_not_now") {
  if (store.inFlight) return;
  if (allowed(moveOptions(store.view))) move();
  else showToast(t(refusal), true);
}
const keyboard = new TableKeyboard({
  hand: els.hand,
  playfield: els.playfield,
  dialog: document.getElementById("keys-dialog"),
  describeAttack: (code) => spokenPair((store.view?.table || []).find((pair) => pair.attack === code) || { attack: code }, t),
  commands: {
    select: (code) => toggleSelect(code),
    beat: (code) => keyMove(() => store.selected.length, () => playOn(code) || showToast(t("error_cannot_beat"), true), "keys_select_first"),
    play: () => keyMove(() => store.selected.length, () => playOn(null) || showToast(t("error_illegal_drop"), true), "keys_select_first"),
    transfer: () => {
      const view = store.view;
      const cards = view && transferCards(moveOptions(view), store.selected, sortHand(view.hand || [], view.trump_suit, settings().hand_order), view.trump_suit);
      keyMove(() => cards, () => sendAction({ type: "transfer", cards }));
    },
    take: () => keyMove((options) => options.take, actions.take),
    pass: () => keyMove((options) => options.pass, actions.pass),
    cancel: actions.cancel,
    say: () => announcer.say(boardSummary(currentBoard(context()))),
  },
});

/** Practice tables: select the cards of the move the Любитель would make, and say what it is. */
async function showHint() {
  let action = null;
  try {
    const response = await fetch(root.dataset.hintUrl, { headers: { Accept: "application/json" } });
    if (response.ok) action = (await response.json()).action;
  } catch {
    // No hint without a connection; the button stays.
  }
  const hint = hintFor(action);
  if (!store.inFlight) select(hint.cards.filter((code) => store.view?.hand?.includes(code)));
  showToast(t(hint.key, hint.params));
}

document.querySelectorAll("[data-copy]").forEach((node) => {
  node.addEventListener("click", async () => {
    const input = document.getElementById(node.dataset.copy);
    input.select();
    try {
      await navigator.clipboard.writeText(input.value);
    } catch {
      document.execCommand("copy");
    }
    showToast(t("copied"));
  });
});

// ------------------------------------------------------------------ balance, toast, banner

let lastBalanceKey = null;
async function refreshBalance() {
  // Money moves when a game starts or ends; refresh the header then.
  const state = store.state;
  const key = `${state.game?.id}:${state.game?.status}:${state.table?.status}`;
  if (key === lastBalanceKey) return;
  lastBalanceKey = key;
  const target = document.getElementById("header-balance");
  if (!target || !root.dataset.balanceUrl) return;
  try {
    const response = await fetch(root.dataset.balanceUrl, { headers: { Accept: "application/json" } });
    if (response.ok) {
      const balance = await response.json();
      target.textContent = balance.formatted;
      const deposit = document.getElementById("header-deposit");
      if (deposit) deposit.hidden = balance.amount > 0;
    }
  } catch {
    // The next state change tries again.
  }
}

let toastTimer = null;
function showToast(text, isError = false) {
  els.toast.textContent = text;
  els.toast.classList.toggle("error", isError);
  els.toast.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { els.toast.hidden = true; }, TOAST_MS);
}

function onStatus(connected, attempt, code) {
  els.banner.hidden = connected;
  if (!connected) {
    els.banner.textContent = t(offlineMessage(attempt, code));
    store.endMove();
  }
  document.body.classList.toggle("offline", !connected);
}

// ------------------------------------------------------------------ start

setInterval(() => {
  tickCountdown(store);
  if (store.state.rematch) render(); // the offer's time may just have run out
}, 250);
window.addEventListener("resize", () => renderHand(context()));

// An invitee who has not sat down yet may watch a private table with the page's invitation.
const inviteCode = new URLSearchParams(window.location.search).get("invite");
const socketPath = `/ws/table/${tableId}/${inviteCode ? `?invite=${encodeURIComponent(inviteCode)}` : ""}`;
/** Back from a drop or a sleep: the state at once, and what the server did meanwhile. */
function resync() {
  awayWatch.returned();
  socket.send(store.syncRequest());
}
// The server pushes "your move" to a player only while no page of his shows the table
// (docs/protocol.md): a new socket counts as shown until it says otherwise.
const reportVisibility = () => socket.send({ type: "visibility", visible: !document.hidden });
socket = new ReconnectingSocket(socketPath, {
  onMessage,
  onStatus,
  onOpen: () => {
    resync();
    if (document.hidden) reportVisibility();
  },
  onWake: resync,
});
document.addEventListener("visibilitychange", reportVisibility);
onSettingsChange((current) => {
  document.body.dataset.cardSize = current.card_size;
  document.body.dataset.motion = current.motion;
  render(); // the hand's order and size; also the first render
});
window.durakTable = {
  get state() { return store.state; },
  get sounds() { return [...played]; },
  get flights() { return motionCount.started; },
  get inFlight() { return Boolean(store.inFlight); },
  get connected() { return socket.connected; },
};
