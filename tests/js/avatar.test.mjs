// Avatars from nicknames (static/js/avatar.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { avatarOf } from "../../static/js/avatar.js";

test("an avatar takes the first letters of the nickname's parts, or its first two", () => {
  assert.equal(avatarOf("anna").letters, "AN");
  assert.equal(avatarOf("ivan.petrov").letters, "IP");
  assert.equal(avatarOf("жора_кот").letters, "ЖК");
});

test("the same nickname always gets the same colour, others mostly another", () => {
  assert.equal(avatarOf("anna").hue, avatarOf("anna").hue);
  assert.equal(avatarOf("Anna").hue, avatarOf("anna").hue);
  const hues = new Set(["anna", "boris", "vera", "gleb", "dina", "egor"].map((name) => avatarOf(name).hue));
  assert.ok(hues.size >= 5);
  for (const hue of hues) assert.ok(hue >= 0 && hue < 360);
});
