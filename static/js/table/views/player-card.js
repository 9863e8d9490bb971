// A small card with a player's figures, opened by a click on his plaque; with what only the
// viewer sees: his note on the player, and friend and block buttons.
import { paintAvatar } from "../../avatar.js";
import { nickname as shownNickname, t, tn } from "../../i18n.js";
import { slot } from "../dom.js";

const dialog = document.getElementById("player-card");
const urls = dialog.dataset; // each with "NICK" where the nickname goes
const noteForm = slot(dialog, "note-form");
const csrfToken = noteForm.elements.csrfmiddlewaretoken.value;
const RELATION_WORDS = { friend: "card_friend", asked: "card_asked", asked_you: "card_asked_you", blocked: "card_blocked" };
let shown = null; // the nickname whose card is open

function urlFor(template, nickname) {
  return template.replace("NICK", encodeURIComponent(nickname));
}

function showNote(note) {
  noteForm.elements.text.value = note ? note.text : "";
  noteForm.elements.colour.value = note ? note.colour : "grey";
  noteForm.className = `note-form${note ? ` has-note note-${note.colour}` : ""}`;
}

function showRelation(relation) {
  const badge = slot(dialog, "relation");
  badge.hidden = !relation;
  badge.textContent = relation ? t(RELATION_WORDS[relation]) : "";
  slot(dialog, "befriend").hidden = relation !== null;
  slot(dialog, "block").hidden = relation === "blocked";
  slot(dialog, "unblock").hidden = relation !== "blocked";
}

function showCard(card) {
  for (const field of ["games", "wins", "durak"]) slot(dialog, field).textContent = String(card[field]);
  // A player without a rated game (or a game with a stake) yet has no figure to show.
  slot(dialog, "rating").textContent = card.rating === null ? "—" : String(card.rating);
  const reliability = slot(dialog, "reliability");
  reliability.textContent = card.reliability === null ? "—" : `${card.reliability} %`;
  reliability.title = card.reliability === null ? "" : tn("card_reliability_games", card.reliability_games);
  slot(dialog, "profile").href = card.profile_url;
  slot(dialog, "mine").hidden = card.is_me;
  showNote(card.note);
  showRelation(card.relation);
}

async function load(nickname) {
  const response = await fetch(urlFor(urls.url, nickname), { headers: { Accept: "application/json" } });
  if (!response.ok) throw new Error(String(response.status));
  return response.json();
}

async function open(nickname) {
  shown = nickname;
  paintAvatar(slot(dialog, "avatar"), nickname);
  slot(dialog, "nickname").textContent = shownNickname(nickname);
  for (const field of ["games", "wins", "durak", "rating", "reliability"]) slot(dialog, field).textContent = "…";
  slot(dialog, "mine").hidden = true;
  slot(dialog, "said").textContent = "";
  dialog.showModal();
  try {
    showCard(await load(nickname));
  } catch {
    slot(dialog, "games").textContent = t("player_card_failed");
  }
}

/** Post a form to one of the card's addresses; say the answer and show the card anew. */
async function post(url, fields) {
  const nickname = shown;
  let said;
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { Accept: "application/json", "X-CSRFToken": csrfToken },
      body: new URLSearchParams(fields),
    });
    const answer = await response.json();
    said = answer.error || answer.message;
    if (nickname === shown) showCard(await load(nickname));
  } catch {
    said = t("card_action_failed");
  }
  if (nickname === shown) slot(dialog, "said").textContent = said;
}

noteForm.addEventListener("submit", (event) => {
  event.preventDefault();
  post(urlFor(urls.noteUrl, shown), { text: noteForm.elements.text.value, colour: noteForm.elements.colour.value });
});
slot(dialog, "befriend").addEventListener("click", () => post(urls.friendUrl, { nickname: shown }));
slot(dialog, "block").addEventListener("click", () => post(urlFor(urls.blockUrl, shown), {}));
slot(dialog, "unblock").addEventListener("click", () => post(urlFor(urls.unblockUrl, shown), {}));

/** Open the card of whoever's plaque inside `board` is clicked, or whose name is pressed
 * with Enter or Space (it takes the focus like a button). */
export function bindPlayerCards(board, nicknameAt) {
  const openAt = (plaque) => {
    const nickname = nicknameAt(Number(plaque.dataset.seat));
    if (nickname) open(nickname);
  };
  board.addEventListener("click", (event) => {
    const plaque = event.target.closest(".seat[data-seat]:not(.empty)");
    if (!plaque || event.target.closest("#hand")) return;
    openAt(plaque);
  });
  board.addEventListener("keydown", (event) => {
    const name = event.target.closest(".seat[data-seat] > .name");
    if (!name || (event.key !== "Enter" && event.key !== " ")) return;
    event.preventDefault();
    openAt(name.parentElement);
  });
}
