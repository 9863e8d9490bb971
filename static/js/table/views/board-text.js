// The board in words, for screen readers: the own hand, the table, the talon, the players'
// counts and whose move it is. Visually hidden; read with the screen reader's own keys.
import { sortHand } from "../../cards.js";
import { t } from "../../i18n.js";
import { boardText } from "../speech.js";
import { region } from "../region.js";
import { element } from "../dom.js";

const node = document.getElementById("board-text-lines");

const draw = region((board) => {
  if (!board) {
    node.replaceChildren(element("li", "", t("say_no_game")));
    return;
  }
  const lines = [board.turn, board.hand, board.table, board.talon, ...board.players].filter(Boolean);
  node.replaceChildren(...lines.map((line) => element("li", "", line)));
});

/** The board as text now; also what the «say» key reads out. */
export function currentBoard({ state, sortBy, nameOf }) {
  return boardText(state, { t, nameOf, sortHand: (codes, trump) => sortHand(codes, trump, sortBy) });
}

export function renderBoardText(ctx) {
  draw(currentBoard(ctx));
}
