// A small card with a player's figures, opened by a click on his plaque.
import { paintAvatar } from "../../avatar.js";
import { nickname as shownNickname, t } from "../../i18n.js";
import { slot } from "../dom.js";

const dialog = document.getElementById("player-card");
const urlTemplate = dialog.dataset.url; // ".../players/NICK/card.json"

async function open(nickname) {
  paintAvatar(slot(dialog, "avatar"), nickname);
  slot(dialog, "nickname").textContent = shownNickname(nickname);
  for (const field of ["games", "wins", "durak", "rating"]) slot(dialog, field).textContent = "…";
  dialog.showModal();
  try {
    const response = await fetch(urlTemplate.replace("NICK", encodeURIComponent(nickname)), { headers: { Accept: "application/json" } });
    if (!response.ok) throw new Error(String(response.status));
    const card = await response.json();
    for (const field of ["games", "wins", "durak"]) slot(dialog, field).textContent = String(card[field]);
    // A player without a rated game yet has no rating to show.
    slot(dialog, "rating").textContent = card.rating === null ? "—" : String(card.rating);
    slot(dialog, "profile").href = card.profile_url;
  } catch {
    slot(dialog, "games").textContent = t("player_card_failed");
  }
}

/** Open the card of whoever's plaque inside `board` is clicked. */
export function bindPlayerCards(board, nicknameAt) {
  board.addEventListener("click", (event) => {
    const plaque = event.target.closest(".seat[data-seat]:not(.empty)");
    if (!plaque || event.target.closest("#hand")) return;
    const nickname = nicknameAt(Number(plaque.dataset.seat));
    if (nickname) open(nickname);
  });
}
