// The table chat beside the board (a sheet over it on a phone): lines, quick phrases, emoji, mutes and reports.
// Every text a player wrote is put in with textContent: it is never read as markup.
import { t } from "../../i18n.js";
import { chatBlockedUntil, mergeChat, ownNickname, playsHere, visibleChat } from "../chat.js";
import { element, fromTemplate, slot } from "../dom.js";
import { region } from "../region.js";

// The screens where the chat is a sheet over the table (game.css): folded until opened.
const PHONE = "(max-width: 600px), (max-height: 500px) and (orientation: landscape)";
const box = document.getElementById("chat");
const list = slot(box, "lines");
const form = slot(box, "form");
const input = form.elements.text;
const unread = slot(box, "unread");
const spectatorNote = slot(box, "spectator");
const blockedNote = slot(box, "blocked");
const mutedBox = slot(box, "muted");
const mutedList = slot(box, "muted-list");
// Quick phrases are drawn by the page in the reader's language; lines name them by code.
const phraseLabels = Object.fromEntries(
  [...box.querySelectorAll("[data-phrase]")].map((button) => [button.dataset.phrase, button.textContent]),
);

const chat = { lines: [], muted: [], mutedUntil: null, reported: new Set(), me: undefined, plays: false };
let send = () => false;

/** Wire the chat to the socket: `sendMessage(message)` says whether it went out. */
export function bindChat(sendMessage) {
  send = sendMessage;
  if (window.matchMedia(PHONE).matches) box.open = false; // the board keeps the phone's screen
  box.addEventListener("toggle", () => {
    if (box.open) setUnread(0);
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (text && send({ type: "chat", text })) input.value = "";
  });
  box.addEventListener("click", (event) => {
    const button = event.target.closest("button");
    if (!button) return;
    if (button.dataset.phrase) send({ type: "chat_phrase", phrase: button.dataset.phrase });
    else if (button.dataset.emoji) insertEmoji(button.dataset.emoji);
    else if (button.dataset.act === "mute") send({ type: "chat_mute", nickname: button.dataset.nickname, muted: true });
    else if (button.dataset.act === "unmute") send({ type: "chat_mute", nickname: button.dataset.nickname, muted: false });
    else if (button.dataset.act === "report") send({ type: "chat_report", message: Number(button.dataset.id) });
  });
}

function insertEmoji(emoji) {
  const at = input.selectionStart ?? input.value.length;
  input.value = `${input.value.slice(0, at)}${emoji}${input.value.slice(input.selectionEnd ?? at)}`;
  input.focus();
  input.setSelectionRange(at + emoji.length, at + emoji.length);
}

/** Take a chat frame of the socket; true when it was one. */
export function receiveChat(message) {
  if (message.type === "chat_history") {
    chat.lines = mergeChat(chat.lines, message.messages);
    chat.muted = message.muted;
    chat.mutedUntil = message.muted_until;
  } else if (message.type === "chat") {
    chat.lines = mergeChat(chat.lines, [message]);
    if (!box.open && !chat.muted.includes(message.nickname)) setUnread(Number(unread.textContent || 0) + 1);
  } else if (message.type === "chat_mutes") {
    chat.muted = message.muted;
  } else if (message.type === "chat_reported") {
    chat.reported.add(message.message);
  } else {
    return false;
  }
  draw();
  return true;
}

/** A refusal from staff's mute says until when: show it in the chat too. */
export function chatRefused(error) {
  if (error.code === "chat_muted") blockedNote.textContent = error.message;
  blockedNote.hidden = error.code !== "chat_muted";
}

function setUnread(count) {
  unread.textContent = count ? String(count) : "";
  unread.hidden = !count;
}

/** Who may write follows the table: a spectator who sits down becomes a player. */
export function renderChat({ state }) {
  const me = ownNickname(state);
  const plays = playsHere(state);
  if (me === chat.me && plays === chat.plays) return;
  Object.assign(chat, { me, plays });
  draw();
}

const drawLines = region(({ lines, me, reported }) => {
  list.replaceChildren(
    ...lines.map((line) => {
      const item = fromTemplate("chat-line-template");
      item.dataset.id = line.id;
      slot(item, "nickname").textContent = line.nickname;
      slot(item, "text").textContent = line.phrase ? phraseLabels[line.phrase] ?? line.phrase : line.text;
      item.classList.toggle("phrase", Boolean(line.phrase));
      const tools = slot(item, "tools");
      if (line.nickname === me) {
        tools.remove();
        item.classList.add("mine");
      } else {
        for (const button of tools.querySelectorAll("button")) {
          button.dataset.nickname = line.nickname;
          button.dataset.id = line.id;
        }
        if (reported.includes(line.id)) {
          const report = tools.querySelector("[data-act=report]");
          report.disabled = true;
          report.textContent = t("chat_reported");
        }
      }
      return item;
    }),
  );
  if (!lines.length) list.append(element("li", "muted", t("chat_empty")));
  list.scrollTop = list.scrollHeight;
});

const drawMuted = region(({ muted }) => {
  mutedBox.hidden = !muted.length;
  mutedList.replaceChildren(
    ...muted.map((nickname) => {
      const item = element("li", "", nickname);
      const button = element("button", "link", t("chat_unmute"));
      Object.assign(button, { type: "button" });
      Object.assign(button.dataset, { act: "unmute", nickname, testid: "chat-unmute" });
      item.append(" ", button);
      return item;
    }),
  );
});

function draw() {
  const blocked = chatBlockedUntil(chat.mutedUntil, Date.now());
  spectatorNote.hidden = chat.plays;
  form.hidden = !chat.plays || Boolean(blocked);
  slot(box, "phrases").hidden = form.hidden;
  if (blocked) blockedNote.textContent = t("chat_blocked_until", { until: blocked.toLocaleString() });
  blockedNote.hidden = !blocked && blockedNote.hidden;
  drawLines({ lines: visibleChat(chat.lines, chat.muted), me: chat.me, reported: [...chat.reported] });
  drawMuted({ muted: chat.muted });
}
