// The move log beside the board: newest bout first, newest move first within it.
import { describeEvent } from "../../events.js";
import { t } from "../../i18n.js";
import { logBouts } from "../layout.js";
import { beatenOffPasses } from "../moves.js";
import { region } from "../region.js";
import { element } from "../dom.js";

const node = document.getElementById("log");

const draw = region(({ events }, nameOf) => {
  const items = [];
  const done = beatenOffPasses(events);
  const marked = events.map((event, index) => ({ ...event, beatenOff: done[index] }));
  logBouts(marked).reverse().forEach((bout, index) => {
    if (index) {
      const separator = element("li", "bout-sep");
      separator.setAttribute("aria-hidden", "true"); // a line between bouts, nothing to read
      items.push(separator);
    }
    const lines = bout.map((event) => {
      const item = element("li", event.automatic ? "auto" : "");
      item.append(describeEvent(event, { nameOf }));
      return item;
    });
    items.push(...lines.reverse());
  });
  if (!items.length) items.push(element("li", "muted", t("log_empty")));
  node.replaceChildren(...items);
});

export function renderLog({ state, nameOf }) {
  draw({ events: state.events || [], players: state.players || [] }, nameOf);
}
