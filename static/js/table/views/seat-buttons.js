// The buttons in the page head: sit down, stand up, and the invitation link of a private table.
import { region } from "../region.js";

const buttons = document.getElementById("seat-buttons");
const join = buttons.querySelector("[data-role=join]");
const leave = buttons.querySelector("[data-role=leave]");
const invite = document.getElementById("invite");

const draw = region(({ canJoin, seated, inviteCode, open }) => {
  if (join) join.hidden = !canJoin;
  if (leave) leave.hidden = !seated;
  if (invite) {
    invite.hidden = !(inviteCode && open);
    if (inviteCode) {
      const link = `${window.location.origin}${window.location.pathname}?invite=${encodeURIComponent(inviteCode)}`;
      invite.querySelector("input").value = link;
    }
  }
});

export function renderSeatButtons({ state, seat, takenSeats, rematch }) {
  const open = state.table?.status === "open";
  // A practice game may be left at any time; a table with stakes only before the game.
  const practice = Boolean(state.table?.practice) && state.table?.status === "playing";
  const seated = (state.players || []).some((player) => player.seat === seat && player.nickname)
    && (open || practice || Boolean(rematch?.confirmed?.includes(seat)));
  draw({
    canJoin: open && !seated && takenSeats < (state.table?.seats || 0),
    seated,
    inviteCode: state.table?.invite_code || "",
    open,
  });
}
