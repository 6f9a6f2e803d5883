// The printable monthly feedback page: its Print button opens the browser's print dialog (no inline script: CSP).
document.addEventListener("DOMContentLoaded", function () {
  var button = document.querySelector("[data-print]");
  if (button) {
    button.addEventListener("click", function () { window.print(); });
  }
});
