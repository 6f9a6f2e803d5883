// Keyboard-driven rating form: 1-5 sets the focused axis, arrows/Tab move between axes,
// +/- change its confidence, Enter submits, S skips. Work in progress is kept in
// localStorage until the server has stored it, so a reload or an expired login loses nothing.
(function () {
  "use strict";

  const STORE_PREFIX = "jaiml-rating-";

  function form() {
    return document.getElementById("rating-form");
  }

  function axes() {
    const f = form();
    return f ? Array.from(f.querySelectorAll("fieldset.axis")) : [];
  }

  function focusedAxis() {
    const active = document.activeElement;
    return active ? active.closest("fieldset.axis") : null;
  }

  function focusAxis(index) {
    const list = axes();
    if (!list.length) return;
    const target = list[Math.max(0, Math.min(list.length - 1, index))];
    target.focus();
  }

  function storageKey() {
    const f = form();
    return f ? STORE_PREFIX + f.dataset.assignment : null;
  }

  function save() {
    const key = storageKey();
    if (!key) return;
    const data = {};
    new FormData(form()).forEach(function (value, name) {
      if (name !== "csrfmiddlewaretoken") data[name] = value;
    });
    try {
      localStorage.setItem(key, JSON.stringify(data));
    } catch (e) {
      /* storage full or disabled: the form still works */
    }
  }

  function restore() {
    const key = storageKey();
    if (!key) return;
    let data = null;
    try {
      data = JSON.parse(localStorage.getItem(key) || "null");
    } catch (e) {
      data = null;
    }
    if (!data) return;
    const f = form();
    // Values the server sent back (e.g. after a validation error) win over stored ones.
    Object.keys(data).forEach(function (name) {
      const fields = f.elements[name];
      if (!fields) return;
      if (fields instanceof RadioNodeList) {
        if (!Array.from(fields).some(function (r) { return r.checked; })) {
          Array.from(fields).forEach(function (r) { r.checked = r.value === data[name]; });
        }
      } else if (fields.tagName === "SELECT") {
        fields.value = data[name];
      }
    });
    markChosen();
  }

  function markChosen() {
    axes().forEach(function (fieldset) {
      fieldset.classList.toggle("chosen", !!fieldset.querySelector("input[type=radio]:checked"));
    });
  }

  function setScore(fieldset, score) {
    const radio = fieldset.querySelector('input[type=radio][value="' + score + '"]');
    if (!radio) return;
    radio.checked = true;
    markChosen();
    save();
    const list = axes();
    const index = list.indexOf(fieldset);
    if (index < list.length - 1) focusAxis(index + 1);
  }

  function stepConfidence(fieldset, delta) {
    const select = fieldset.querySelector("select");
    if (!select) return;
    // Options run from 1.0 down to 0.0: "up" is a smaller index.
    const index = select.selectedIndex - delta;
    select.selectedIndex = Math.max(0, Math.min(select.options.length - 1, index));
    save();
  }

  function submitForm(f) {
    if (typeof f.requestSubmit === "function") f.requestSubmit();
    else f.submit();
  }

  document.addEventListener("keydown", function (event) {
    const f = form();
    if (!f || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    if (target && target.matches && target.matches("input[type=text], textarea")) return;
    const fieldset = focusedAxis();
    const key = event.key;
    if (/^[1-5]$/.test(key)) {
      setScore(fieldset || axes()[0], key);
      event.preventDefault();
    } else if (key === "ArrowDown" || key === "ArrowRight") {
      if (target && target.tagName === "SELECT") return;
      focusAxis(fieldset ? axes().indexOf(fieldset) + 1 : 0);
      event.preventDefault();
    } else if (key === "ArrowUp" || key === "ArrowLeft") {
      if (target && target.tagName === "SELECT") return;
      focusAxis(fieldset ? axes().indexOf(fieldset) - 1 : 0);
      event.preventDefault();
    } else if ((key === "+" || key === "=") && fieldset) {
      stepConfidence(fieldset, 1);
      event.preventDefault();
    } else if ((key === "-" || key === "_") && fieldset) {
      stepConfidence(fieldset, -1);
      event.preventDefault();
    } else if (key === "Enter") {
      if (target && (target.tagName === "BUTTON" || target.tagName === "A" || target.tagName === "SUMMARY")) return;
      submitForm(f);
      event.preventDefault();
    } else if (key === "s" || key === "S") {
      const skip = document.getElementById("skip-form");
      if (skip) {
        submitForm(skip);
        event.preventDefault();
      }
    }
  });

  document.addEventListener("change", function (event) {
    if (event.target.closest && event.target.closest("#rating-form")) {
      markChosen();
      save();
    }
  });

  // Drop the stored draft once the server has the rating: the response no longer shows
  // this assignment's form with errors.
  let pending = null;
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (event.target === form() || event.target.id === "skip-form") pending = storageKey();
  });
  document.addEventListener("htmx:afterSettle", function () {
    if (!pending) return;
    const keptForErrors = storageKey() === pending && document.querySelector("#rating-form .has-error");
    if (!keptForErrors) localStorage.removeItem(pending);
    pending = null;
  });
  document.addEventListener("submit", function (event) {
    // Without HTMX (full page POST) the draft is dropped when the next page loads without errors.
    if (event.target.id === "rating-form") sessionStorage.setItem("jaiml-submitted", storageKey() || "");
  });

  function init() {
    const submitted = sessionStorage.getItem("jaiml-submitted");
    if (submitted && !document.querySelector("#rating-form .has-error")) localStorage.removeItem(submitted);
    sessionStorage.removeItem("jaiml-submitted");
    restore();
    markChosen();
    if (form() && !focusedAxis()) {
      const firstError = document.querySelector("#rating-form fieldset.has-error");
      (firstError || axes()[0]).focus();
    }
  }

  document.addEventListener("DOMContentLoaded", init);
  document.addEventListener("htmx:afterSettle", init);
})();
