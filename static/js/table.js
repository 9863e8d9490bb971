// The live table: renders the server's state and sends moves over /ws/table/<id>/.
// The server decides everything; this code only shows the state and offers legal moves.
import { backElement, cardElement, rankOf, sortHand, SUIT_SYMBOLS } from "./cards.js";
import { describeEvent } from "./events.js";
import { formatMoney, readJson, t } from "./i18n.js";
import { ReconnectingSocket, TOO_MANY_SOCKETS } from "./socket.js";

const root = document.getElementById("table-app");
const tableId = Number(root.dataset.tableId);
const MOVE_TIMEOUT_MS = 8000;
const DRAG_THRESHOLD_PX = 6;
const HAND_GAP_PX = 6;
const HAND_MIN_VISIBLE_PX = 40; // of an overlapped card: its corner stays readable and a tap target

const els = {
  banner: document.getElementById("conn-banner"),
  toast: document.getElementById("toast"),
  info: document.getElementById("table-info"),
  opponents: document.getElementById("opponents"),
  deck: document.getElementById("deck"),
  playfield: document.getElementById("playfield"),
  status: document.getElementById("table-status"),
  me: document.getElementById("me"),
  hand: document.getElementById("hand"),
  actions: document.getElementById("actions"),
  log: document.getElementById("log"),
  fairness: document.getElementById("fairness"),
  result: document.getElementById("result"),
  seatButtons: document.getElementById("seat-buttons"),
};

let state = readJson("initial-state");
let selected = []; // card codes chosen in the own hand
let inFlight = null; // {version, timer} while a move awaits the server's answer
let serverOffsetMs = 0; // server clock minus local clock
let drag = null;
let lastBalanceVersion = null;

// ------------------------------------------------------------------ state helpers

const view = () => state.view || null;
const mySeat = () => (Number.isInteger(state.you) ? state.you : null);
const legal = () => (view() && view().legal_actions) || [];
const playerAt = (seat) => (state.players || []).find((player) => player.seat === seat) || null;
const nameOf = (seat) => playerAt(seat)?.nickname ?? t("seat_n", { n: seat + 1 });
const sameSet = (a, b) => a.length === b.length && [...a].sort().join() === [...b].sort().join();

function tableCards() {
  return (view()?.table || []).flatMap((pair) => [pair.attack, pair.defense].filter(Boolean));
}

/** What the own seat may do with its cards right now, derived from legal_actions. */
function moveOptions() {
  const options = { leads: [], throws: new Set(), beats: new Map(), transfers: new Set(), take: false, pass: false };
  for (const action of legal()) {
    if (action.type === "attack" && (view().table || []).length === 0) options.leads.push(action.cards);
    else if (action.type === "attack") action.cards.forEach((card) => options.throws.add(card));
    else if (action.type === "defend") {
      if (!options.beats.has(action.card)) options.beats.set(action.card, []);
      options.beats.get(action.card).push(action.attack);
    } else if (action.type === "transfer") action.cards.forEach((card) => options.transfers.add(card));
    else if (action.type === "take") options.take = true;
    else if (action.type === "pass") options.pass = true;
  }
  return options;
}

function playableCards(options) {
  const cards = new Set([...options.throws, ...options.beats.keys(), ...options.transfers]);
  options.leads.forEach((lead) => lead.forEach((card) => cards.add(card)));
  return cards;
}

/** The move the current selection makes when dropped on the table (not on a card), or null. */
function tableMove(options, cards = selected) {
  if (!cards.length) return null;
  if (options.leads.length) {
    return options.leads.some((lead) => sameSet(lead, cards)) ? { type: "attack", cards: [...cards] } : null;
  }
  if (cards.every((card) => options.transfers.has(card))) return { type: "transfer", cards: [...cards] };
  if (cards.every((card) => options.throws.has(card))) return { type: "attack", cards: [...cards] };
  return null;
}

// ------------------------------------------------------------------ sending moves

let socket = null;

function sendAction(action) {
  if (inFlight || !state.game) return;
  const sent = socket.send({ type: "act", action, version: state.version });
  if (!sent) {
    showToast(t("error_offline"), true);
    return;
  }
  const version = state.version;
  inFlight = {
    version,
    timer: setTimeout(() => {
      // No answer: ask for the current state instead of guessing.
      inFlight = null;
      socket.send({ type: "sync", version: state.version });
      render();
    }, MOVE_TIMEOUT_MS),
  };
  selected = [];
  render();
}

function clearInFlight() {
  if (inFlight) clearTimeout(inFlight.timer);
  inFlight = null;
}

function onMessage(message) {
  if (message.type === "state") {
    if (typeof message.version === "number" && typeof state.version === "number"
        && message.version < state.version && message.game?.id === state.game?.id) {
      return; // an older snapshot that overtook a newer one
    }
    const previousGame = state.game?.id;
    state = message;
    if (state.server_time) serverOffsetMs = Date.parse(state.server_time) - Date.now();
    if (previousGame !== state.game?.id) selected = [];
    selected = selected.filter((card) => (view()?.hand || []).includes(card));
    clearInFlight();
    render();
    maybeRefreshBalance();
  } else if (message.type === "error") {
    clearInFlight();
    showToast(t(`error_${message.code}`) !== `error_${message.code}` ? t(`error_${message.code}`) : message.message || t("error_generic"), true);
    render();
  }
}

// ------------------------------------------------------------------ rendering

function render() {
  renderInfo();
  renderSeats();
  renderDeck();
  renderPlayfield();
  renderHand();
  renderActions();
  renderLog();
  renderFairness();
  renderResult();
  renderSeatButtons();
  tick();
}

function renderInfo() {
  const table = state.table || {};
  const game = state.game;
  const players = game ? (state.players || []).length : takenSeats();
  const parts = [
    [t("stake"), formatMoney(table.stake || 0)],
    [t("bank"), formatMoney(state.result?.bank ?? (table.stake || 0) * players)],
  ];
  if (Number(table.commission_percent) > 0) {
    parts.push([t("commission"), `${Number(table.commission_percent)} %`]);
  }
  parts.push([t("turn_time"), `${table.turn_seconds} ${t("seconds_short")}`]);
  parts.push([t("throw_time"), `${table.throw_seconds} ${t("seconds_short")}`]);
  els.info.replaceChildren(
    ...parts.map(([label, value]) => {
      const item = document.createElement("span");
      item.className = "item";
      item.append(`${label}: `);
      const strong = document.createElement("strong");
      strong.textContent = value;
      item.append(strong);
      return item;
    }),
  );
}

function takenSeats() {
  return (state.players || []).filter((player) => player.nickname).length;
}

/** Seats in display order: the own seat first (shown at the bottom), the rest clockwise. */
function displayOrder() {
  const total = state.table?.seats || (state.players || []).length;
  const start = mySeat() ?? 0;
  return Array.from({ length: total }, (_, index) => (start + index) % total);
}

function seatElement(seat, { isMe = false } = {}) {
  const player = playerAt(seat);
  const v = view();
  const node = document.createElement("div");
  node.className = "seat";
  node.dataset.seat = seat;
  node.dataset.testid = isMe ? "my-seat" : "seat";
  if (!player || !player.nickname) {
    node.classList.add("empty");
    node.textContent = t("free_seat");
    return node;
  }
  const waiting = v && !v.finished && (v.waiting_for || []).includes(seat);
  if (waiting) node.classList.add("waiting");
  const out = v && (v.out || []).includes(seat);
  if (out) node.classList.add("out");

  const name = document.createElement("div");
  name.className = "name";
  const dot = document.createElement("span");
  dot.className = `status-dot${player.connected === false ? " off" : ""}`;
  dot.title = player.connected === false ? t("disconnected") : t("connected");
  name.append(dot, document.createTextNode(player.nickname));
  name.title = player.nickname; // narrow seats cut long nicknames short
  node.append(name);

  const roles = document.createElement("div");
  roles.className = "roles";
  const role = (cls, text) => {
    const span = document.createElement("span");
    span.className = `role ${cls}`;
    span.textContent = text;
    roles.append(span);
  };
  if (v && !v.finished) {
    if (out) role("out", t("role_out"));
    else if (v.attacker === seat) role("attack", t("role_attacker"));
    if (!out && v.defender === seat) role(v.taking ? "taking" : "defend", v.taking ? t("role_taking") : t("role_defender"));
    if ((v.passed || []).includes(seat)) role("passed", t("role_passed"));
  }
  if (player.away) role("away", t("role_away"));
  if (player.connected === false) role("offline", t("role_offline"));
  node.append(roles);

  if (!isMe && v) {
    const count = (v.hand_sizes || [])[seat] || 0;
    const backs = document.createElement("div");
    backs.className = "backs";
    backs.dataset.testid = "card-count";
    for (let index = 0; index < Math.min(count, 8); index += 1) backs.append(backElement("small"));
    const label = document.createElement("span");
    label.className = "count";
    label.textContent = String(count);
    backs.append(label);
    node.append(backs);
  }
  if (waiting && state.deadline) {
    const timer = document.createElement("div");
    timer.className = "timer";
    timer.append(document.createElement("i"));
    const label = document.createElement("div");
    label.className = "timer-label";
    node.append(timer, label);
  }
  return node;
}

function renderSeats() {
  const order = displayOrder();
  const mine = mySeat();
  const others = mine === null ? order : order.slice(1);
  els.opponents.replaceChildren(...others.map((seat) => seatElement(seat)));
  els.opponents.dataset.count = String(others.length);
  const meSeat = els.me.querySelector(".seat");
  if (mine !== null) {
    const node = seatElement(mine, { isMe: true });
    if (meSeat) meSeat.replaceWith(node);
    else els.me.prepend(node);
  } else if (meSeat) {
    meSeat.remove();
  }
}

function renderDeck() {
  const v = view();
  if (!v) {
    els.deck.replaceChildren();
    return;
  }
  const stack = document.createElement("div");
  stack.className = "stack";
  if (v.trump_card && (v.talon_size > 0 || v.players === 6)) {
    const trump = cardElement(v.trump_card);
    trump.classList.add("trump");
    stack.append(trump);
  }
  if (v.talon_size > 1) {
    const back = backElement();
    back.classList.add("back");
    stack.append(back);
  }
  const label = document.createElement("div");
  label.className = "label";
  label.dataset.testid = "talon";
  label.textContent = `${t("talon")}: ${v.talon_size}`;
  const suit = document.createElement("div");
  suit.className = "label";
  const symbol = document.createElement("span");
  symbol.className = `suit-big${"DH".includes(v.trump_suit) ? " card-text red" : ""}`;
  symbol.textContent = SUIT_SYMBOLS[v.trump_suit];
  suit.append(`${t("trump")} `, symbol);
  els.deck.replaceChildren(stack, label, suit);
}

function renderPlayfield() {
  const v = view();
  const options = v ? moveOptions() : null;
  els.playfield.replaceChildren();
  els.playfield.classList.remove("target");
  if (!v) {
    els.playfield.append(waitingBox());
    return;
  }
  const targets = new Set();
  if (selected.length === 1 && options.beats.has(selected[0])) {
    options.beats.get(selected[0]).forEach((attack) => targets.add(attack));
  }
  for (const pair of v.table || []) {
    const node = document.createElement("div");
    node.className = "pair";
    const attack = cardElement(pair.attack, { trump: pair.attack[1] === v.trump_suit });
    attack.classList.add("attack");
    if (targets.has(pair.attack) && !inFlight) attack.classList.add("target");
    node.append(attack);
    if (pair.defense) {
      const defense = cardElement(pair.defense, { trump: pair.defense[1] === v.trump_suit });
      defense.classList.add("defense");
      node.append(defense);
    }
    els.playfield.append(node);
  }
  if (!(v.table || []).length && !v.finished) {
    const notice = document.createElement("div");
    notice.className = "notice";
    notice.textContent = mySeat() !== null && v.attacker === mySeat() ? t("drop_here") : t("lead_by", { name: nameOf(v.attacker) });
    els.playfield.append(notice);
  }
  if (!inFlight && tableMove(options)) {
    els.playfield.classList.add("target");
    const hint = document.createElement("div");
    hint.className = "hint";
    hint.textContent = t("hint_click_table");
    els.playfield.append(hint);
  } else if (!inFlight && targets.size) {
    const hint = document.createElement("div");
    hint.className = "hint";
    hint.textContent = t("hint_click_card");
    els.playfield.append(hint);
  }
  els.status.textContent = statusLine(v);
}

function statusLine(v) {
  if (v.finished) return t("game_over");
  if (inFlight) return t("sending");
  const mine = mySeat();
  const waiting = v.waiting_for || [];
  if (mine !== null && waiting.includes(mine)) {
    if (v.defender === mine && !v.taking) return t("you_defend");
    if ((v.table || []).length === 0) return t("your_lead");
    if (v.taking) return t("you_may_throw_taking");
    return passLabelIsDone(v) ? t("you_may_throw_done") : t("you_may_throw_pass");
  }
  if (!waiting.length) return "";
  const names = waiting.map(nameOf).join(", ");
  return t("waiting_for", { names });
}

/** Russian players say "Бито" for the attacker's side when all is beaten, "Пас" for the rest. */
function passLabelIsDone(v) {
  return v.attacker === mySeat() && !v.taking;
}

function waitingBox() {
  const box = document.createElement("div");
  box.className = "waiting-box";
  const taken = takenSeats();
  const total = state.table?.seats || 0;
  const big = document.createElement("div");
  big.className = "big";
  const spinner = document.createElement("span");
  spinner.className = "spinner";
  big.append(spinner, " ", t("waiting_players", { taken, total }));
  const progress = document.createElement("div");
  progress.className = "progress";
  const bar = document.createElement("i");
  bar.style.width = `${total ? (100 * taken) / total : 0}%`;
  progress.append(bar);
  box.append(big, progress);
  if (state.table?.status === "closed") big.replaceChildren(t("table_closed"));
  return box;
}

function renderHand() {
  const v = view();
  els.hand.replaceChildren();
  els.me.hidden = !v && mySeat() === null;
  if (!v) return;
  if (mySeat() === null) {
    els.hand.append(Object.assign(document.createElement("div"), { className: "muted", textContent: t("spectating") }));
    return;
  }
  const options = moveOptions();
  const playable = playableCards(options);
  const cards = sortHand(v.hand || [], v.trump_suit).map((code) => {
    const card = cardElement(code, { trump: code[1] === v.trump_suit });
    const canPlay = playable.has(code) && !inFlight;
    card.classList.add(canPlay ? "playable" : "disabled");
    if (selected.includes(code)) card.classList.add("selected");
    card.setAttribute("role", "button");
    card.tabIndex = canPlay ? 0 : -1;
    card.setAttribute("aria-disabled", canPlay ? "false" : "true");
    card.setAttribute("aria-pressed", selected.includes(code) ? "true" : "false");
    return card;
  });
  els.hand.append(...handRows(cards));
}

/**
 * Lay the hand out in as few rows as keep every card's corner readable and tappable:
 * cards spread out when there is room and overlap (then wrap into more rows) when there is not.
 */
function handRows(cards) {
  const style = getComputedStyle(els.hand);
  const cardWidth = parseFloat(style.getPropertyValue("--card-w")) || 74;
  const available = els.hand.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const perRowMax = available > cardWidth ? Math.floor((available - cardWidth) / HAND_MIN_VISIBLE_PX) + 1 : cards.length;
  const rows = Math.max(1, Math.ceil(cards.length / Math.max(1, perRowMax)));
  const perRow = Math.ceil(cards.length / rows);
  const step = perRow > 1 && available > cardWidth
    ? Math.min(cardWidth + HAND_GAP_PX, (available - cardWidth) / (perRow - 1))
    : cardWidth + HAND_GAP_PX;
  els.hand.style.setProperty("--hand-overlap", `${Math.floor(step - cardWidth)}px`);
  return Array.from({ length: rows }, (_, row) => {
    const node = document.createElement("div");
    node.className = "hand-row";
    node.append(...cards.slice(row * perRow, (row + 1) * perRow));
    return node;
  });
}

function button(text, cls, onClick, testid) {
  const node = document.createElement("button");
  node.type = "button";
  node.className = cls;
  node.textContent = text;
  node.dataset.testid = testid;
  node.disabled = Boolean(inFlight);
  node.addEventListener("click", onClick);
  return node;
}

function renderActions() {
  const v = view();
  els.actions.replaceChildren();
  if (!v || mySeat() === null || v.finished) return;
  const options = moveOptions();
  const move = tableMove(options);
  if (move) {
    const label = move.type === "transfer" ? t("do_transfer") : options.leads.length ? t("do_lead") : t("do_throw");
    els.actions.append(button(label, "play", () => sendAction(move), "play"));
  }
  if (options.take) els.actions.append(button(t("take"), "take", () => sendAction({ type: "take" }), "take"));
  if (options.pass) {
    els.actions.append(button(passLabelIsDone(v) ? t("done") : t("pass"), "pass", () => sendAction({ type: "pass" }), "pass"));
  }
  if (selected.length) {
    els.actions.append(button(t("cancel"), "ghost", () => { selected = []; render(); }, "cancel"));
  }
}

/** The game's moves the server sent (its latest ones), grouped by bout, oldest first. */
function logBouts() {
  const bouts = [];
  for (const event of state.events || []) {
    const last = bouts[bouts.length - 1];
    if (last && last[0].bout === event.bout) last.push(event);
    else bouts.push([event]);
  }
  return bouts;
}

function renderLog() {
  const items = [];
  logBouts().reverse().forEach((events, index) => {
    if (index) items.push(Object.assign(document.createElement("li"), { className: "bout-sep", role: "separator" }));
    const lines = events.map((event) => {
      const item = document.createElement("li");
      if (event.automatic) item.classList.add("auto");
      item.append(describeEvent(event, { nameOf }));
      return item;
    });
    items.push(...lines.reverse()); // newest first
  });
  els.log.replaceChildren(...items);
  if (!items.length) {
    els.log.append(Object.assign(document.createElement("li"), { className: "muted", textContent: t("log_empty") }));
  }
}

function renderFairness() {
  const game = state.game;
  els.fairness.hidden = !game;
  if (!game) return;
  els.fairness.querySelector("[data-field=hash]").textContent = game.seed_hash || "—";
  els.fairness.querySelector("[data-field=seed]").textContent = game.seed || t("seed_hidden");
  const link = els.fairness.querySelector("[data-field=link]");
  link.hidden = !game.seed;
  link.href = root.dataset.gameUrl.replace("/0/", `/${game.id}/`);
}

function renderResult() {
  const result = state.result;
  const appearing = Boolean(result) && els.result.hidden;
  els.result.hidden = !result;
  if (!result) return;
  // On a phone the board fills the screen: bring the result into view when the game ends.
  if (appearing) requestAnimationFrame(() => els.result.scrollIntoView({ block: "nearest" }));
  els.result.replaceChildren();
  const box = document.createElement("div");
  box.className = "result";
  box.dataset.testid = "result";
  const title = document.createElement("h2");
  title.textContent = t("result_title");
  const headline = document.createElement("div");
  headline.className = "headline";
  headline.dataset.testid = "result-headline";
  if (result.stalemate) headline.textContent = t("result_stalemate");
  else if (result.durak === null || result.durak === undefined) headline.textContent = t("result_draw");
  else headline.textContent = t("result_durak", { name: nameOf(result.durak) });
  const table = document.createElement("table");
  const head = table.createTHead().insertRow();
  [t("place"), t("player"), t("percent"), t("payout")].forEach((text, index) => {
    const th = document.createElement("th");
    th.textContent = text;
    if (index >= 2) th.className = "num";
    head.append(th);
  });
  const body = table.createTBody();
  for (const row of result.payouts || []) {
    const tr = body.insertRow();
    if (row.seat === result.durak) tr.classList.add("durak");
    if (row.seat === mySeat()) tr.classList.add("mine");
    const medal = document.createElement("span");
    medal.className = `place-medal p${row.place}`;
    medal.textContent = row.seat === result.durak ? t("durak_short") : String(row.place);
    tr.insertCell().append(medal);
    tr.insertCell().textContent = row.nickname ?? nameOf(row.seat);
    const percent = tr.insertCell();
    percent.className = "num";
    percent.textContent = `${Number(row.percent).toLocaleString(document.documentElement.lang, { maximumFractionDigits: 2 })} %`;
    const amount = tr.insertCell();
    amount.className = "num";
    amount.textContent = formatMoney(row.amount);
  }
  box.append(title, headline, table);
  if (result.commission) {
    const commission = document.createElement("p");
    commission.className = "muted";
    commission.textContent = `${t("commission")}: ${formatMoney(result.commission)}`;
    box.append(commission);
  }
  box.append(rematchBlock(result));
  els.result.append(box);
}

function rematchBlock(result) {
  const block = document.createElement("div");
  block.className = "rematch";
  const confirmed = state.rematch?.confirmed || [];
  const total = (state.players || []).length;
  const info = document.createElement("div");
  info.dataset.testid = "rematch-info";
  info.textContent = confirmed.length
    ? t("rematch_confirmed", { names: confirmed.map((seat) => nameOf(seat)).join(", "), count: confirmed.length, total })
    : t("rematch_none");
  if (mySeat() !== null && state.rematch) {
    const form = document.getElementById("rematch-form-template").content.firstElementChild.cloneNode(true);
    form.setAttribute("action", form.getAttribute("action").replace("/0/", `/${state.game.id}/`));
    const submit = form.querySelector("button");
    if (confirmed.includes(mySeat())) {
      submit.disabled = true;
      submit.textContent = t("rematch_waiting");
    }
    block.append(form);
  }
  block.append(info);
  return block;
}

function renderSeatButtons() {
  const status = state.table?.status;
  const seated = (state.players || []).some((player) => player.seat === mySeat() && player.nickname)
    && (state.table?.status === "open" || Boolean(state.rematch?.confirmed?.includes(mySeat())));
  const join = els.seatButtons.querySelector("[data-role=join]");
  const leave = els.seatButtons.querySelector("[data-role=leave]");
  if (join) join.hidden = !(status === "open" && !seated && takenSeats() < (state.table?.seats || 0));
  if (leave) leave.hidden = !seated;
  const invite = document.getElementById("invite");
  if (invite) {
    const code = state.table?.invite_code;
    invite.hidden = !(code && status === "open");
    if (code) invite.querySelector("input").value = `${window.location.origin}${window.location.pathname}?invite=${encodeURIComponent(code)}`;
  }
}

// ------------------------------------------------------------------ countdown

function tick() {
  const deadline = state.deadline ? Date.parse(state.deadline) : null;
  const v = view();
  const total = (state.deadline_kind === "throw" ? state.table?.throw_seconds : state.table?.turn_seconds) || 30;
  const now = Date.now() + serverOffsetMs;
  const left = deadline ? Math.max(0, (deadline - now) / 1000) : 0;
  document.querySelectorAll(".seat.waiting").forEach((seat) => {
    const bar = seat.querySelector(".timer > i");
    const label = seat.querySelector(".timer-label");
    if (!bar) return;
    bar.style.width = `${Math.min(100, (100 * left) / total)}%`;
    seat.querySelector(".timer").classList.toggle("urgent", left <= 5);
    label.textContent = `${Math.ceil(left)} ${t("seconds_short")}`;
  });
}
setInterval(tick, 250);
window.addEventListener("resize", () => renderHand());

// ------------------------------------------------------------------ balance in the header

async function maybeRefreshBalance() {
  // Money moves when a game starts or ends; refresh the header then.
  const key = `${state.game?.id}:${state.game?.status}:${state.table?.status}`;
  if (key === lastBalanceVersion) return;
  lastBalanceVersion = key;
  const target = document.getElementById("header-balance");
  if (!target || !root.dataset.balanceUrl) return;
  try {
    const response = await fetch(root.dataset.balanceUrl, { headers: { Accept: "application/json" } });
    if (response.ok) target.textContent = (await response.json()).formatted;
  } catch {
    // The next state change tries again.
  }
}

// ------------------------------------------------------------------ toast and banner

let toastTimer = null;
function showToast(text, isError = false) {
  els.toast.textContent = text;
  els.toast.classList.toggle("error", isError);
  els.toast.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { els.toast.hidden = true; }, 3500);
}

function connectionProblem(attempt, code) {
  if (attempt < 0) return t("connection_refused");
  return code === TOO_MANY_SOCKETS ? t("too_many_sockets") : t("reconnecting");
}

function onStatus(connected, attempt, code) {
  els.banner.hidden = connected;
  if (!connected) els.banner.textContent = connectionProblem(attempt, code);
  if (!connected) clearInFlight();
  document.body.classList.toggle("offline", !connected);
}

// ------------------------------------------------------------------ click and drag

function toggleSelect(code) {
  const options = moveOptions();
  if (!playableCards(options).has(code) || inFlight) return;
  if (selected.includes(code)) {
    selected = selected.filter((card) => card !== code);
  } else if (options.leads.length) {
    // A lead is one rank: choosing another rank starts a new selection.
    selected = selected.length && rankOf(selected[0]) === rankOf(code) ? [...selected, code] : [code];
  } else if (options.beats.has(code) && !options.transfers.has(code)) {
    selected = [code];
  } else {
    const together = [...selected, code];
    selected = tableMove(options, together) ? together : [code];
  }
  render();
}

function playOn(targetAttack, cards = selected) {
  const options = moveOptions();
  if (targetAttack) {
    if (cards.length === 1 && (options.beats.get(cards[0]) || []).includes(targetAttack)) {
      sendAction({ type: "defend", attack: targetAttack, card: cards[0] });
      return true;
    }
  }
  const move = tableMove(options, cards);
  if (move) {
    sendAction(move);
    return true;
  }
  return false;
}

els.hand.addEventListener("keydown", (event) => {
  const card = event.target.closest(".pcard");
  if (card && (event.key === "Enter" || event.key === " ")) {
    event.preventDefault();
    toggleSelect(card.dataset.card);
  }
});

els.playfield.addEventListener("click", (event) => {
  if (drag?.moved) return;
  const attack = event.target.closest(".pcard.attack");
  if (!selected.length) return;
  if (!playOn(attack ? attack.dataset.card : null) && attack) showToast(t("error_cannot_beat"), true);
});

els.hand.addEventListener("pointerdown", (event) => {
  const card = event.target.closest(".pcard.playable");
  if (!card || event.button > 0) return;
  drag = { code: card.dataset.card, startX: event.clientX, startY: event.clientY, moved: false, ghost: null, pointerId: event.pointerId };
  card.setPointerCapture(event.pointerId);
});

els.hand.addEventListener("pointermove", (event) => {
  if (!drag || event.pointerId !== drag.pointerId) return;
  const dx = event.clientX - drag.startX;
  const dy = event.clientY - drag.startY;
  if (!drag.moved && Math.hypot(dx, dy) < DRAG_THRESHOLD_PX) return;
  if (!drag.moved) {
    drag.moved = true;
    drag.cards = selected.includes(drag.code) ? [...selected] : [drag.code];
    const ghost = document.createElement("div");
    ghost.className = "drag-ghost";
    drag.cards.forEach((code) => ghost.append(cardElement(code)));
    document.body.append(ghost);
    drag.ghost = ghost;
    drag.cards.forEach((code) => els.hand.querySelector(`[data-card="${code}"]`)?.classList.add("dragging"));
  }
  drag.ghost.style.left = `${event.clientX - 30}px`;
  drag.ghost.style.top = `${event.clientY - 50}px`;
  const under = document.elementFromPoint(event.clientX, event.clientY);
  document.querySelectorAll(".drop-hover").forEach((node) => node.classList.remove("drop-hover"));
  const attack = under?.closest(".pcard.attack");
  if (attack) attack.classList.add("drop-hover");
  else under?.closest("#playfield")?.classList.add("drop-hover");
});

function endDrag(event, cancelled) {
  if (!drag || event.pointerId !== drag.pointerId) return;
  const current = drag;
  drag = null;
  document.querySelectorAll(".drop-hover").forEach((node) => node.classList.remove("drop-hover"));
  if (!current.moved) {
    if (!cancelled) toggleSelect(current.code);
    return;
  }
  current.ghost.remove();
  const under = cancelled ? null : document.elementFromPoint(event.clientX, event.clientY);
  const attack = under?.closest(".pcard.attack");
  const onTable = under?.closest("#playfield");
  if (onTable && playOn(attack ? attack.dataset.card : null, current.cards)) return;
  if (onTable) showToast(t("error_illegal_drop"), true);
  render();
}
els.hand.addEventListener("pointerup", (event) => endDrag(event, false));
els.hand.addEventListener("pointercancel", (event) => endDrag(event, true));

// ------------------------------------------------------------------ invite link copy

document.querySelectorAll("[data-copy]").forEach((node) => {
  node.addEventListener("click", async () => {
    const input = document.getElementById(node.dataset.copy);
    input.select();
    try {
      await navigator.clipboard.writeText(input.value);
    } catch {
      document.execCommand("copy");
    }
    showToast(t("copied"));
  });
});

// ------------------------------------------------------------------ start

// An invitee who has not sat down yet may watch a private table with the page's invitation.
const inviteCode = new URLSearchParams(window.location.search).get("invite");
const socketPath = `/ws/table/${tableId}/${inviteCode ? `?invite=${encodeURIComponent(inviteCode)}` : ""}`;
socket = new ReconnectingSocket(socketPath, {
  onMessage,
  onStatus,
  onOpen: () => socket.send({ type: "sync", version: state.version ?? 0 }),
});
window.durakTable = { get state() { return state; }, get inFlight() { return Boolean(inFlight); }, get connected() { return socket.connected; } };
render();
