// The qualification test's countdown to the minimum time per item. It only informs: the server
// times each item from when it showed it and refuses an earlier answer whatever this shows.
(function () {
  "use strict";

  let timer = null;

  function start() {
    if (timer) clearInterval(timer);
    timer = null;
    const box = document.querySelector("[data-min-time]");
    if (!box) return;
    const number = box.querySelector("[data-seconds]");
    const waiting = box.querySelector("[data-min-time-waiting]");
    const ready = box.querySelector("[data-min-time-ready]");
    const end = Date.now() + (parseInt(box.dataset.wait, 10) || 0) * 1000;

    function show() {
      const left = Math.max(0, Math.ceil((end - Date.now()) / 1000));
      if (number) number.textContent = String(left);
      if (waiting) waiting.hidden = left <= 0;
      if (ready) ready.hidden = left > 0;
      if (left <= 0 && timer) {
        clearInterval(timer);
        timer = null;
      }
      return left;
    }

    if (show() > 0) timer = setInterval(show, 250);
  }

  document.addEventListener("DOMContentLoaded", start);
  document.addEventListener("htmx:afterSettle", start);
})();
