// Dragging hand cards onto the table. The pointer is followed on the document, so a hand that
// is redrawn under the finger cannot strand the drag; a new state cancels a drag in progress.
import { cardElement } from "../cards.js";

const DRAG_THRESHOLD_PX = 6;

export class CardDrag {
  /**
   * @param {HTMLElement} hand the own hand; drags start on its playable cards
   * @param {{cardsFor: Function, onTap: Function, onDrop: Function}} handlers
   *   cardsFor(code): the cards a drag of `code` carries; onTap(code): a press without a drag;
   *   onDrop(cards, {attack, onTable}): a drop, with the attack card or table under the pointer.
   */
  constructor(hand, { cardsFor, onTap, onDrop }) {
    this.hand = hand;
    this.handlers = { cardsFor, onTap, onDrop };
    this.current = null;
    this.justDropped = false;
    hand.addEventListener("pointerdown", (event) => this.start(event));
    document.addEventListener("pointermove", (event) => this.move(event));
    document.addEventListener("pointerup", (event) => this.end(event, false));
    document.addEventListener("pointercancel", (event) => this.end(event, true));
  }

  get active() {
    return this.current !== null;
  }

  start(event) {
    const card = event.target.closest(".pcard.playable");
    if (!card || event.button > 0) return;
    this.cancel();
    this.current = { code: card.dataset.card, startX: event.clientX, startY: event.clientY, pointerId: event.pointerId, ghost: null, cards: [] };
  }

  move(event) {
    const drag = this.current;
    if (!drag || event.pointerId !== drag.pointerId) return;
    if (!drag.ghost && Math.hypot(event.clientX - drag.startX, event.clientY - drag.startY) < DRAG_THRESHOLD_PX) return;
    if (!drag.ghost) {
      drag.cards = this.handlers.cardsFor(drag.code);
      drag.ghost = document.createElement("div");
      drag.ghost.className = "drag-ghost";
      drag.ghost.append(...drag.cards.map((code) => cardElement(code)));
      document.body.append(drag.ghost);
      this.markDragging(drag.cards);
    }
    drag.ghost.style.left = `${event.clientX - 30}px`;
    drag.ghost.style.top = `${event.clientY - 50}px`;
    clearHover();
    const under = document.elementFromPoint(event.clientX, event.clientY);
    const attack = under?.closest("#playfield .pcard.attack");
    if (attack) attack.classList.add("drop-hover");
    else under?.closest("#playfield")?.classList.add("drop-hover");
  }

  end(event, cancelled) {
    const drag = this.current;
    if (!drag || event.pointerId !== drag.pointerId) return;
    const moved = Boolean(drag.ghost);
    this.cancel();
    if (cancelled) return;
    if (!moved) {
      if (this.hand.contains(event.target)) this.handlers.onTap(drag.code);
      return;
    }
    // The click that follows this pointerup belongs to the drop, not to the table.
    this.justDropped = true;
    setTimeout(() => { this.justDropped = false; }, 0);
    const under = document.elementFromPoint(event.clientX, event.clientY);
    const attack = under?.closest("#playfield .pcard.attack");
    this.handlers.onDrop(drag.cards, { attack: attack?.dataset.card ?? null, onTable: Boolean(under?.closest("#playfield")) });
  }

  /** Drop the drag in progress, if any, and leave no trace of it on the page. */
  cancel() {
    if (!this.current) return;
    this.current.ghost?.remove();
    this.current = null;
    clearHover();
    for (const card of this.hand.querySelectorAll(".pcard.dragging")) card.classList.remove("dragging");
  }

  markDragging(cards) {
    for (const code of cards) this.hand.querySelector(`[data-card="${code}"]`)?.classList.add("dragging");
  }
}

function clearHover() {
  for (const node of document.querySelectorAll(".drop-hover")) node.classList.remove("drop-hover");
}
