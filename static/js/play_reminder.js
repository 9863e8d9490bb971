// When to remind a player how long he has been playing. Pure: no DOM, no clock of its own.

const MINUTE = 60_000;

/** The moment (ms) of the next reminder after `now`, every `minutes` from `start`. */
export function nextReminderAt(start, now, minutes) {
  const every = minutes * MINUTE;
  const done = Math.max(0, Math.floor((now - start) / every));
  return start + (done + 1) * every;
}

/** Whole minutes played since `start`. */
export function minutesPlayed(start, now) {
  return Math.max(0, Math.floor((now - start) / MINUTE));
}
