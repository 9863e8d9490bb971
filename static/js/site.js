// Behaviour every page shares. Pages carry no inline handlers (the Content-Security-Policy
// allows scripts from this site's files only), so they are wired up here.

for (const select of document.querySelectorAll("select[data-submit-on-change]")) {
  select.addEventListener("change", () => select.form.submit());
}
