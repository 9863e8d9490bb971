// Translated strings rendered by the server into <script type="application/json" id="ui-strings">.
const element = document.getElementById("ui-strings");
const strings = element ? JSON.parse(element.textContent) : {};

/** Translate `key`, filling %(name)s placeholders from `params`. */
export function t(key, params = {}) {
  const template = strings[key] ?? key;
  return template.replace(/%\((\w+)\)s/g, (match, name) => (name in params ? String(params[name]) : match));
}

/** Pick the plural form for Russian or English; `forms` is "one|few|many" (English: "one|other"). */
export function plural(key, count) {
  const forms = t(key).split("|");
  const lang = document.documentElement.lang || "ru";
  let index;
  if (lang.startsWith("ru")) {
    const n10 = count % 10;
    const n100 = count % 100;
    index = n10 === 1 && n100 !== 11 ? 0 : n10 >= 2 && n10 <= 4 && (n100 < 10 || n100 >= 20) ? 1 : 2;
  } else {
    index = count === 1 ? 0 : 1;
  }
  return (forms[Math.min(index, forms.length - 1)] || "").replace("%(count)s", String(count));
}

/** Read JSON rendered with Django's json_script. */
export function readJson(id, fallback = null) {
  const node = document.getElementById(id);
  return node ? JSON.parse(node.textContent) : fallback;
}

/** Format minor units like the server's format_money: "1 250,00 ₽" or "RUB 1,250.00". */
export function formatMoney(amount) {
  const spec = strings.__money || { language: "ru", currency: "RUB", sign: "₽" };
  const negative = amount < 0;
  const major = Math.floor(Math.abs(amount) / 100);
  const minor = String(Math.abs(amount) % 100).padStart(2, "0");
  const russian = spec.language === "ru";
  const grouped = String(major).replace(/\B(?=(\d{3})+(?!\d))/g, russian ? " " : ",");
  const text = russian ? `${grouped},${minor} ${spec.sign || spec.currency}` : `${spec.currency} ${grouped}.${minor}`;
  return negative ? `\u2212${text}` : text;
}
