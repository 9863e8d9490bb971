// Translated strings rendered by the server into <script type="application/json" id="ui-strings">.
import { formatAmount } from "./money.js";
import { pluralForm } from "./plural.js";
import { shownNickname } from "./nicknames.js";

const element = document.getElementById("ui-strings");
const strings = element ? JSON.parse(element.textContent) : {};

/** Translate `key`, filling %(name)s placeholders from `params`. */
export function t(key, params = {}) {
  return fill(strings[key] ?? key, params);
}

/** Translate `key`, a text with a number, in the plural form for `n`, filling its %(n)s. */
export function tn(key, n, params = {}) {
  const forms = strings[key];
  if (!forms) return key;
  return fill(pluralForm(forms, n, strings.__money?.language || "ru"), { n, ...params });
}

function fill(template, params) {
  return template.replace(/%\((\w+)\)s/g, (match, name) => (name in params ? String(params[name]) : match));
}

/** Read JSON rendered with Django's json_script. */
export function readJson(id, fallback = null) {
  const node = document.getElementById(id);
  return node ? JSON.parse(node.textContent) : fallback;
}

/** Minor units as the server shows them (static/js/money.js), in this page's unit. */
export function formatMoney(amount) {
  return formatAmount(amount, strings.__money || { language: "ru", sign: "₽" });
}

/** A nickname as this page's language shows it (a bot's in that language). */
export function nickname(name) {
  return shownNickname(name, strings.__bot_words || {});
}
