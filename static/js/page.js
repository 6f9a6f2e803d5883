// Behaviour every page shares, kept out of the HTML so that the Content-Security-Policy can forbid
// inline scripts, event handler attributes and style attributes.
(function () {
  "use strict";

  // <select data-autosubmit>: choosing an option submits its form (language switch, batch choice).
  document.addEventListener("change", function (event) {
    var select = event.target.closest ? event.target.closest("select[data-autosubmit]") : null;
    if (select && select.form) {
      if (select.form.requestSubmit) { select.form.requestSubmit(); } else { select.form.submit(); }
    }
  });

  // data-bg / data-fg: colours computed on the server (the agreement heat map), applied through the
  // CSSOM, which the policy allows, instead of style attributes, which it does not.
  function paint(root) {
    var cells = root.querySelectorAll("[data-bg], [data-fg]");
    for (var i = 0; i < cells.length; i++) {
      if (cells[i].dataset.bg) { cells[i].style.backgroundColor = cells[i].dataset.bg; }
      if (cells[i].dataset.fg) { cells[i].style.color = cells[i].dataset.fg; }
    }
  }
  document.addEventListener("DOMContentLoaded", function () { paint(document); });
  document.addEventListener("htmx:afterSwap", function (event) { paint(event.target); });
})();
