// A table's options (RULES.md §7: transfer, deck, who throws in, limits) and its speed, as the
// short badges the lobby and the table show, and the lobby's filter on them. Pure helpers.

/**
 * The badges of a table, in the order shown: the game (transfer or podkidnoy) and the deck
 * always, the defender's neighbours, classic limits and a fast speed only when chosen.
 * Each badge is an id: "transfer", "podkidnoy", "deck-24", "neighbours", "classic", "fast".
 */
export function optionBadges(options, speed) {
  const badges = [options.transfer ? "transfer" : "podkidnoy", `deck-${options.deck}`];
  if (options.throw_in === "neighbours") badges.push("neighbours");
  if (options.limit === "classic") badges.push("classic");
  if (speed === "fast") badges.push("fast");
  return badges;
}

/**
 * Whether a lobby table passes the filter. `filter` holds the form's values as strings, ""
 * for any: stakeMax (whole roubles), seats, free (bool), transfer ("on" / "off"), deck,
 * throw_in, limit, speed.
 */
export function tableVisible(table, filter) {
  const options = table.options || {};
  if (filter.stakeMax !== "" && table.stake > Number(filter.stakeMax) * 100) return false;
  if (filter.seats && table.seats !== Number(filter.seats)) return false;
  if (filter.free && table.taken >= table.seats) return false;
  if (filter.transfer && options.transfer !== (filter.transfer === "on")) return false;
  if (filter.deck && options.deck !== Number(filter.deck)) return false;
  if (filter.throw_in && options.throw_in !== filter.throw_in) return false;
  if (filter.limit && options.limit !== filter.limit) return false;
  if (filter.speed && table.speed !== filter.speed) return false;
  return true;
}
