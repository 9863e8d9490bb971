// A WebSocket that reconnects with exponential backoff and resyncs by version.

const MIN_DELAY_MS = 500;
const MAX_DELAY_MS = 15000;
const PING_EVERY_MS = 25000;
/** A socket that says nothing this long after the page woke is taken for dead and replaced. */
export const WAKE_ANSWER_MS = 3000;
/** The close code of a socket over the user's cap (docs/protocol.md). */
export const TOO_MANY_SOCKETS = 4429;
/** The close code of a socket whose server could not reach its database or Redis. */
export const SERVER_UNAVAILABLE = 4503;
/** The close code of a socket whose web process is restarting: come back at once. */
export const SERVER_RESTARTING = 4012;
/** Close codes after which retrying cannot help: not logged in, not allowed, no such table. */
const FINAL_CODES = new Set([4401, 4403, 4404]);

/**
 * How long to wait before reconnect attempt `attempt` (1, 2, …): doubling from MIN_DELAY_MS up
 * to MAX_DELAY_MS, each wait drawn from its upper half so that clients dropped together do not
 * all return at the same moment.
 */
export function retryDelay(attempt, random = Math.random) {
  const base = Math.min(MAX_DELAY_MS, MIN_DELAY_MS * 2 ** (attempt - 1));
  return base / 2 + random() * (base / 2);
}

/** What a socket's server sends first once it serves it: the table's state, the lobby's tables. */
const SERVING_MESSAGES = new Set(["state", "tables"]);

/**
 * Whether `message` shows the server serving this socket, so that the backoff starts over. An
 * opened socket does not: during an outage the server accepts and then closes it (4503), and a
 * backoff reset on every open would retry at its shortest step for the whole outage.
 */
export function provesConnection(message) {
  return SERVING_MESSAGES.has(message.type);
}

/**
 * The attempt count a close with `code` leaves for the next reconnect: a restarting server is
 * tried again at the shortest wait, whatever attempt the page had reached.
 */
export function attemptAfterClose(attempt, code) {
  return code === SERVER_RESTARTING ? 0 : attempt;
}

/** The key of the words that tell the player why he is offline (`attempt` < 0: for good). */
export function offlineMessage(attempt, code) {
  if (attempt < 0) return "connection_refused";
  if (code === TOO_MANY_SOCKETS) return "too_many_sockets";
  if (code === SERVER_UNAVAILABLE) return "server_unavailable";
  return "reconnecting";
}

export class ReconnectingSocket {
  /**
   * @param {string} path e.g. "/ws/table/5/"
   * @param {{onMessage: Function, onStatus?: Function, onOpen?: Function, onWake?: Function}} handlers
   *   onStatus(connected: boolean, attempt: number, code?: number): `code` is the close code
   *   (4429: the user has too many sockets open, 4503: the server's database or Redis is briefly
   *   away, 4012: the server restarts; all retried); onOpen() runs after every (re)connect;
   *   onWake() when the page woke with its socket still open (see wake()).
   */
  constructor(path, { onMessage, onStatus = () => {}, onOpen = () => {}, onWake = () => {} }) {
    const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
    this.url = `${scheme}//${window.location.host}${path}`;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.onOpen = onOpen;
    this.onWake = onWake;
    this.heardAt = 0; // when the socket last received anything (performance.now())
    this.attempt = 0;
    this.socket = null;
    this.closedForGood = false;
    this.pingTimer = null;
    this.connect();
    // A phone that slept, or came back from another app, or back online, is back at once.
    window.addEventListener("online", () => this.wake());
    window.addEventListener("pageshow", (event) => {
      if (event.persisted) this.wake();
    });
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.wake();
    });
  }

  get connected() {
    return this.socket !== null && this.socket.readyState === WebSocket.OPEN;
  }

  connect() {
    clearTimeout(this.retryTimer);
    const socket = new WebSocket(this.url);
    this.socket = socket;
    socket.addEventListener("open", () => {
      this.onStatus(true, 0);
      this.onOpen();
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.send({ type: "ping" }), PING_EVERY_MS);
    });
    socket.addEventListener("message", (event) => {
      this.heardAt = performance.now();
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (provesConnection(message)) this.attempt = 0;
      this.onMessage(message);
    });
    socket.addEventListener("close", (event) => {
      if (socket !== this.socket) return;
      clearInterval(this.pingTimer);
      if (FINAL_CODES.has(event.code)) {
        this.closedForGood = true;
        this.onStatus(false, -1, event.code);
        return;
      }
      this.attempt = attemptAfterClose(this.attempt, event.code);
      this.scheduleRetry(event.code);
    });
  }

  scheduleRetry(code) {
    this.attempt += 1;
    this.onStatus(false, this.attempt, code);
    this.retryTimer = setTimeout(() => this.connect(), retryDelay(this.attempt));
  }

  reconnectNow() {
    if (this.closedForGood || this.connected) return;
    if (this.socket && this.socket.readyState === WebSocket.CONNECTING) return;
    this.connect();
  }

  /**
   * The page woke. A closed socket reconnects now, not after its backoff. An open one may have
   * died while the page slept without knowing it: it is asked for a pong, onWake() asks for the
   * state at once, and if nothing at all comes back within WAKE_ANSWER_MS it is replaced.
   */
  wake() {
    if (this.closedForGood) return;
    if (!this.connected) {
      this.reconnectNow();
      return;
    }
    const socket = this.socket;
    const asked = performance.now();
    this.send({ type: "ping" });
    this.onWake();
    clearTimeout(this.wakeTimer);
    this.wakeTimer = setTimeout(() => {
      if (socket === this.socket && this.heardAt < asked) this.replace();
    }, WAKE_ANSWER_MS);
  }

  /** Drop a socket taken for dead (its close comes late or never) and connect a new one. */
  replace() {
    const dead = this.socket;
    this.socket = null;
    clearInterval(this.pingTimer);
    dead.close();
    this.onStatus(false, this.attempt + 1);
    this.connect();
  }

  /** Send a message; returns false when there is no open connection. */
  send(message) {
    if (!this.connected) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }
}
