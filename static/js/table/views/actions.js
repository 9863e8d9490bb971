// The buttons under the hand: play the selection, take, pass or «Бито», cancel the selection,
// and at a practice table a hint.
import { t } from "../../i18n.js";
import { passIsDone, tableMove } from "../moves.js";
import { region } from "../region.js";
import { element } from "../dom.js";

const node = document.getElementById("actions");

function button(text, cls, testid, disabled) {
  const item = element("button", cls, text);
  item.type = "button";
  item.dataset.testid = testid;
  item.disabled = disabled;
  return item;
}

const draw = region(({ buttons, disabled }) => {
  node.replaceChildren(...buttons.map(([text, cls, testid]) => button(text, cls, testid, disabled)));
});

/** `actions` maps a button's test id to what it does: {play, take, pass, cancel, hint}. */
export function bindActions(actions) {
  node.addEventListener("click", (event) => {
    const target = event.target.closest("button[data-testid]");
    if (target && !target.disabled) actions[target.dataset.testid]?.();
  });
}

export function renderActions({ state, view: v, seat, options, selected, inFlight, takeArmed }) {
  const buttons = [];
  if (v && seat !== null && !v.finished) {
    const move = tableMove(options, selected);
    if (move) {
      const label = move.type === "transfer" ? t("do_transfer") : options.leads.length ? t("do_lead") : t("do_throw");
      buttons.push([label, "play", "play"]);
    }
    if (options.take) buttons.push([takeArmed ? t("take_confirm") : t("take"), takeArmed ? "take armed" : "take", "take"]);
    if (options.pass) buttons.push([passIsDone(v, seat) ? t("done") : t("pass"), "pass", "pass"]);
    if (selected.length) buttons.push([t("cancel"), "ghost", "cancel"]);
    if (state.table?.practice && v.legal_actions?.length) buttons.push([t("hint"), "ghost", "hint"]);
  }
  draw({ buttons, disabled: inFlight });
}
