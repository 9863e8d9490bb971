// Pure wording of a finished game's result: signed amounts and a seat's own outcome.

/** `value` with its sign: "+12", "−8" (a true minus), "0"; `format` writes the magnitude. */
export function signed(value, format = String) {
  if (value > 0) return `+${format(value)}`;
  if (value < 0) return `\u2212${format(-value)}`;
  return format(0);
}

/** The result row of `seat`, or null for a spectator or a seat without one. */
export function ownPayout(result, seat) {
  if (!result || seat === null || seat === undefined) return null;
  return (result.payouts || []).find((row) => row.seat === seat) || null;
}
