// Amounts of minor units shown as the server's format_money (wallet/money.py) shows them.
import { pluralForm } from "./plural.js";

/** "1 250,00 ₽" or "₽1,250.00"; with `spec.chips` (a play-money site) "1 250 фишек" /
 * "1,250 chips", or "12,50 фишки" when not whole. `spec` is the server's money_format_spec. */
export function formatAmount(amount, spec) {
  const major = Math.floor(Math.abs(amount) / 100);
  const minor = Math.abs(amount) % 100;
  const russian = spec.language === "ru";
  const grouped = String(major).replace(/\B(?=(\d{3})+(?!\d))/g, russian ? " " : ",");
  const fraction = `${russian ? "," : "."}${String(minor).padStart(2, "0")}`;
  let text;
  if (spec.chips && !minor) {
    text = pluralForm(spec.chips, major, spec.language).replace("%(amount)s", grouped);
  } else if (russian || spec.chips) {
    text = `${grouped}${fraction} ${spec.sign}`;
  } else {
    text = `${spec.sign}${grouped}${fraction}`;
  }
  return amount < 0 ? `\u2212${text}` : text;
}
