// Countdowns to a tournament's start or end, and the page title that calls a player to his game.

/** `ms` left as "1 d 02:03:04", "02:03:04" or "03:04"; "" once it has passed. */
export function formatCountdown(ms) {
  if (!(ms > 0)) return "";
  const total = Math.ceil(ms / 1000);
  const days = Math.floor(total / 86400);
  const hours = Math.floor((total % 86400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  const two = (n) => String(n).padStart(2, "0");
  const clock = hours || days ? `${two(hours)}:${two(minutes)}:${two(seconds)}` : `${two(minutes)}:${two(seconds)}`;
  return days ? `${days} d ${clock}` : clock;
}

/**
 * The page title while a tournament calls the player: the call first, the page's own title
 * after; the title as it was once the call is answered (`call` empty).
 */
export function alertTitle(original, call) {
  return call ? `▶ ${call} — ${original}` : original;
}
