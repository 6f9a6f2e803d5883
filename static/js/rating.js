// Keyboard-driven rating forms: any <form data-rating> holding fieldset.axis elements
// (annotation/queue/_axis.html, _rating_fields.html) on the rating, edit and training pages.
//
// Keys are read by KeyboardEvent.code, the physical key: with a Japanese IME on, event.key is
// "Process" (keyCode 229) for every key, so "1" or "s" never arrive as such. Nothing is handled
// while the user types in a text box (a skip reason, a comment) or while an IME composes there,
// except Esc (back to the axes) and Ctrl+Enter in a comment box (send it).
//
// The keyboard model (README "Keyboard", annotation/queue/_shortcuts.html): a digit scores the focused axis
// and moves the focus to the next axis (the last axis keeps it). Tab (and ↓ / →) goes to the next axis, but a
// Tab right after a score only confirms the move the score made, so it never skips an axis: "3 2 1 1 Enter"
// and "3 Tab 2 Tab 1 Tab 1 Enter" store the same four scores. Shift+Tab (and ↑ / ←) goes back one axis.
//
// On the form:  data-draft-key="..."  keep the work in progress in localStorage until the server has it;
//               data-skip-form="id"   the form that S submits.
// On the page:  [data-toast]  hidden after data-timeout ms (paused while hovered or focused); U presses its [data-undo];
//               [data-note]   a <details> with a comment form that C opens;
//               [data-toggle-desc]  shows / hides the level descriptions (D), remembered in localStorage.
(function () {
  "use strict";

  var STORE_PREFIX = "jaiml-rating-";
  var DESCRIPTIONS_KEY = "jaiml-level-descriptions";
  var HELP_KEY = "jaiml-shortcuts";
  var SCORE_CODES = {
    Digit1: "1", Digit2: "2", Digit3: "3", Digit4: "4", Digit5: "5",
    Numpad1: "1", Numpad2: "2", Numpad3: "3", Numpad4: "4", Numpad5: "5"
  };
  // "+" is Shift+Equal on US keyboards and Shift+Semicolon on JIS ones; "-" is Minus on both.
  var UP_CODES = { Equal: true, Semicolon: true, NumpadAdd: true };
  var DOWN_CODES = { Minus: true, NumpadSubtract: true };
  var TEXT_FIELDS = "textarea, input:not([type]), input[type=text], input[type=search], input[type=email], " +
    "input[type=number], input[type=password], input[type=url], [contenteditable=''], [contenteditable=true]";

  var lastAxis = null; // data-axis of the axis focused last: where Esc and lost focus return
  // The axis a score just left the focus on (the next one, or the last axis itself), until any other key,
  // click or focus change: a forward move (Tab, ↓, →) from there stays, as the score has made the move.
  var movedByScore = null;

  function each(list, fn) { Array.prototype.forEach.call(list, fn); }

  function isTextField(element) {
    return !!(element && element.matches && element.matches(TEXT_FIELDS));
  }

  // The rating form a key press is meant for: the one holding the focus (or the form a <button form=...>
  // belongs to), or the page's only one when nothing in particular has the focus.
  function ratingFormFor(target) {
    if (!target || target === document.body || target === document.documentElement) {
      return document.querySelector("form[data-rating]");
    }
    var own = target.closest ? target.closest("form[data-rating]") : null;
    if (!own && target.form && target.form.hasAttribute("data-rating")) own = target.form;
    return own;
  }

  function axes(form) {
    return form ? Array.prototype.slice.call(form.querySelectorAll("fieldset.axis")) : [];
  }

  function axisOf(element) {
    return element && element.closest ? element.closest("fieldset.axis") : null;
  }

  function hasScore(fieldset) {
    return !!fieldset.querySelector("input[type=radio]:checked");
  }

  function focusAxis(form, index) {
    var list = axes(form);
    if (!list.length) return;
    var target = list[Math.max(0, Math.min(list.length - 1, index))];
    target.focus({ preventScroll: true });
    target.scrollIntoView({ block: "nearest" });
  }

  function returnToAxes() {
    var form = document.querySelector("form[data-rating]");
    if (!form) return;
    var list = axes(form);
    var index = list.findIndex(function (f) { return f.dataset.axis === lastAxis; });
    focusAxis(form, index < 0 ? 0 : index);
  }

  // ---------------------------------------------------------------- drafts

  function draftKey(form) {
    return form && form.dataset.draftKey ? STORE_PREFIX + form.dataset.draftKey : null;
  }

  function saveDraft(form) {
    var key = draftKey(form);
    if (!key) return;
    var data = {};
    new FormData(form).forEach(function (value, name) {
      if (name !== "csrfmiddlewaretoken") data[name] = value;
    });
    try {
      localStorage.setItem(key, JSON.stringify(data));
    } catch (e) {
      /* storage full or disabled: the form still works */
    }
  }

  function restoreDraft(form) {
    var key = draftKey(form);
    if (!key) return;
    var data = null;
    try {
      data = JSON.parse(localStorage.getItem(key) || "null");
    } catch (e) {
      data = null;
    }
    if (!data) return;
    // Values the server sent back (e.g. after a validation error) win over stored ones.
    Object.keys(data).forEach(function (name) {
      var fields = form.elements[name];
      if (!fields) return;
      if (fields instanceof RadioNodeList) {
        var radios = Array.prototype.slice.call(fields);
        if (!radios.some(function (r) { return r.checked; })) {
          radios.forEach(function (r) { r.checked = r.value === data[name]; });
        }
      } else if (fields.tagName === "SELECT" && !form.querySelector(".has-error")) {
        fields.value = data[name];
      }
    });
  }

  // ---------------------------------------------------------------- the form

  function markChosen(form) {
    axes(form).forEach(function (fieldset) {
      fieldset.classList.toggle("chosen", hasScore(fieldset));
      fieldset.classList.remove("missing");
    });
  }

  // Where the form's hint is: inside it, or in the page's submit bar (a sticky bar outside the form would
  // cover a hint below the axes, so pages with one put the hint in the bar, data-form="<the form's id>").
  function hintPlace(form) {
    var own = form.querySelector("[data-rating-hint]");
    if (own || !form.id) return own;
    return document.querySelector('[data-rating-hint][data-form="' + form.id + '"]');
  }

  function hint(form, text) {
    var place = hintPlace(form);
    if (place) place.textContent = text;
  }

  function setScore(form, fieldset, score) {
    var radio = fieldset.querySelector('input[type=radio][value="' + score + '"]');
    if (!radio) return;
    radio.checked = true;
    markChosen(form);
    hint(form, "");
    saveDraft(form);
    var list = axes(form);
    var index = list.indexOf(fieldset);
    if (index < list.length - 1) focusAxis(form, index + 1);
    else fieldset.focus({ preventScroll: true });
    movedByScore = document.activeElement;
  }

  function isForwardMove(event) {
    if (event.code === "Tab") return !event.shiftKey;
    return event.code === "ArrowDown" || event.code === "ArrowRight";
  }

  function stepConfidence(form, fieldset, delta) {
    var select = fieldset.querySelector("select");
    if (!select) return;
    // Options run from 1.0 down to 0.0: "up" is a smaller index.
    var index = select.selectedIndex - delta;
    select.selectedIndex = Math.max(0, Math.min(select.options.length - 1, index));
    saveDraft(form);
  }

  // Forms whose request is on its way. (Not the htmx-request class: while a swapped-in item settles,
  // HTMX gives the new form the old one's attributes for a moment.)
  var inFlight = typeof WeakSet === "function" ? new WeakSet() : null;

  function busy(form) {
    return !form || (inFlight !== null && inFlight.has(form));
  }

  function requestSubmit(form) {
    if (typeof form.requestSubmit === "function") form.requestSubmit();
    else form.submit();
  }

  function submitRating(form) {
    if (busy(form)) return; // already on its way (a second Enter must not rate the next item)
    var missing = axes(form).filter(function (f) { return !hasScore(f); });
    if (missing.length) {
      // Nothing is sent: the first axis without a score gets the focus (scrolled clear of the submit bar),
      // and the hint (in the bar where the page has one) says which are missing.
      missing.forEach(function (f) { f.classList.add("missing"); });
      var names = missing.map(function (f) {
        var legend = f.querySelector("legend");
        return legend ? legend.textContent.replace(/^\s*\d+\s*/, "").trim() : f.dataset.axis;
      });
      var place = hintPlace(form);
      hint(form, (place && place.dataset.incomplete ? place.dataset.incomplete + " " : "") + names.join("、"));
      focusAxis(form, axes(form).indexOf(missing[0]));
      return;
    }
    requestSubmit(form);
  }

  function skip(form) {
    var other = form.dataset.skipForm ? document.getElementById(form.dataset.skipForm) : null;
    if (other && !busy(other) && !busy(form)) requestSubmit(other);
    return !!other;
  }

  function toggleMarkers(fieldset) {
    var details = fieldset && fieldset.querySelector("details.markers");
    if (details) details.open = !details.open;
  }

  function openNote() {
    var note = document.querySelector("[data-note]");
    if (!note) return false;
    note.open = true;
    var box = note.querySelector("textarea");
    if (box) box.focus();
    return true;
  }

  function pressUndo() {
    var undo = document.querySelector("[data-toast] [data-undo]");
    if (!undo) return false;
    undo.click();
    return true;
  }

  // ---------------------------------------------------------------- level descriptions, help

  function descriptionsHidden() {
    try {
      return localStorage.getItem(DESCRIPTIONS_KEY) === "hidden";
    } catch (e) {
      return false;
    }
  }

  function applyDescriptions() {
    var hidden = descriptionsHidden();
    document.documentElement.classList.toggle("level-descriptions-hidden", hidden);
    each(document.querySelectorAll("[data-toggle-desc]"), function (button) {
      button.setAttribute("aria-pressed", hidden ? "false" : "true");
    });
  }

  function toggleDescriptions() {
    try {
      localStorage.setItem(DESCRIPTIONS_KEY, descriptionsHidden() ? "shown" : "hidden");
    } catch (e) {
      /* not remembered */
    }
    applyDescriptions();
  }

  function applyHelp() {
    var closed = false;
    try {
      closed = localStorage.getItem(HELP_KEY) === "closed";
    } catch (e) {
      closed = false;
    }
    each(document.querySelectorAll("details.shortcuts"), function (details) {
      if (closed) details.open = false;
    });
  }

  // ---------------------------------------------------------------- toasts

  function hideToast(toast) {
    var hadFocus = toast.contains(document.activeElement);
    toast.remove();
    if (window.location.search.indexOf("undo=") >= 0 && window.history.replaceState) {
      // After a skip without HTMX: a reload must not offer the undo again.
      var url = new URL(window.location.href);
      url.searchParams.delete("undo");
      window.history.replaceState(window.history.state, "", url.pathname + url.search + url.hash);
    }
    if (hadFocus) returnToAxes();
  }

  function armToasts() {
    each(document.querySelectorAll("[data-toast]:not([data-armed])"), function (toast) {
      toast.setAttribute("data-armed", "");
      var remaining = parseInt(toast.dataset.timeout || "8000", 10);
      var started = 0;
      var timer = null;
      function run() {
        if (timer !== null) return;
        started = Date.now();
        timer = window.setTimeout(function () { hideToast(toast); }, remaining);
      }
      function pause() {
        if (timer === null) return;
        window.clearTimeout(timer);
        timer = null;
        remaining = Math.max(1500, remaining - (Date.now() - started));
      }
      // Paused while the pointer or the keyboard focus is on it, so the undo never vanishes under the hand.
      toast.addEventListener("mouseenter", pause);
      toast.addEventListener("focusin", pause);
      toast.addEventListener("mouseleave", function () { if (!toast.contains(document.activeElement)) run(); });
      toast.addEventListener("focusout", function (event) {
        if (!toast.contains(event.relatedTarget) && !toast.matches(":hover")) run();
      });
      var close = toast.querySelector("[data-toast-close]");
      if (close) close.addEventListener("click", function () { hideToast(toast); });
      run();
    });
  }

  // ---------------------------------------------------------------- keys

  function onTextFieldKey(event) {
    if (event.isComposing || event.keyCode === 229) return; // the IME's own keys (Enter confirms, Esc cancels)
    var target = event.target;
    if (event.code === "Escape") {
      returnToAxes();
      event.preventDefault();
    } else if ((event.code === "Enter" || event.code === "NumpadEnter") && (event.ctrlKey || event.metaKey)) {
      var note = target.closest ? target.closest("form[data-note-form]") : null;
      if (note) {
        requestSubmit(note);
        event.preventDefault();
      }
    }
  }

  document.addEventListener("keydown", function (event) {
    var target = event.target;
    var afterScore = movedByScore !== null && movedByScore === target;
    if (!event.isComposing && !event.repeat) movedByScore = null;
    if (afterScore && isForwardMove(event) && !event.altKey && !event.ctrlKey && !event.metaKey) {
      event.preventDefault(); // the score already moved the focus here: no second step
      return;
    }
    if (isTextField(target)) {
      onTextFieldKey(event);
      return;
    }
    if (event.isComposing || event.altKey || event.ctrlKey || event.metaKey) return;
    var code = event.code;
    var arrow = code === "ArrowDown" || code === "ArrowUp" || code === "ArrowLeft" || code === "ArrowRight";
    if (event.repeat && !arrow) return; // a held key rates one axis, submits once
    if (code === "KeyU") {
      if (pressUndo()) event.preventDefault();
      return;
    }
    if (code === "KeyC") {
      if (openNote()) event.preventDefault();
      return;
    }
    if (code === "KeyD" && document.querySelector("[data-toggle-desc]")) {
      toggleDescriptions();
      event.preventDefault();
      return;
    }
    var form = ratingFormFor(target);
    if (!form) return;
    var fieldset = axisOf(target);
    var list = axes(form);
    if (SCORE_CODES[code]) {
      var first = list.filter(function (f) { return !hasScore(f); })[0] || list[0];
      if (fieldset || first) setScore(form, fieldset || first, SCORE_CODES[code]);
      event.preventDefault();
    } else if (arrow) {
      if (target.tagName === "SELECT") return;
      var step = code === "ArrowDown" || code === "ArrowRight" ? 1 : -1;
      focusAxis(form, fieldset ? list.indexOf(fieldset) + step : 0);
      event.preventDefault();
    } else if (UP_CODES[code] && fieldset) {
      stepConfidence(form, fieldset, 1);
      event.preventDefault();
    } else if (DOWN_CODES[code] && fieldset) {
      stepConfidence(form, fieldset, -1);
      event.preventDefault();
    } else if (code === "KeyM" && fieldset) {
      toggleMarkers(fieldset);
      event.preventDefault();
    } else if (code === "Enter" || code === "NumpadEnter") {
      if (target.matches && target.matches("button, a, summary, select, input[type=checkbox], input[type=submit]")) return;
      submitRating(form);
      event.preventDefault();
    } else if (code === "KeyS") {
      if (skip(form)) event.preventDefault();
    }
  });

  document.addEventListener("pointerdown", function () { movedByScore = null; });

  document.addEventListener("click", function (event) {
    if (event.target.closest && event.target.closest("[data-toggle-desc]")) toggleDescriptions();
  });

  document.addEventListener("focusin", function (event) {
    if (movedByScore !== null && event.target !== movedByScore) movedByScore = null;
    var fieldset = axisOf(event.target);
    if (fieldset) lastAxis = fieldset.dataset.axis;
  });

  document.addEventListener("change", function (event) {
    var form = event.target.closest ? event.target.closest("form[data-rating]") : null;
    if (form) {
      markChosen(form);
      saveDraft(form);
    }
  });

  // <details> toggles do not bubble: listen while capturing.
  document.addEventListener("toggle", function (event) {
    if (!event.target.matches || !event.target.matches("details.shortcuts")) return;
    try {
      localStorage.setItem(HELP_KEY, event.target.open ? "open" : "closed");
    } catch (e) {
      /* not remembered */
    }
  }, true);

  // ---------------------------------------------------------------- HTMX and page loads

  // Drop the stored draft once the server has the rating: the response no longer shows
  // this form with errors.
  var pending = null;
  document.addEventListener("htmx:beforeRequest", function (event) {
    var source = event.target;
    if (inFlight !== null) inFlight.add(source);
    var form = source.matches && source.matches("form[data-rating]") ? source : null;
    if (!form && source.id) form = document.querySelector('form[data-rating][data-skip-form="' + source.id + '"]');
    if (form && draftKey(form)) pending = draftKey(form);
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    if (inFlight !== null) inFlight.delete(event.target);
  });
  document.addEventListener("htmx:afterSettle", function () {
    if (pending) {
      var kept = Array.prototype.some.call(document.querySelectorAll("form[data-rating]"), function (form) {
        return draftKey(form) === pending && form.querySelector(".has-error");
      });
      if (!kept) localStorage.removeItem(pending);
      pending = null;
    }
    init();
  });
  document.addEventListener("submit", function (event) {
    // Without HTMX (a full page POST) the draft is dropped when the next page loads without errors.
    var key = draftKey(event.target);
    if (key) sessionStorage.setItem("jaiml-submitted", key);
  });

  function init() {
    var submitted = sessionStorage.getItem("jaiml-submitted");
    if (submitted && !document.querySelector("form[data-rating] .has-error")) localStorage.removeItem(submitted);
    sessionStorage.removeItem("jaiml-submitted");
    applyDescriptions();
    applyHelp();
    armToasts();
    var focused = false;
    each(document.querySelectorAll("form[data-rating]:not([data-ready])"), function (form) {
      form.setAttribute("data-ready", "");
      restoreDraft(form);
      markChosen(form);
      var active = document.activeElement;
      if (!focused && (!active || active === document.body || !axisOf(active))) {
        var list = axes(form);
        var target = form.querySelector("fieldset.has-error") || list[0];
        if (target) {
          target.focus({ preventScroll: true });
          focused = true;
        }
      }
    });
    // A swap elsewhere (the comment box) took the focus away: back to the axis used last.
    if (!focused && (document.activeElement === document.body || !document.activeElement)) returnToAxes();
  }

  document.addEventListener("DOMContentLoaded", init);
})();
