// Step through a finished game: every position with all hands open.
import { cardElement, sortHand, SUIT_SYMBOLS } from "./cards.js";
import { describeEvent } from "./events.js";
import { nickname, readJson, t } from "./i18n.js";
import { beatenOffPasses } from "./table/moves.js";

const data = readJson("replay-data");
const steps = data.steps;
// Whether each move (step 1 on) was the leader's «Бито» rather than a thrower's «Пас».
const beatenOff = [false, ...beatenOffPasses(steps.slice(1).map((step) => step.event))];
const nameOf = (seat) => (data.players[seat] ? nickname(data.players[seat]) : t("seat_n", { n: seat + 1 }));
const slider = document.getElementById("replay-slider");
slider.max = String(steps.length - 1);
let index = 0;

function render() {
  const step = steps[index];
  slider.value = String(index);
  const caption = document.getElementById("replay-step");
  const event = index ? { ...step.event, beatenOff: beatenOff[index] } : null;
  caption.replaceChildren(event ? describeEvent(event, { nameOf }) : t("replay_start"));
  document.getElementById("replay-counter").textContent = t("replay_step", { n: index, total: steps.length - 1 });

  const deck = document.getElementById("replay-deck");
  const label = document.createElement("div");
  label.className = "label";
  label.textContent = `${t("talon")}: ${step.talon_size}`;
  const trump = document.createElement("div");
  trump.className = "label";
  trump.append(`${t("trump")} `, cardElement(step.trump_card, { size: "small" }), ` ${SUIT_SYMBOLS[step.trump_suit]}`);
  deck.replaceChildren(label, trump);

  const table = document.getElementById("replay-table");
  table.replaceChildren(
    ...step.table.map((pair) => {
      const node = document.createElement("div");
      node.className = "pair";
      const attack = cardElement(pair.attack);
      attack.classList.add("attack");
      node.append(attack);
      if (pair.defense) {
        const defense = cardElement(pair.defense);
        defense.classList.add("defense");
        node.append(defense);
      }
      return node;
    }),
  );

  const hands = document.getElementById("replay-hands");
  hands.replaceChildren(
    ...step.hands.map((hand, seat) => {
      const row = document.createElement("div");
      row.className = `replay-hand${step.waiting_for.includes(seat) ? " waiting" : ""}`;
      const who = document.createElement("div");
      who.className = "who";
      const roles = [];
      if (step.out.includes(seat)) roles.push(t("role_out"));
      else if (seat === step.attacker) roles.push(t("role_attacker"));
      if (seat === step.defender && !step.out.includes(seat)) roles.push(step.taking ? t("role_taking") : t("role_defender"));
      who.textContent = roles.length ? `${nameOf(seat)} · ${roles.join(", ")}` : nameOf(seat);
      const cards = document.createElement("div");
      cards.className = "cards";
      sortHand(hand, step.trump_suit).forEach((code) => cards.append(cardElement(code, { size: "small" })));
      row.append(who, cards);
      return row;
    }),
  );
}

function go(to) {
  index = Math.max(0, Math.min(steps.length - 1, to));
  render();
}

document.getElementById("replay-first").addEventListener("click", () => go(0));
document.getElementById("replay-prev").addEventListener("click", () => go(index - 1));
document.getElementById("replay-next").addEventListener("click", () => go(index + 1));
document.getElementById("replay-last").addEventListener("click", () => go(steps.length - 1));
slider.addEventListener("input", () => go(Number(slider.value)));
document.addEventListener("keydown", (event) => {
  if (event.target.closest("input, textarea, select")) return;
  if (event.key === "ArrowLeft") go(index - 1);
  if (event.key === "ArrowRight") go(index + 1);
});
render();
