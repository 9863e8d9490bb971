// Pure rules for the signals a state change gives: whose turn it is, which sound to play.

/** Whether the state waits for the own seat's move. */
export function isMyTurn(state) {
  const view = state.view;
  const seat = Number.isInteger(state.you) ? state.you : null;
  return Boolean(view && !view.finished && seat !== null && (view.waiting_for || []).includes(seat));
}

const MOVE_SOUNDS = { attack: "play", transfer: "play", defend: "beat", take: "take" };

/** The one sound for the step from `previous` to `next`, or null. */
export function soundFor(previous, next) {
  if (!next.game) return null;
  const sameGame = previous.game?.id === next.game.id;
  if (next.result && !(sameGame && previous.result)) {
    const seat = Number.isInteger(next.you) ? next.you : null;
    if (seat === null || next.result.stalemate) return null;
    return next.result.durak === seat ? "lose" : "win";
  }
  if (isMyTurn(next) && !(sameGame && isMyTurn(previous))) return "turn";
  if (!sameGame) return null;
  const fresh = (next.events || []).filter((event) => event.version > (previous.version ?? 0));
  const last = fresh[fresh.length - 1];
  return (last && MOVE_SOUNDS[last.action?.type]) || null;
}
