// Playing by keyboard: focus among the own cards and the attack cards on the table, the keys of
// keys.js, and the help dialog («?»). The views draw the cards; this module decides which card
// of each group takes Tab (one per group, the arrows move within it) and keeps the focus on the
// same card, or the same place, when a move redraws the group.
import { t } from "../i18n.js";
import { commandFor, HELP_ROWS, helpKeys, movedIndex } from "./keys.js";
import { element } from "./dom.js";

const GROUPS = ["hand", "attack"];

export class TableKeyboard {
  /**
   * `hand` and `playfield` are the board's regions, `dialog` the help <dialog>; `commands` maps
   * a command of keys.js to what it does (`select` and `beat` get the card's code).
   */
  constructor({ hand, playfield, dialog, commands, describeAttack }) {
    this.hand = hand;
    this.playfield = playfield;
    this.dialog = dialog;
    this.commands = commands;
    this.describeAttack = describeAttack; // the attack card's label: the card and its beat
    this.current = { hand: null, attack: null }; // the code of the card of each group that takes Tab
    this.focused = null; // {group, code, index, byKeyboard} while a card has the focus
    // A tap or a click leaves the focus where it fell: only keyboard focus follows a redraw.
    this.lastInput = "pointer";
    this.fillHelp();
    document.getElementById("keys-open")?.addEventListener("click", () => this.dialog.showModal());
    document.addEventListener("keydown", (event) => {
      this.lastInput = "key";
      this.onKey(event);
    });
    document.addEventListener("pointerdown", () => { this.lastInput = "pointer"; }, true);
    document.addEventListener("focusin", () => this.noteFocus());
  }

  cards(group) {
    return group === "hand"
      ? [...this.hand.querySelectorAll(".pcard[data-card]")]
      : [...this.playfield.querySelectorAll(".pcard.attack")];
  }

  where(target) {
    if (this.dialog.open || document.querySelector("dialog[open]")) return "typing";
    if (target.closest("input, textarea, select, [contenteditable]")) return "typing";
    const card = target.closest?.(".pcard");
    if (card && this.hand.contains(card)) return "hand";
    if (card && card.classList.contains("attack")) return "attack";
    if (target === this.playfield) return "field";
    return "other";
  }

  onKey(event) {
    const where = this.where(event.target);
    const command = commandFor(event, where);
    if (!command) return;
    // Enter and Space keep their own meaning on buttons and links; letters only where no
    // control would take them.
    event.preventDefault();
    const card = event.target.closest?.(".pcard");
    if (["previous", "next", "first", "last"].includes(command)) {
      this.moveFocus(where, command, card);
    } else if (command === "help") {
      this.dialog.showModal();
    } else if (command === "hand") {
      this.focusGroup("hand");
    } else if (command === "table") {
      if (!this.focusGroup("attack") && this.playfield.tabIndex === 0) this.playfield.focus();
    } else {
      this.commands[command]?.(card?.dataset.card ?? null);
    }
  }

  moveFocus(group, command, card) {
    const cards = this.cards(group);
    const to = cards[movedIndex(command, cards.indexOf(card), cards.length)];
    if (to) this.focusCard(group, to);
  }

  focusCard(group, card) {
    this.current[group] = card.dataset.card;
    this.arrange();
    card.focus();
  }

  /** Focus the group's current card (or its first); false when the group has no card. */
  focusGroup(group) {
    const cards = this.cards(group);
    const card = cards.find((each) => each.dataset.card === this.current[group]) || cards[0];
    if (card) this.focusCard(group, card);
    return Boolean(card);
  }

  noteFocus() {
    const active = document.activeElement;
    const where = active ? this.where(active) : "other";
    if (!GROUPS.includes(where)) {
      this.focused = null;
      return;
    }
    const cards = this.cards(where);
    this.focused = {
      group: where, code: active.dataset.card, index: cards.indexOf(active), byKeyboard: this.lastInput === "key",
    };
    this.current[where] = active.dataset.card;
  }

  /** After a render: one card of each group takes Tab, and a card that had the focus and was
   * redrawn gives it to the same card, or the one now in its place. */
  arrange() {
    for (const group of GROUPS) {
      const cards = this.cards(group);
      const current = cards.find((card) => card.dataset.card === this.current[group]) || cards[0];
      cards.forEach((card) => {
        card.tabIndex = card === current ? 0 : -1;
        if (group === "attack") {
          card.setAttribute("role", "button");
          card.setAttribute("aria-label", this.describeAttack(card.dataset.card));
        }
      });
    }
    // The empty table takes the lead.
    const empty = !this.cards("attack").length && !this.playfield.querySelector(".waiting-box");
    if (empty) {
      this.playfield.tabIndex = 0;
      this.playfield.setAttribute("role", "button");
      this.playfield.setAttribute("aria-label", t("say_table_field"));
    } else {
      this.playfield.removeAttribute("tabindex");
      this.playfield.removeAttribute("role");
      this.playfield.removeAttribute("aria-label");
    }
    this.restoreFocus();
  }

  restoreFocus() {
    const lost = this.focused;
    if (!lost?.byKeyboard || (document.activeElement && document.activeElement !== document.body)) return;
    const cards = this.cards(lost.group);
    const card = cards.find((each) => each.dataset.card === lost.code) || cards[Math.min(lost.index, cards.length - 1)];
    if (card) {
      this.current[lost.group] = card.dataset.card;
      card.tabIndex = 0;
      card.focus();
    } else if (lost.group === "attack" && this.playfield.tabIndex === 0) {
      this.playfield.focus();
    } else if (lost.group === "attack") {
      this.focusGroup("hand");
    }
  }

  fillHelp() {
    const list = this.dialog.querySelector("[data-slot=keys]");
    list.replaceChildren(...HELP_ROWS.flatMap((row) => {
      const keys = element("dt");
      helpKeys(row).forEach((cap, index) => {
        if (index) keys.append(" ");
        keys.append(element("kbd", "", cap === "Space" ? t("key_space") : cap));
      });
      return [keys, element("dd", "", t(row.text))];
    }));
  }
}
