// The fair-deal box: the seed's hash before the end, the seed and the replay link after it.
import { t } from "../../i18n.js";
import { region } from "../region.js";

const node = document.getElementById("fairness");
const gameUrl = document.getElementById("table-app").dataset.gameUrl;

const draw = region((game) => {
  node.hidden = !game;
  if (!game) return;
  node.querySelector("[data-field=hash]").textContent = game.seed_hash || "—";
  node.querySelector("[data-field=seed]").textContent = game.seed || t("seed_hidden");
  const link = node.querySelector("[data-field=link]");
  link.hidden = !game.seed;
  link.href = gameUrl.replace("/0/", `/${game.id}/`);
});

export function renderFairness({ state }) {
  const game = state.game;
  draw(game ? { id: game.id, seed_hash: game.seed_hash, seed: game.seed } : null);
}
