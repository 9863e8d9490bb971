// Nicknames as the page shows them: a bot's account keeps its Russian nickname («Новичок 1»),
// shown in the page's language («Novice 1»). Pure, so that it is tested without a page.

/**
 * The nickname to show: a bot's with its level's name from `botWords` (the stored first word ->
 * the shown one), any other as it is. A signup nickname holds no space, so none reads as a bot's.
 */
export function shownNickname(nickname, botWords) {
  if (typeof nickname !== "string") return nickname;
  const match = /^(\S+) (\d+)$/.exec(nickname);
  if (!match || !Object.hasOwn(botWords, match[1])) return nickname;
  return `${botWords[match[1]]} ${match[2]}`;
}
