// Small DOM helpers for the views: clones of the page's <template> elements and their slots.

/** A fresh copy of the first element inside <template id="...">. */
export function fromTemplate(id) {
  return document.getElementById(id).content.firstElementChild.cloneNode(true);
}

/** The element marked data-slot="name" inside `node`. */
export function slot(node, name) {
  return node.querySelector(`[data-slot="${name}"]`);
}

/** An element with a class and text, for the few one-line nodes the views add. */
export function element(tag, className = "", text = "") {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text) node.textContent = text;
  return node;
}
