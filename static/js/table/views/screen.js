// The page around the board: while a game is on, a phone gives the table the whole screen
// (game.css, body.game-on) and the site's header opens from the menu button instead.
import { region } from "../region.js";

const body = document.body;
const menuButton = document.getElementById("table-menu");
const header = document.getElementById("site-header");

function setMenu(open) {
  body.classList.toggle("menu-open", open);
  menuButton.setAttribute("aria-expanded", open ? "true" : "false");
}

/**
 * The menu button folds the header out and back; Escape, a tap beside it or one of its buttons
 * (a dialog opens, the sound changes) folds it too.
 */
export function bindMenu() {
  menuButton.addEventListener("click", () => setMenu(!body.classList.contains("menu-open")));
  header.addEventListener("click", (event) => {
    if (event.target.closest("button")) setMenu(false);
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && body.classList.contains("menu-open")) {
      setMenu(false);
      menuButton.focus();
    }
  });
  document.addEventListener("click", (event) => {
    if (!body.classList.contains("menu-open")) return;
    if (!header.contains(event.target) && !menuButton.contains(event.target)) setMenu(false);
  });
}

const draw = region(({ gameOn }) => {
  body.classList.toggle("game-on", gameOn);
  if (!gameOn) setMenu(false);
});

export function renderScreen({ state }) {
  draw({ gameOn: Boolean(state.game) });
}
