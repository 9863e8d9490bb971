// A table's option badges as elements (the ids come from options.js), for the lobby and the table.
import { t } from "./i18n.js";
import { optionBadges } from "./options.js";

/** A row of badges, each with its short text shown and its full meaning for screen readers. */
export function optionBadgeElements(options, speed) {
  const row = document.createElement("div");
  row.className = "option-badges";
  row.dataset.testid = "option-badges";
  for (const id of optionBadges(options, speed)) {
    const deck = id.startsWith("deck-") ? id.slice(5) : null;
    const badge = document.createElement("span");
    badge.className = `badge option-badge option-${deck ? "deck" : id}`;
    badge.dataset.option = id;
    const long = deck ? t("option_deck", { n: deck }) : t(`option_${id}`);
    badge.title = long;
    const short = document.createElement("span");
    short.setAttribute("aria-hidden", "true");
    short.textContent = deck ?? t(`badge_${id}`);
    const spoken = document.createElement("span");
    spoken.className = "visually-hidden";
    spoken.textContent = long;
    badge.append(short, spoken);
    row.append(badge);
  }
  return row;
}
