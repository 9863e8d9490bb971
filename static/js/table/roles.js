// Pure rules for the badges on a player's plaque: whether the game waits for his move, and his
// part in the bout (attacks, defends or takes, throws in, passed, out).
import { passIsDone } from "./moves.js";

/**
 * The badges of `seat` in `view`, in the order shown, each as [class, string key]. "Whose move
 * it is" is its own badge, never read from a role: the attacker often waits while the defender
 * moves. The own plaque (`mine`) has none: the big countdown by the hand says it.
 */
export function seatBadges(view, seat, mine = false) {
  if (!view || view.finished) return [];
  const badges = [];
  const out = (view.out || []).includes(seat);
  const passed = (view.passed || []).includes(seat);
  if (!mine && (view.waiting_for || []).includes(seat)) badges.push(["turn", "role_turn"]);
  if (out) badges.push(["out", "role_out"]);
  else if (view.defender === seat) badges.push(view.taking ? ["taking", "role_taking"] : ["defend", "role_defender"]);
  else if (view.attacker === seat) badges.push(["attack", "role_attacker"]);
  // Once the bout has cards on the table, everyone else still in may throw in until he passes
  // (at a "neighbours" table, the defender's neighbours only).
  else if ((view.table || []).length && !passed && mayThrowIn(view, seat)) badges.push(["throw", "role_thrower"]);
  // The leader who passes with everything beaten said «Бито»; a thrower who is done, «Пас».
  if (passed) badges.push(["passed", passIsDone(view, seat) ? "role_done" : "role_passed"]);
  return badges;
}

/**
 * Whether `seat` is one of the bout's throwers: anyone at a table where everyone throws in; at a
 * "neighbours" table (RULES §7) the players still in next to the defender on either side.
 */
export function mayThrowIn(view, seat) {
  if (view.options?.throw_in !== "neighbours") return true;
  const players = view.players ?? (view.hand_sizes || []).length;
  const out = new Set(view.out || []);
  const next = (direction) => {
    for (let step = 1; step < players; step += 1) {
      const other = (view.defender + direction * step + players) % players;
      if (!out.has(other)) return other;
    }
    return null;
  };
  return seat === next(1) || seat === next(-1);
}
