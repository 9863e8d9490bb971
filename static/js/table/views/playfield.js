// The cloth between the players: the bout's pairs, drop targets, and the status line under it.
import { cardElement } from "../../cards.js";
import { t } from "../../i18n.js";
import { beatTargets, statusLine, tableMove } from "../moves.js";
import { region } from "../region.js";
import { element, fromTemplate, slot } from "../dom.js";

const node = document.getElementById("playfield");
const status = document.getElementById("table-status");

function waitingBox({ taken, total, closed }) {
  const box = fromTemplate("waiting-template");
  const big = slot(box, "text");
  if (closed) big.replaceChildren(t("table_closed"));
  else slot(box, "count").textContent = t("waiting_players", { taken, total });
  slot(box, "bar").style.width = `${total ? (100 * taken) / total : 0}%`;
  return box;
}

const draw = region(({ waiting, pairs, trumpSuit, targets, notice, hint, dropTarget }) => {
  node.classList.toggle("target", dropTarget);
  if (waiting) {
    node.replaceChildren(waitingBox(waiting));
    return;
  }
  const children = pairs.map((pair) => {
    const box = element("div", "pair");
    const attack = cardElement(pair.attack, { trump: pair.attack[1] === trumpSuit });
    attack.classList.add("attack");
    if (targets.includes(pair.attack)) attack.classList.add("target");
    box.append(attack);
    if (pair.defense) {
      const defense = cardElement(pair.defense, { trump: pair.defense[1] === trumpSuit });
      defense.classList.add("defense");
      box.append(defense);
    }
    return box;
  });
  if (notice) children.push(element("div", "notice", notice));
  if (hint) children.push(element("div", "hint", hint));
  node.replaceChildren(...children);
});

const drawStatus = region((text) => {
  status.textContent = text;
});

export function renderPlayfield({ state, view: v, seat, options, selected, inFlight, nameOf, takenSeats }) {
  if (!v) {
    draw({ waiting: { taken: takenSeats, total: state.table?.seats || 0, closed: state.table?.status === "closed" }, dropTarget: false });
    drawStatus("");
    return;
  }
  const pairs = v.table || [];
  const targets = inFlight ? [] : beatTargets(options, selected);
  const dropTarget = !inFlight && Boolean(tableMove(options, selected));
  let notice = "";
  if (!pairs.length && !v.finished) notice = seat !== null && v.attacker === seat ? t("drop_here") : t("lead_by", { name: nameOf(v.attacker) });
  const hint = dropTarget ? t("hint_click_table") : targets.length ? t("hint_click_card") : "";
  draw({ pairs, trumpSuit: v.trump_suit, targets, notice, hint, dropTarget });
  const line = statusLine(v, seat, inFlight);
  drawStatus(!line ? "" : line.seats ? t(line.key, { names: line.seats.map(nameOf).join(", ") }) : t(line.key));
}
