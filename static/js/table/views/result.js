// The result of a finished game: the durak, places, each player's payout, net and rating change,
// the own outcome, and the offer to play again (its cost), or at practice a new practice game.
import { formatMoney, nickname, t } from "../../i18n.js";
import { ownPayout, signed } from "../outcome.js";
import { region } from "../region.js";
import { fromTemplate, slot } from "../dom.js";

const node = document.getElementById("result");

function headline(result, nameOf) {
  if (result.stalemate) return t("result_stalemate");
  if (result.durak === null || result.durak === undefined) return t("result_draw");
  return t("result_durak", { name: nameOf(result.durak) });
}

function ratingText(row) {
  return t("result_rating", { rating: row.rating, change: signed(row.rating_change) });
}

function netCell(cell, net) {
  cell.textContent = signed(net, formatMoney);
  cell.classList.toggle("positive", net > 0);
  cell.classList.toggle("negative", net < 0);
}

function payoutRow(row, result, mine, nameOf) {
  const tr = fromTemplate("result-row-template");
  tr.classList.toggle("durak", row.seat === result.durak);
  tr.classList.toggle("mine", row.seat === mine);
  const medal = slot(tr, "place");
  medal.classList.add(`p${row.place}`);
  medal.textContent = row.seat === result.durak ? t("durak_short") : String(row.place);
  slot(tr, "player").textContent = row.nickname ? nickname(row.nickname) : nameOf(row.seat);
  slot(tr, "percent").textContent = `${Number(row.percent).toLocaleString(document.documentElement.lang, { maximumFractionDigits: 2 })} %`;
  slot(tr, "amount").textContent = formatMoney(row.amount);
  netCell(slot(tr, "net"), row.net);
  const rating = slot(tr, "rating");
  if (row.rating === null || row.rating === undefined) {
    rating.remove();
  } else {
    // Under the nickname the figures alone, as on the plaques; the words for screen readers.
    rating.textContent = `${row.rating} (${signed(row.rating_change)})`;
    rating.title = ratingText(row);
    rating.setAttribute("aria-label", ratingText(row));
  }
  return tr;
}

function rematchText({ rematch, total, closed, agreed }, nameOf) {
  const confirmed = rematch?.confirmed || [];
  if (!rematch && closed) return agreed ? t("rematch_expired_refunded") : t("rematch_expired");
  if (!confirmed.length) return t("rematch_none");
  return t("rematch_confirmed", { names: confirmed.map(nameOf).join(", "), count: confirmed.length, total });
}

function rematchBlock(inputs, nameOf) {
  const { rematch, mine, gameId, sent, stake } = inputs;
  const block = fromTemplate("rematch-template");
  const confirmed = rematch?.confirmed || [];
  slot(block, "info").textContent = rematchText(inputs, nameOf);
  const form = slot(block, "form");
  if (mine !== null && rematch) {
    form.setAttribute("action", form.getAttribute("action").replace("/0/", `/${gameId}/`));
    const submit = form.querySelector("button");
    submit.textContent = t("rematch_for", { stake: formatMoney(stake) });
    if (confirmed.includes(mine) || sent) {
      submit.disabled = true;
      submit.textContent = t("rematch_waiting");
    }
  } else {
    form.remove();
  }
  // A stake the wallet could not hold: the way to the deposit page, right where it is needed.
  if (inputs.short) block.append(fromTemplate("rematch-short-template"));
  return block;
}

const draw = region((inputs, nameOf) => {
  const { result, mine } = inputs;
  const appearing = Boolean(result) && node.hidden;
  node.hidden = !result;
  if (!result) return;
  // On a phone the board fills the screen: bring the result into view when the game ends.
  if (appearing) requestAnimationFrame(() => node.scrollIntoView({ block: "nearest" }));
  const box = fromTemplate("result-template");
  slot(box, "headline").textContent = headline(result, nameOf);
  slot(box, "rows").append(...(result.payouts || []).map((row) => payoutRow(row, result, mine, nameOf)));
  const commission = slot(box, "commission");
  if (result.commission && !inputs.practice) commission.textContent = `${t("commission")}: ${formatMoney(result.commission)}`;
  else commission.remove();
  const own = slot(box, "own");
  const row = inputs.practice ? null : ownPayout(result, mine);
  if (row) {
    netCell(slot(own, "net"), row.net);
    if (row.rating === null || row.rating === undefined) slot(own, "rating").remove();
    else slot(own, "rating").textContent = ratingText(row);
  } else {
    own.remove();
  }
  if (inputs.practice) {
    // Practice is played for nothing: no money lines, and a new practice game with the same
    // bots instead of a rematch.
    for (const cell of box.querySelectorAll(".money")) cell.remove();
    if (mine !== null) box.append(fromTemplate("practice-again-template"));
  } else {
    box.append(rematchBlock(inputs, nameOf));
  }
  node.replaceChildren(box);
});

export function renderResult({ state, seat, nameOf, rematch, rematchAgreed, rematchSent, rematchShort }) {
  draw(
    {
      result: state.result || null,
      closed: state.table?.status === "closed",
      practice: Boolean(state.table?.practice),
      agreed: rematchAgreed,
      sent: rematchSent,
      short: rematchShort,
      rematch,
      mine: seat,
      total: (state.players || []).length,
      gameId: state.game?.id ?? null,
      stake: state.result?.stake ?? state.table?.stake ?? 0,
      players: state.players || [],
    },
    nameOf,
  );
}
