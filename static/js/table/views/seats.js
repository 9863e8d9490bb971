// The players' plaques: opponents along the top, the own one beside the clock above the hand.
import { paintAvatar } from "../../avatar.js";
import { backElement } from "../../cards.js";
import { nickname, t } from "../../i18n.js";
import { displayOrder, placeOf } from "../layout.js";
import { seatBadges } from "../roles.js";
import { region } from "../region.js";
import { element, fromTemplate, slot } from "../dom.js";

const MAX_BACKS = 8;
const opponents = document.getElementById("opponents");
const me = document.getElementById("me");

function seatElement(seat, inputs, isMe) {
  const { players, view: v, hasDeadline } = inputs;
  const player = players.find((candidate) => candidate.seat === seat);
  if (!player || !player.nickname) {
    const empty = element("div", "seat empty", t("free_seat"));
    empty.dataset.seat = seat;
    empty.dataset.testid = isMe ? "my-seat" : "seat";
    return empty;
  }
  const node = fromTemplate("seat-template");
  node.dataset.seat = seat;
  node.dataset.testid = isMe ? "my-seat" : "seat";
  const waiting = v && !v.finished && v.waiting_for.includes(seat);
  const out = v && v.out.includes(seat);
  node.classList.toggle("waiting", Boolean(waiting));
  node.classList.toggle("out", Boolean(out));

  const offline = player.connected === false;
  const dot = slot(node, "dot");
  dot.classList.toggle("off", offline);
  dot.title = offline ? t("disconnected") : t("connected");
  const name = nickname(player.nickname);
  slot(node, "nickname").textContent = name;
  paintAvatar(slot(node, "avatar"), player.nickname);
  const rating = slot(node, "rating");
  if (player.rating === null || player.rating === undefined) rating.remove();
  else rating.textContent = String(player.rating);
  slot(node, "name").title = name; // narrow seats cut long nicknames short

  const roles = slot(node, "roles");
  const role = (cls, text) => roles.append(element("span", `role ${cls}`, text));
  for (const [cls, key] of seatBadges(v, seat, isMe)) role(cls, t(key));
  if (player.away) role("away", t("role_away"));
  if (offline) role("offline", t("role_offline"));

  const backs = slot(node, "backs");
  if (!isMe && v && out) {
    // A seat that has left the game holds no cards: it shows its place instead of a "0".
    backs.replaceChildren(element("span", "place", t("place_n", { n: placeOf(v.places, seat) })));
  } else if (!isMe && v) {
    const count = v.hand_sizes[seat] || 0;
    backs.prepend(...Array.from({ length: Math.min(count, MAX_BACKS) }, () => backElement("small")));
    slot(node, "count").textContent = String(count);
  } else {
    backs.remove();
  }
  if (isMe) {
    // One clock counts the own move: the large one by the hand (views/clock.js).
    node.querySelector(".timer").remove();
    node.querySelector(".timer-label").remove();
  } else {
    // The countdown's room is kept on every plaque, so a turn passing moves nothing on the board.
    node.classList.toggle("counting", Boolean(waiting && hasDeadline));
  }
  return node;
}

const draw = region((inputs) => {
  const order = displayOrder(inputs.total, inputs.mine);
  const others = inputs.mine === null ? order : order.slice(1);
  opponents.replaceChildren(...others.map((seat) => seatElement(seat, inputs, false)));
  opponents.dataset.count = String(others.length);
  const current = me.querySelector(".seat");
  if (inputs.mine !== null) {
    const node = seatElement(inputs.mine, inputs, true);
    if (current) current.replaceWith(node);
    else me.prepend(node);
  } else if (current) {
    current.remove();
  }
});

export function renderSeats({ state, view, seat }) {
  draw({
    total: state.table?.seats || (state.players || []).length,
    mine: seat,
    players: state.players || [],
    hasDeadline: Boolean(state.deadline),
    view: view && {
      finished: view.finished,
      waiting_for: view.waiting_for || [],
      out: view.out || [],
      passed: view.passed || [],
      attacker: view.attacker,
      defender: view.defender,
      taking: view.taking,
      table: view.table || [],
      hand_sizes: view.hand_sizes || [],
      places: view.places || [],
    },
  });
}
