// The line above the board: the game's number at the table, stake, bank, commission, time
// limits; or the practice mark. Players see one number sequence: the table's in the heading,
// and the game's within the table here.
import { formatMoney, t } from "../../i18n.js";
import { optionBadgeElements } from "../../option_badges.js";
import { region } from "../region.js";
import { fromTemplate, slot } from "../dom.js";

const node = document.getElementById("table-info");
// The table's options, above the board and in the bar a phone shows during a game.
const optionSlots = ["table-options", "table-bar-options"].map((id) => document.getElementById(id));

const drawOptions = region(({ options, speed }) => {
  for (const slotNode of optionSlots) {
    slotNode?.replaceChildren(...(options ? [optionBadgeElements(options, speed)] : []));
  }
});

const draw = region((parts) => {
  node.replaceChildren(
    ...parts.map(([label, value]) => {
      const item = fromTemplate("info-item-template");
      slot(item, "label").textContent = `${label}: `;
      slot(item, "value").textContent = value;
      return item;
    }),
  );
});

/** With classic limits, the most cards the running bout may be attacked with. */
function boutLimit(state) {
  const limit = state.view && !state.view.finished ? state.view.attack_limit : null;
  return limit == null ? [] : [[t("attack_limit"), String(limit)]];
}

export function renderInfo({ state, takenSeats }) {
  const table = state.table || {};
  drawOptions({ options: table.options, speed: table.speed });
  const game = state.game ? [[t("game_number"), String(state.game.number)]] : [];
  if (table.practice) {
    draw([...game, [t("practice"), t(`bots_${table.bot_level}`)], ...boutLimit(state)]);
    return;
  }
  const players = state.game ? (state.players || []).length : takenSeats;
  const parts = [
    ...game,
    [t("stake"), formatMoney(table.stake || 0)],
    [t("bank"), formatMoney(state.result?.bank ?? (table.stake || 0) * players)],
  ];
  if (Number(table.commission_percent) > 0) parts.push([t("commission"), `${Number(table.commission_percent)} %`]);
  parts.push([t("turn_time"), `${table.turn_seconds} ${t("seconds_short")}`]);
  parts.push([t("throw_time"), `${table.throw_seconds} ${t("seconds_short")}`]);
  draw([...parts, ...boutLimit(state)]);
}
