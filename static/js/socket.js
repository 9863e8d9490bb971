// A WebSocket that reconnects with exponential backoff and resyncs by version.

const MIN_DELAY_MS = 500;
const MAX_DELAY_MS = 15000;
const PING_EVERY_MS = 25000;
/** The close code of a socket over the user's cap (docs/protocol.md). */
export const TOO_MANY_SOCKETS = 4429;

export class ReconnectingSocket {
  /**
   * @param {string} path e.g. "/ws/table/5/"
   * @param {{onMessage: Function, onStatus?: Function, onOpen?: Function}} handlers
   *   onStatus(connected: boolean, attempt: number, code?: number): `code` is the close code
   *   (4429: the user has too many sockets open; retried); onOpen() runs after every (re)connect.
   */
  constructor(path, { onMessage, onStatus = () => {}, onOpen = () => {} }) {
    const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
    this.url = `${scheme}//${window.location.host}${path}`;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.onOpen = onOpen;
    this.attempt = 0;
    this.socket = null;
    this.closedForGood = false;
    this.pingTimer = null;
    this.connect();
    window.addEventListener("online", () => this.reconnectNow());
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible" && !this.connected) this.reconnectNow();
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
      this.attempt = 0;
      this.onStatus(true, 0);
      this.onOpen();
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.send({ type: "ping" }), PING_EVERY_MS);
    });
    socket.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      this.onMessage(message);
    });
    socket.addEventListener("close", (event) => {
      if (socket !== this.socket) return;
      clearInterval(this.pingTimer);
      // 4401: not logged in, 4403: not allowed, 4404: no such table — retrying will not help.
      if (event.code === 4401 || event.code === 4403 || event.code === 4404) {
        this.closedForGood = true;
        this.onStatus(false, -1, event.code);
        return;
      }
      this.scheduleRetry(event.code);
    });
  }

  scheduleRetry(code) {
    this.attempt += 1;
    this.onStatus(false, this.attempt, code);
    const base = Math.min(MAX_DELAY_MS, MIN_DELAY_MS * 2 ** (this.attempt - 1));
    const delay = base / 2 + Math.random() * (base / 2);
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  reconnectNow() {
    if (this.closedForGood || this.connected) return;
    if (this.socket && this.socket.readyState === WebSocket.CONNECTING) return;
    this.connect();
  }

  /** Send a message; returns false when there is no open connection. */
  send(message) {
    if (!this.connected) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }
}
