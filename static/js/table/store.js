// The table page's whole mutable state in one place: the server's state, the own selection,
// the move awaiting an answer, and the offset of the server's clock.

// The move log keeps the game's latest moves, as many as a full state carries.
const LOG_LIMIT = 200;

export class TableStore {
  // Private, so that nothing outside changes the store but through its methods.
  #state;
  #selected = []; // card codes chosen in the own hand
  #inFlight = null; // {version, timer} while a move awaits the server's answer
  #clockOffsetMs = 0; // server clock minus local clock
  #takeArmed = false; // «Взять» pressed once where the settings ask to confirm it
  // The own seat confirmed a rematch of the game shown (known from the state: a confirmation
  // sent while the socket was down posts the form, which reloads the page).
  #rematchAgreed;
  #rematchSent = false; // a confirmation sent over the socket awaits its answer
  #rematchShort = false; // the wallet could not hold the rematch's stake

  constructor(state) {
    this.#state = state;
    this.#rematchAgreed = Boolean(state.rematch?.confirmed?.includes(this.seat));
  }

  get state() {
    return this.#state;
  }

  get selected() {
    return this.#selected;
  }

  get inFlight() {
    return this.#inFlight;
  }

  get clockOffsetMs() {
    return this.#clockOffsetMs;
  }

  get takeArmed() {
    return this.#takeArmed;
  }

  get rematchAgreed() {
    return this.#rematchAgreed;
  }

  get rematchSent() {
    return this.#rematchSent;
  }

  get rematchShort() {
    return this.#rematchShort;
  }

  get view() {
    return this.state.view || null;
  }

  get seat() {
    return Number.isInteger(this.state.you) ? this.state.you : null;
  }

  get gameId() {
    return this.state.game?.id ?? null;
  }

  player(seat) {
    return (this.state.players || []).find((player) => player.seat === seat) || null;
  }

  /**
   * Whether a state message can be taken: a state that carries only the moves after
   * `events_from` (not 0: from the game's start) must follow the state held here, else a full
   * state must be asked for.
   */
  continues(message) {
    if (!Number.isInteger(message.events_from) || message.events_from === 0) return true;
    const current = this.state;
    return message.game?.id === current.game?.id && message.events_from === current.version;
  }

  /**
   * The `sync` message for the state held: the version and game it shows (0 for none), so the
   * server answers `unchanged` when it is the latest, and the whole state otherwise.
   */
  syncRequest() {
    return { type: "sync", version: this.state.version ?? 0, game: this.gameId ?? 0 };
  }

  /**
   * Take a state message from the server. Returns false (and changes nothing) for an older
   * snapshot of the same game that overtook a newer one. The moves of a state that carries
   * only the latest ones are added to the log held.
   */
  receive(message, nowMs = Date.now()) {
    const current = this.#state;
    if (typeof message.version === "number" && typeof current.version === "number"
        && message.version < current.version && message.game?.id === current.game?.id) {
      return false;
    }
    if (Number.isInteger(message.events_from)) {
      const { events_from: _from, ...rest } = message;
      const held = message.game?.id === current.game?.id && _from > 0 ? current.events || [] : [];
      message = { ...rest, events: [...held, ...message.events].slice(-LOG_LIMIT) };
    }
    this.#state = message;
    if (message.server_time) this.#clockOffsetMs = Date.parse(message.server_time) - nowMs;
    const hand = this.view?.hand || [];
    this.#selected = message.game?.id === current.game?.id ? this.#selected.filter((card) => hand.includes(card)) : [];
    this.#takeArmed = false;
    if (message.game?.id !== current.game?.id) this.#rematchAgreed = this.#rematchShort = false;
    if (message.rematch?.confirmed?.includes(this.seat)) this.#rematchAgreed = true;
    // Another player's confirmation may come first: only the own one (or a new game) answers.
    if (this.#rematchAgreed || message.game?.id !== current.game?.id) this.#rematchSent = false;
    this.endMove();
    return true;
  }

  select(cards) {
    this.#selected = [...cards];
  }

  /** «Взять» pressed once where the settings ask to confirm it: the next press takes. */
  armTake() {
    this.#takeArmed = true;
  }

  /** The player put off what he was about to do: no armed take, no selection. */
  clearChoice() {
    this.#takeArmed = false;
    this.#selected = [];
  }

  /** The own rematch confirmation went out over the socket and awaits its answer. */
  rematchRequested() {
    this.#rematchSent = true;
  }

  /**
   * The server refused the last request (error `code`): no move awaits an answer any more, a
   * rematch confirmation may be tried again, and one refused for its stake says so.
   */
  refused(code) {
    this.endMove();
    this.#rematchSent = false;
    if (code === "insufficient_funds") this.#rematchShort = true;
  }

  /** Remember a sent move; `onTimeout` runs if no answer came within `timeoutMs`. */
  beginMove(onTimeout, timeoutMs) {
    this.endMove();
    const timer = setTimeout(() => {
      this.#inFlight = null;
      onTimeout();
    }, timeoutMs);
    this.#inFlight = { version: this.#state.version, timer };
    this.#selected = [];
  }

  endMove() {
    if (this.#inFlight) clearTimeout(this.#inFlight.timer);
    this.#inFlight = null;
  }

  /** Seconds left until the state's deadline by the server's clock, or null without one. */
  secondsLeft(nowMs = Date.now()) {
    return this.secondsUntil(this.#state.deadline, nowMs);
  }

  /** Seconds left until the ISO time `when` by the server's clock, or null without one. */
  secondsUntil(when, nowMs = Date.now()) {
    if (!when) return null;
    return Math.max(0, (Date.parse(when) - (nowMs + this.#clockOffsetMs)) / 1000);
  }

  /** The rematch offer while its time lasts, else null. */
  openRematch(nowMs = Date.now()) {
    const rematch = this.#state.rematch;
    return rematch && this.secondsUntil(rematch.until, nowMs) > 0 ? rematch : null;
  }
}
