// A player's avatar drawn from his nickname alone: one or two letters on a colour of its own.

/** The letters and the hue (0-359) of `nickname`'s avatar; the same nickname, the same face. */
export function avatarOf(nickname) {
  const parts = nickname.split(/[._-]+/).filter(Boolean);
  const letters = parts.length > 1 ? parts[0][0] + parts[1][0] : nickname.slice(0, 2);
  let hash = 0;
  for (const char of nickname.toLowerCase()) hash = (hash * 31 + char.codePointAt(0)) % 3600;
  return { letters: letters.toUpperCase(), hue: hash % 360 };
}

/** Fill an avatar element for `nickname`. */
export function paintAvatar(node, nickname) {
  const { letters, hue } = avatarOf(nickname);
  node.textContent = letters;
  node.style.setProperty("--avatar-hue", String(hue));
}
