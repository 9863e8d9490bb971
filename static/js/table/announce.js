// The polite live region: screen readers speak each sentence added here when the reader is free.
// The latest few stay, so a sentence is not lost when several arrive at once.
import { element } from "./dom.js";

const KEEP = 6;

export class Announcer {
  constructor(node) {
    this.node = node;
  }

  /** Add the sentences given (empty ones are skipped). */
  say(...texts) {
    for (const text of texts) {
      if (!text) continue;
      this.node.append(element("p", "", text));
    }
    while (this.node.children.length > KEEP) this.node.firstElementChild.remove();
  }
}
