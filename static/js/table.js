// The live table's controller: renders the server's state and sends moves over /ws/table/<id>/.
// The server decides everything; this code only shows the state and offers legal moves.
// Each message from the server goes to its handler (`handlers` below); each input of the player
// (table/input.js) to a command here. The pieces: table/store.js (state, changed only through
// its methods), table/moves.js (pure move rules), table/views/* (one per board region, each
// redrawn only when its inputs change), table/input.js (hand, playfield, buttons, keyboard,
// forms), table/chrome.js (toast, banner, balance, sound) and table/announce.js (what a screen
// reader is told).
import { nickname, readJson, t } from "./i18n.js";
import { showInvite } from "./invites.js";
import { ReconnectingSocket } from "./socket.js";
import { Announcer } from "./table/announce.js";
import { bindCopyButtons, refreshBalance, showConnection, showToast, signal } from "./table/chrome.js";
import { cardFlights } from "./table/flights.js";
import { bindInput } from "./table/input.js";
import { cardRects, flightMs, fly, motionCount, stopFlights } from "./table/motion.js";
import { moveOptions } from "./table/moves.js";
import { onSettingsChange, settings } from "./table/settings.js";
import { AwayWatch } from "./table/server-moves.js";
import { moveAnnouncements, promptAnnouncement } from "./table/speech.js";
import { played } from "./table/sound.js";
import { TableStore } from "./table/store.js";
import { renderAway } from "./table/views/away.js";
import { renderActions } from "./table/views/actions.js";
import { renderBoardText } from "./table/views/board-text.js";
import { chatRefused, receiveChat, renderChat } from "./table/views/chat.js";
import { tickCountdown } from "./table/views/clock.js";
import { renderDeck } from "./table/views/deck.js";
import { renderFairness } from "./table/views/fairness.js";
import { renderHand } from "./table/views/hand.js";
import { renderInfo } from "./table/views/info.js";
import { renderLog } from "./table/views/log.js";
import { renderPlayfield } from "./table/views/playfield.js";
import { renderResult } from "./table/views/result.js";
import { renderScreen } from "./table/views/screen.js";
import { renderSeatButtons } from "./table/views/seat-buttons.js";
import { renderSeats } from "./table/views/seats.js";
import { renderTurn } from "./table/views/turn.js";

const root = document.getElementById("table-app");
const tableId = Number(root.dataset.tableId);
const MOVE_TIMEOUT_MS = 8000;

const store = new TableStore(readJson("initial-state"));
const awayWatch = new AwayWatch();
const announcer = new Announcer(document.getElementById("announcer"));
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
  input.keyboard.arrange();
}

// ------------------------------------------------------------------ commands (from input)

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

const input = bindInput(
  {
    store,
    context,
    render,
    hintUrl: root.dataset.hintUrl,
    send: (message) => socket.send(message),
    sendAction,
    select: (cards) => {
      store.select(cards);
      render();
    },
    armTake: () => {
      store.armTake();
      render();
    },
    cancel: () => {
      store.clearChoice();
      render();
    },
    /** True when the confirmation went over the socket (else the form posts). */
    requestRematch: () => {
      if (!socket.send({ type: "rematch", game: store.gameId })) return false;
      store.rematchRequested();
      render();
      return true;
    },
    say: (...lines) => announcer.say(...lines),
  },
  { hand: document.getElementById("hand"), playfield: document.getElementById("playfield") },
);
bindCopyButtons();

// ------------------------------------------------------------------ messages (from the server)

let statesReceived = 0; // over this page's sockets, for whoever waits for the first

function receiveState(message) {
  statesReceived += 1;
  input.drag.cancel(); // the hand under the finger may be about to change
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
  signal(previous, store.state, tableId);
  refreshBalance(store.state, root.dataset.balanceUrl);
}

function errorText(message) {
  const key = `error_${message.code}`;
  return t(key) !== key ? t(key) : message.message || t("error_generic");
}

function receiveError(message) {
  if (message.code.startsWith("chat_")) {
    chatRefused(message); // a move in flight is still waiting for its own answer
  } else {
    store.refused(message.code);
    render();
  }
  showToast(errorText(message), true);
}

/** Fly the cards that moved from `previous` to `next` from where they were (`before`). */
function animate(previous, next, before) {
  const sameGame = previous.game?.id === next.game?.id;
  const events = next.events || [];
  const actor = events.length ? events[events.length - 1].seat : null;
  fly(cardFlights(sameGame ? previous.view : null, next.view, actor), before, flightMs(settings().motion));
}

// Messages of other types (`pong`) need nothing here.
const handlers = new Map([
  ["state", receiveState],
  ["unchanged", () => {}], // the answer to a sync: the state shown is the latest
  ["chat_history", receiveChat],
  ["chat", receiveChat],
  ["chat_mutes", receiveChat],
  ["chat_reported", (message) => {
    receiveChat(message);
    showToast(t("chat_report_sent"));
  }],
  ["invite", showInvite],
  ["error", receiveError],
]);

function onMessage(message) {
  handlers.get(message.type)?.(message);
}

// ------------------------------------------------------------------ socket, timers, start

function onStatus(connected, attempt, code) {
  showConnection(connected, attempt, code);
  if (!connected) store.endMove();
}

setInterval(() => {
  tickCountdown(store);
  if (store.state.rematch) render(); // the offer's time may just have run out
}, 250);
window.addEventListener("resize", () => renderHand(context()));

// An invitee who has not sat down yet may watch a private table with the page's invitation.
const inviteCode = new URLSearchParams(window.location.search).get("invite");
const socketPath = `/ws/table/${tableId}/${inviteCode ? `?invite=${encodeURIComponent(inviteCode)}` : ""}`;
// The server pushes "your move" to a player only while no page of his shows the table
// (docs/protocol.md): a new socket counts as shown until it says otherwise.
const reportVisibility = () => socket.send({ type: "visibility", visible: !document.hidden });
socket = new ReconnectingSocket(socketPath, {
  onMessage,
  onStatus,
  // The server sends the whole state on every (re)connect: nothing to ask for.
  onOpen: () => {
    awayWatch.returned();
    if (document.hidden) reportVisibility();
  },
  // Back from a sleep with the socket still open: the state at once, and what the server did
  // meanwhile.
  onWake: () => {
    awayWatch.returned();
    socket.send(store.syncRequest());
  },
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
  get statesReceived() { return statesReceived; },
};
