// The tournaments' pages: countdowns, and on one tournament's page its standings and the
// player's own game live over /ws/tournament/<id>/, with the tab's title calling him to it.
import { alertTitle, formatCountdown } from "./countdown.js";
import { formatMoney, readJson } from "./i18n.js";
import { ReconnectingSocket } from "./socket.js";

const strings = readJson("tournament-strings", {});
const fill = (text, params) => text.replace(/%\((\w+)\)s/g, (match, name) => params[name] ?? match);

function tick() {
  for (const node of document.querySelectorAll("[data-countdown]")) {
    const left = formatCountdown(Date.parse(node.dataset.countdown) - Date.now());
    node.textContent = left ? fill(strings.in, { time: left }) : strings.now;
  }
}
tick();
setInterval(tick, 1000);

const tournamentId = readJson("tournament-id");
if (tournamentId !== null) {
  const rows = document.getElementById("standings-rows");
  const gameLink = document.getElementById("current-game");
  const notice = document.getElementById("tournament-notice");
  const tableUrlZero = readJson("table-url-zero");
  const pageTitle = document.title;
  let shownTable = gameLink.hidden ? null : gameLink.getAttribute("href");

  const call = (text) => {
    notice.textContent = text;
    document.title = alertTitle(pageTitle, document.visibilityState === "visible" ? "" : text);
  };
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") document.title = pageTitle;
  });

  const cell = (text, className = "") => {
    const td = document.createElement("td");
    td.textContent = text;
    if (className) td.className = className;
    return td;
  };
  const statusBadge = document.getElementById("tournament-status");
  const unregister = document.getElementById("unregister-form");
  const countdownFact = document.getElementById("countdown-fact");
  const countdownLabel = document.getElementById("countdown-label");
  const countdown = document.getElementById("countdown");
  const render = (state) => {
    statusBadge.textContent = state.status_label;
    // From the start on, the countdown runs to the end.
    countdownFact.hidden = !state.countdown;
    if (state.countdown && state.countdown !== countdown.dataset.countdown) {
      countdown.dataset.countdown = state.countdown;
      if (state.status !== "registering") countdownLabel.textContent = countdownLabel.dataset.ends;
      tick();
    }
    // Once the tournament has started, an entry stays in it.
    if (unregister) unregister.hidden = state.status !== "registering";
    rows.replaceChildren(
      ...state.rows.map((row) => {
        const tr = document.createElement("tr");
        tr.append(
          cell(row.place),
          cell(row.streak ? `${row.nickname} 🔥` : row.nickname),
          cell(row.points, "num"),
          cell(row.games, "num"),
          cell(row.status_label),
          cell(row.prize ? formatMoney(row.prize) : "", "num"),
        );
        return tr;
      }),
    );
    const href = state.table ? tableUrlZero.replace("/0/", `/${state.table}/`) : null;
    gameLink.hidden = href === null;
    if (href) gameLink.href = href;
    if (href && href !== shownTable) call(strings.your_game);
    shownTable = href;
  };

  new ReconnectingSocket(`/ws/tournament/${tournamentId}/`, {
    onMessage(message) {
      if (message.type === "state") render(message);
      // Being called to one's own table says more than the start itself.
      else if (message.type === "started" && !shownTable) call(strings.started);
    },
    onStatus(connected) {
      if (!connected) notice.textContent = strings.offline;
      else if (notice.textContent === strings.offline) notice.textContent = "";
    },
  });
}
