// What the player does at the table: taps and drags in the hand, clicks on the playfield, the
// action buttons, the keyboard, the rematch form, the chat, the away notice and the hint. Each
// becomes a command of the controller (table.js); the store is only read here.
import { sortHand } from "../cards.js";
import { t } from "../i18n.js";
import { CardDrag } from "./drag.js";
import { TableKeyboard } from "./keyboard.js";
import { transferCards } from "./keys.js";
import { dropMove, hintFor, moveOptions, nextSelection } from "./moves.js";
import { settings } from "./settings.js";
import { boardSummary, spokenPair } from "./speech.js";
import { showToast } from "./chrome.js";
import { bindActions } from "./views/actions.js";
import { bindAway } from "./views/away.js";
import { currentBoard } from "./views/board-text.js";
import { bindChat } from "./views/chat.js";
import { bindPlayerCards } from "./views/player-card.js";
import { bindMenu } from "./views/screen.js";

/**
 * Bind every input of the table page to `table`, the controller's commands:
 * {store, context(), render(), send(message) -> bool, sendAction(action), select(cards),
 * armTake(), cancel(), requestRematch() -> bool, say(...lines), hintUrl}.
 * Returns the drag (cancelled when the hand changes) and the keyboard (arranged on render).
 */
export function bindInput(table, { hand, playfield }) {
  const { store } = table;

  function toggleSelect(code) {
    if (store.inFlight) return;
    table.select(nextSelection(moveOptions(store.view), store.selected, code));
  }

  /** Play `cards` onto the attack card `attack` (or the table); false when that is no move. */
  function playOn(attack, cards = store.selected) {
    const move = dropMove(moveOptions(store.view), cards, attack);
    if (move) table.sendAction(move);
    return Boolean(move);
  }

  /** Practice tables: select the cards of the move the Любитель would make, and say what it is. */
  async function showHint() {
    let action = null;
    try {
      const response = await fetch(table.hintUrl, { headers: { Accept: "application/json" } });
      if (response.ok) action = (await response.json()).action;
    } catch {
      // No hint without a connection; the button stays.
    }
    const hint = hintFor(action);
    if (!store.inFlight) table.select(hint.cards.filter((code) => store.view?.hand?.includes(code)));
    showToast(t(hint.key, hint.params));
  }

  const drag = new CardDrag(hand, {
    cardsFor: (code) => (store.selected.includes(code) ? [...store.selected] : [code]),
    onTap: toggleSelect,
    onDrop: (cards, { attack, onTable }) => {
      if (onTable && playOn(attack, cards)) return;
      if (onTable) showToast(t("error_illegal_drop"), true);
      table.render();
    },
  });

  playfield.addEventListener("click", (event) => {
    if (drag.justDropped || !store.selected.length) return;
    const attack = event.target.closest(".pcard.attack");
    if (!playOn(attack ? attack.dataset.card : null) && attack) showToast(t("error_cannot_beat"), true);
  });

  bindAway(() => table.send({ type: "back" }));
  bindMenu();
  // The rematch is confirmed over the socket; while it is down, the form posts and the page reloads.
  // A new practice game is always a page of its own: its form posts.
  document.getElementById("result").addEventListener("submit", (event) => {
    if (event.target.classList.contains("practice-again")) return;
    if (table.requestRematch()) event.preventDefault();
  });
  bindChat((message) => {
    const sent = table.send(message);
    if (!sent) showToast(t("chat_offline"), true);
    return sent;
  });
  bindPlayerCards(document.querySelector(".board"), (seat) => store.player(seat)?.nickname);

  const actions = {
    play: () => playOn(null),
    take: () => {
      if (settings().confirm_take && !store.takeArmed) table.armTake();
      else table.sendAction({ type: "take" });
    },
    pass: () => table.sendAction({ type: "pass" }),
    cancel: () => table.cancel(),
    hint: showHint,
  };
  bindActions(actions);

  /** A move asked for by a key: done when the game allows it, else said why not. */
  function keyMove(allowed, move, refusal = "keys_not_now") {
    if (store.inFlight) return;
    if (allowed(moveOptions(store.view))) move();
    else showToast(t(refusal), true);
  }
  const keyboard = new TableKeyboard({
    hand,
    playfield,
    dialog: document.getElementById("keys-dialog"),
    describeAttack: (code) => spokenPair((store.view?.table || []).find((pair) => pair.attack === code) || { attack: code }, t),
    commands: {
      select: (code) => toggleSelect(code),
      beat: (code) => keyMove(() => store.selected.length, () => playOn(code) || showToast(t("error_cannot_beat"), true), "keys_select_first"),
      play: () => keyMove(() => store.selected.length, () => playOn(null) || showToast(t("error_illegal_drop"), true), "keys_select_first"),
      transfer: () => {
        const view = store.view;
        const cards = view && transferCards(moveOptions(view), store.selected, sortHand(view.hand || [], view.trump_suit, settings().hand_order), view.trump_suit);
        keyMove(() => cards, () => table.sendAction({ type: "transfer", cards }));
      },
      take: () => keyMove((options) => options.take, actions.take),
      pass: () => keyMove((options) => options.pass, actions.pass),
      cancel: actions.cancel,
      say: () => table.say(boardSummary(currentBoard(table.context()))),
    },
  });

  return { drag, keyboard };
}
