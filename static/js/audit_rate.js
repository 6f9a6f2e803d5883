// Keyboard-driven judge-audit forms: a <form data-audit-rating> holding one fieldset.audit-scale with
// radio buttons 0, 1 and 2 (annotation/audits/_scale.html), on the audit rating and edit pages.
//
// As in rating.js, keys are read by KeyboardEvent.code (the physical key), so they work with a Japanese
// IME on; nothing is handled while the user types in a text box (comment, skip reason, edit reason)
// except Esc, which goes back to the scale.
//
//   0 / 1 / 2   choose the score          ← →   lower / higher score
//   Enter       submit (only with a score; otherwise the hint says what is missing)
//   S           submit the form named by data-skip-form     C   focus the comment box [data-comment]
//   G           open / close the guidelines [data-guidelines] (remembered in localStorage)
(function () {
  "use strict";

  var GUIDELINES_KEY = "jaiml-audit-guidelines";
  var HELP_KEY = "jaiml-shortcuts"; // shared with the sycophancy rating page: one preference for the help box
  var SCORE_CODES = { Digit0: "0", Digit1: "1", Digit2: "2", Numpad0: "0", Numpad1: "1", Numpad2: "2" };
  var TEXT_FIELDS = "textarea, input:not([type]), input[type=text], input[type=search], input[type=email], " +
    "input[type=number], input[type=password], input[type=url], [contenteditable=''], [contenteditable=true]";

  function each(list, fn) { Array.prototype.forEach.call(list, fn); }

  function isTextField(element) {
    return !!(element && element.matches && element.matches(TEXT_FIELDS));
  }

  function theForm() { return document.querySelector("form[data-audit-rating]"); }

  function scaleOf(form) { return form ? form.querySelector("fieldset.audit-scale") : null; }

  function radios(form) {
    var scale = scaleOf(form);
    return scale ? Array.prototype.slice.call(scale.querySelectorAll("input[type=radio]")) : [];
  }

  function chosen(form) {
    return radios(form).filter(function (r) { return r.checked; })[0] || null;
  }

  function hint(form, text) {
    var place = form.querySelector("[data-rating-hint]");
    if (place) place.textContent = text;
  }

  function markChosen(form) {
    var scale = scaleOf(form);
    if (!scale) return;
    scale.classList.toggle("chosen", !!chosen(form));
    scale.classList.remove("missing");
  }

  function focusScale(form) {
    var scale = scaleOf(form || theForm());
    if (!scale) return;
    scale.focus({ preventScroll: true });
    scale.scrollIntoView({ block: "nearest" });
  }

  function setScore(form, value) {
    var radio = radios(form).filter(function (r) { return r.value === value; })[0];
    if (!radio) return;
    radio.checked = true;
    markChosen(form);
    hint(form, "");
  }

  function stepScore(form, delta) {
    var list = radios(form);
    if (!list.length) return;
    var current = list.indexOf(chosen(form));
    var next = current < 0 ? (delta > 0 ? 0 : list.length - 1) : Math.max(0, Math.min(list.length - 1, current + delta));
    setScore(form, list[next].value);
  }

  // Forms whose request is on its way: a second Enter must not rate the next item.
  var inFlight = typeof WeakSet === "function" ? new WeakSet() : null;

  function busy(form) {
    return !form || (inFlight !== null && inFlight.has(form));
  }

  function requestSubmit(form) {
    if (typeof form.requestSubmit === "function") form.requestSubmit();
    else form.submit();
  }

  function submitRating(form) {
    if (busy(form)) return;
    if (!chosen(form)) {
      // Nothing is sent: the scale is marked and the hint (role=status) says what is missing.
      var scale = scaleOf(form);
      var place = form.querySelector("[data-rating-hint]");
      if (scale) scale.classList.add("missing");
      hint(form, place && place.dataset.incomplete ? place.dataset.incomplete : "0 / 1 / 2");
      focusScale(form);
      return;
    }
    requestSubmit(form);
  }

  function skip(form) {
    var other = form.dataset.skipForm ? document.getElementById(form.dataset.skipForm) : null;
    if (other && !busy(other) && !busy(form)) requestSubmit(other);
    return !!other;
  }

  function focusComment(form) {
    var box = form.querySelector("[data-comment]");
    if (!box) return false;
    box.focus();
    return true;
  }

  // ---------------------------------------------------------------- guidelines and help, remembered

  function remembered(key) {
    try {
      return localStorage.getItem(key);
    } catch (e) {
      return null;
    }
  }

  function remember(key, value) {
    try {
      localStorage.setItem(key, value);
    } catch (e) {
      /* not remembered */
    }
  }

  function applyRemembered() {
    each(document.querySelectorAll("details[data-guidelines]"), function (details) {
      if (remembered(GUIDELINES_KEY) === "closed") details.open = false;
    });
    each(document.querySelectorAll("details.shortcuts"), function (details) {
      if (remembered(HELP_KEY) === "closed") details.open = false;
    });
  }

  function toggleGuidelines() {
    var details = document.querySelector("details[data-guidelines]");
    if (!details) return false;
    details.open = !details.open; // the toggle listener below remembers it
    return true;
  }

  document.addEventListener("toggle", function (event) {
    var target = event.target;
    if (!target.matches) return;
    if (target.matches("details[data-guidelines]")) remember(GUIDELINES_KEY, target.open ? "open" : "closed");
    else if (target.matches("details.shortcuts")) remember(HELP_KEY, target.open ? "open" : "closed");
  }, true); // <details> toggles do not bubble: listen while capturing

  // ---------------------------------------------------------------- keys

  document.addEventListener("keydown", function (event) {
    var form = theForm();
    if (!form) return;
    var target = event.target;
    if (isTextField(target)) {
      if (event.isComposing || event.keyCode === 229) return; // the IME's own Esc cancels the composition
      if (event.code === "Escape") {
        focusScale(form);
        event.preventDefault();
      }
      return;
    }
    if (event.isComposing || event.altKey || event.ctrlKey || event.metaKey) return;
    var code = event.code;
    if (event.repeat && code !== "ArrowLeft" && code !== "ArrowRight") return; // a held key submits once
    if (SCORE_CODES[code]) {
      setScore(form, SCORE_CODES[code]);
      event.preventDefault();
    } else if (code === "ArrowLeft" || code === "ArrowRight") {
      // Only on the scale (or with nothing focused): elsewhere the arrows keep their own meaning.
      var scale = scaleOf(form);
      if (target !== document.body && !(scale && scale.contains(target))) return;
      stepScore(form, code === "ArrowRight" ? 1 : -1);
      focusScale(form);
      event.preventDefault();
    } else if (code === "Enter" || code === "NumpadEnter") {
      if (target.matches && target.matches("button, a, summary, select, input[type=checkbox], input[type=submit]")) return;
      submitRating(form);
      event.preventDefault();
    } else if (code === "KeyS") {
      if (skip(form)) event.preventDefault();
    } else if (code === "KeyC") {
      if (focusComment(form)) event.preventDefault();
    } else if (code === "KeyG") {
      if (toggleGuidelines()) event.preventDefault();
    }
  });

  document.addEventListener("change", function (event) {
    var form = event.target.closest ? event.target.closest("form[data-audit-rating]") : null;
    if (form) {
      markChosen(form);
      hint(form, "");
    }
  });

  // ---------------------------------------------------------------- HTMX and page loads

  document.addEventListener("htmx:beforeRequest", function (event) {
    if (inFlight !== null) inFlight.add(event.target);
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    if (inFlight !== null) inFlight.delete(event.target);
  });
  document.addEventListener("htmx:afterSettle", init);

  function init() {
    applyRemembered();
    each(document.querySelectorAll("form[data-audit-rating]:not([data-ready])"), function (form) {
      form.setAttribute("data-ready", "");
      markChosen(form);
      var active = document.activeElement;
      if (!active || active === document.body || !document.contains(active)) focusScale(form);
    });
  }

  document.addEventListener("DOMContentLoaded", init);
})();
