// What the server played for the player while he was away, and when the page tells him so.

/** The kinds of the server's moves, in the order they are told. */
const KINDS = ["take", "pass", "lead"];

/**
 * «Пока вас не было: взяли 2 раза, пас 1 раз» from the state's `server_moves` counts, or null
 * when there are none. `t` and `tn` are the page's translators (i18n.js).
 */
export function serverMovesText(moves, { t, tn }) {
  const parts = KINDS.filter((kind) => moves?.[kind] > 0).map((kind) => tn(`server_${kind}`, moves[kind]));
  return parts.length ? t("away_summary", { moves: parts.join(", ") }) : null;
}

/**
 * Whether the away notice shows, and what. It shows while the player is marked away, and after
 * he comes back to the page (it opened, its socket reconnected or it woke) for as long as the
 * server's moves for him stand: a player who watched his throw-in window pass is not told.
 */
export class AwayWatch {
  constructor() {
    this.cameBack = true; // a page just opened is a return
  }

  /** The page is back: its socket reconnected, or it was shown again. */
  returned() {
    this.cameBack = true;
  }

  /** {away, moves} to show for `state` (moves null when not told), or null to hide. */
  notice(state) {
    const moves = state.server_moves;
    const any = Boolean(moves) && Object.values(moves).some((count) => count > 0);
    if (!any) this.cameBack = false;
    if (!state.view || state.view.finished) return null;
    const me = (state.players || []).find((player) => player.seat === state.you);
    const away = Boolean(me?.away);
    const told = any && (away || this.cameBack) ? moves : null;
    return away || told ? { away, moves: told } : null;
  }
}
