// The lobby: open tables arrive over /ws/lobby/ and are filtered in the browser.
import { formatMoney, readJson, t } from "./i18n.js";
import { optionBadgeElements } from "./option_badges.js";
import { tableVisible } from "./options.js";
import { showInvite } from "./invites.js";
import { ReconnectingSocket, offlineMessage } from "./socket.js";

const list = document.getElementById("table-list");
const empty = document.getElementById("table-list-empty");
const filters = {
  stakeMax: document.getElementById("filter-stake-max"),
  seats: document.getElementById("filter-seats"),
  free: document.getElementById("filter-free"),
  transfer: document.getElementById("filter-transfer"),
  deck: document.getElementById("filter-deck"),
  throw_in: document.getElementById("filter-throw-in"),
  limit: document.getElementById("filter-limit"),
  speed: document.getElementById("filter-speed"),
};
// Filters apply as they change; Enter in the stake field must not submit the page away.
document.getElementById("filters").addEventListener("submit", (event) => event.preventDefault());
const urls = readJson("lobby-urls");
const joinTemplate = document.getElementById("join-form-template");
const tables = new Map((readJson("initial-tables", []) || []).map((table) => [table.id, table]));

function filterValues() {
  const values = Object.fromEntries(Object.entries(filters).map(([name, input]) => [name, input.value]));
  return { ...values, free: filters.free.checked };
}

function tile(table) {
  const node = document.createElement("article");
  node.className = `table-tile${table.taken >= table.seats ? " full" : ""}`;
  node.dataset.tableId = table.id;
  node.dataset.testid = "table-tile";
  const stake = document.createElement("div");
  stake.className = "stake";
  stake.textContent = formatMoney(table.stake);
  const meta = document.createElement("div");
  meta.className = "meta";
  const seats = document.createElement("span");
  seats.className = "seats-dots";
  seats.title = t("lobby_players", { taken: table.taken, seats: table.seats });
  for (let index = 0; index < table.seats; index += 1) {
    const dot = document.createElement("i");
    if (index < table.taken) dot.className = "taken";
    seats.append(dot);
  }
  const count = document.createElement("span");
  count.textContent = t("lobby_players", { taken: table.taken, seats: table.seats });
  const time = document.createElement("span");
  time.textContent = t("lobby_time", { turn: table.turn_seconds });
  meta.append(seats, count, time);
  if (table.min_reliability) {
    const reliability = document.createElement("span");
    reliability.dataset.testid = "table-min-reliability";
    reliability.textContent = t("lobby_min_reliability", { percent: `${table.min_reliability} %` });
    meta.append(reliability);
  }
  const badges = optionBadgeElements(table.options, table.speed);
  const players = document.createElement("div");
  players.className = "players";
  players.textContent = table.players.length ? table.players.join(", ") : t("lobby_nobody");
  const actions = document.createElement("div");
  actions.className = "actions";
  const open = document.createElement("a");
  open.className = "button small secondary";
  open.href = urls.table.replace("/0/", `/${table.id}/`);
  open.textContent = t("lobby_open");
  actions.append(open);
  if (table.taken < table.seats) {
    const form = joinTemplate.content.firstElementChild.cloneNode(true);
    form.setAttribute("action", form.getAttribute("action").replace("/0/", `/${table.id}/`));
    form.addEventListener("submit", () => form.querySelector("button").setAttribute("disabled", ""));
    actions.append(form);
  }
  node.append(stake, badges, meta, players, actions);
  return node;
}

function render() {
  const filter = filterValues();
  const shown = [...tables.values()].filter((table) => tableVisible(table, filter)).sort((a, b) => b.id - a.id);
  list.replaceChildren(...shown.map(tile));
  empty.hidden = shown.length > 0;
}

function onMessage(message) {
  if (message.type === "tables") {
    tables.clear();
    message.tables.forEach((table) => tables.set(table.id, table));
  } else if (message.type === "table") {
    tables.set(message.table.id, message.table);
  } else if (message.type === "table_removed") {
    tables.delete(message.id);
  } else if (message.type === "invite") {
    showInvite(message);
    return;
  } else {
    return;
  }
  render();
}

function onStatus(connected, attempt, code) {
  document.getElementById("live-dot").classList.toggle("on", connected);
  const label = connected ? t("lobby_live") : t(offlineMessage(attempt, code));
  document.getElementById("live-label").textContent = label;
}

Object.values(filters).forEach((input) => input.addEventListener("input", render));
new ReconnectingSocket("/ws/lobby/", { onMessage, onStatus });
render();
