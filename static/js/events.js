// Turn game events into sentences for the log and the replay: "Аня подкидывает 7♠".
import { cardSpan } from "./cards.js";
import { t } from "./i18n.js";

/**
 * Build a log line. `event` has seat, action, automatic, bout and lead (the server marks the
 * move that opened its bout, even when the log no longer reaches back to the bout's start),
 * and `beatenOff` for the leader's «Бито» pass; `nameOf(seat)` gives the nickname.
 * Returns a DocumentFragment so card codes can be coloured.
 */
export function describeEvent(event, { nameOf }) {
  const action = event.action || {};
  const name = nameOf(event.seat);
  const keyByType = {
    attack: event.lead ? "log_lead" : "log_throw",
    defend: "log_defend",
    transfer: "log_transfer",
    take: "log_take",
    pass: event.beatenOff ? "log_done" : "log_pass",
  };
  const key = keyByType[action.type] || "log_unknown";
  const template = t(key);
  const fragment = document.createDocumentFragment();
  const cards = (codes) => {
    const group = document.createDocumentFragment();
    (codes || []).forEach((code, index) => {
      if (index) group.append(" ");
      group.append(cardSpan(code));
    });
    return group;
  };
  const values = {
    name: () => document.createTextNode(name),
    cards: () => cards(action.cards),
    card: () => cards(action.card ? [action.card] : []),
    attack: () => cards(action.attack ? [action.attack] : []),
  };
  let last = 0;
  template.replace(/%\((\w+)\)s/g, (match, key, offset) => {
    fragment.append(template.slice(last, offset));
    fragment.append(values[key] ? values[key]() : match);
    last = offset + match.length;
    return match;
  });
  fragment.append(template.slice(last));
  if (event.automatic) fragment.append(` ${t("log_automatic")}`);
  return fragment;
}
