// The table chat's rules, free of the page: which lines to keep and show, and who may write.

/** At most this many lines stay on the page. */
export const CHAT_KEEP = 100;

/** `lines` with `incoming` added: each message once (by id), oldest first, the latest CHAT_KEEP. */
export function mergeChat(lines, incoming) {
  const byId = new Map(lines.map((line) => [line.id, line]));
  for (const line of incoming) byId.set(line.id, line);
  return [...byId.values()].sort((a, b) => a.id - b.id).slice(-CHAT_KEEP);
}

/** The lines whose writers the reader has not muted. */
export function visibleChat(lines, muted) {
  const hidden = new Set(muted);
  return lines.filter((line) => !hidden.has(line.nickname));
}

/** Staff's mute, while it lasts: its end as a Date, else null. `now` in ms since the epoch. */
export function chatBlockedUntil(mutedUntil, now) {
  if (!mutedUntil) return null;
  const until = new Date(mutedUntil);
  return until.getTime() > now ? until : null;
}

/** Whether the viewer plays at the table (so may write): spectators have no seat. */
export function playsHere(state) {
  return state.you !== null && state.you !== undefined;
}

/** The viewer's own nickname, or null for a spectator. */
export function ownNickname(state) {
  if (!playsHere(state)) return null;
  return (state.players || []).find((player) => player.seat === state.you)?.nickname ?? null;
}
