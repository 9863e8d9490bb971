// What the away notice tells a player about the server's moves for him (static/js/table/server-moves.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { pluralForm } from "../../static/js/plural.js";
import { AwayWatch, serverMovesText } from "../../static/js/table/server-moves.js";

const RUSSIAN = {
  away_summary: "Пока вас не было: %(moves)s",
  server_take: { one: "взяли %(n)s раз", few: "взяли %(n)s раза", many: "взяли %(n)s раз" },
  server_pass: { one: "пас %(n)s раз", few: "пас %(n)s раза", many: "пас %(n)s раз" },
  server_lead: { one: "сходили младшей картой %(n)s раз", few: "сходили младшей картой %(n)s раза", many: "сходили младшей картой %(n)s раз" },
};
const fill = (template, params) => template.replace(/%\((\w+)\)s/g, (match, name) => String(params[name] ?? match));
const translators = {
  t: (key, params) => fill(RUSSIAN[key], params),
  tn: (key, n) => fill(pluralForm(RUSSIAN[key], n, "ru"), { n }),
};

test("the server's moves are told by kind with the right plural forms", () => {
  assert.equal(serverMovesText({ take: 2, pass: 1, lead: 0 }, translators), "Пока вас не было: взяли 2 раза, пас 1 раз");
  assert.equal(
    serverMovesText({ take: 5, pass: 22, lead: 1 }, translators),
    "Пока вас не было: взяли 5 раз, пас 22 раза, сходили младшей картой 1 раз",
  );
  assert.equal(serverMovesText({ take: 0, pass: 0, lead: 0 }, translators), null);
  assert.equal(serverMovesText(null, translators), null);
});

const NONE = { take: 0, pass: 0, lead: 0 };
const playing = (moves, away = false) => ({
  you: 1,
  players: [{ seat: 0, away: false }, { seat: 1, away }],
  view: { finished: false },
  server_moves: moves,
});

test("a player who comes back is told what the server did for him", () => {
  const watch = new AwayWatch();
  assert.deepEqual(watch.notice(playing({ ...NONE, take: 1 })), { away: false, moves: { ...NONE, take: 1 } });
  // He acted: nothing more to tell.
  assert.equal(watch.notice(playing(NONE)), null);
});

test("a player who watched his throw-in window pass is not told, unless marked away", () => {
  const watch = new AwayWatch();
  assert.equal(watch.notice(playing(NONE)), null);
  assert.equal(watch.notice(playing({ ...NONE, pass: 1 })), null);
  assert.deepEqual(watch.notice(playing({ ...NONE, pass: 2 }, true)), { away: true, moves: { ...NONE, pass: 2 } });
  // His page woke or reconnected: now he is told.
  const lone = new AwayWatch();
  lone.notice(playing(NONE));
  lone.returned();
  assert.deepEqual(lone.notice(playing({ ...NONE, pass: 1 })), { away: false, moves: { ...NONE, pass: 1 } });
});

test("nothing is told over a finished game or to a spectator", () => {
  const watch = new AwayWatch();
  assert.equal(watch.notice({ ...playing({ ...NONE, take: 1 }, true), view: { finished: true } }), null);
  assert.equal(watch.notice({ you: null, players: [], view: { finished: false }, server_moves: null }), null);
});
