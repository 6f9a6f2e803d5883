// The Layer3 batch page: the run dialog, and a run's progress followed over Server-Sent Events
// (GET .../layer3-progress). Texts come from data-text-* attributes, so they are translated on the server;
// data from the server is written with textContent only (never as HTML).
(function () {
  "use strict";

  function formatRate(value) { return value === null || value === undefined ? "–" : (100 * value).toFixed(1) + "%"; }
  function formatNumber(value) { return value === null || value === undefined ? "–" : Number(value).toFixed(2); }
  function pick(obj, block, key) { return obj && obj[block] ? obj[block][key] : null; }

  var SUMMARY = {
    GV_UR: function (s) { return formatRate(pick(s, "gvContentRelevance", "usefulRate")); },
    W2WR_CR: function (s) { return formatRate(pick(s, "w2wrSemanticCorrectness", "correctnessRate")); },
    WS_ENT: function (s) { return formatNumber(pick(s, "widgetDiversity", "avgEntropy")); },
    GC_DEN: function (s) { return formatNumber(pick(s, "graphComplexity", "avgDensity")); }
  };

  function syncJudge(form) {
    var judged = form.querySelectorAll("input[data-judged]:checked").length > 0;
    var controls = form.querySelectorAll("select[name=judge], input[name=budget]");
    for (var i = 0; i < controls.length; i++) { controls[i].disabled = !judged; }
  }

  function follow(panel) {
    if (!panel || panel.dataset.following || !window.EventSource) { return; }
    panel.dataset.following = "1";
    var text = function (key) { return panel.dataset["text" + key.charAt(0).toUpperCase() + key.slice(1)] || key; };
    var $ = function (selector) { return panel.querySelector(selector); };
    var errors = 0;
    var source = new EventSource(panel.dataset.streamUrl);
    source.addEventListener("progress", function (event) {
      var data = JSON.parse(event.data);
      panel.dataset.progressEvents = String(Number(panel.dataset.progressEvents || 0) + 1);
      panel.dataset.progressSeen = (panel.dataset.progressSeen ? panel.dataset.progressSeen + " " : "") + data.percentage;
      $("[data-progress]").value = data.percentage;
      $("[data-percent]").textContent = data.percentage.toFixed(1) + "%";
      $("[data-done]").textContent = data.current;
      $("[data-total]").textContent = data.total;
      $("[data-current]").textContent = data.currentLogId || "–";
      var m = data.metrics || {};
      var parts = [];
      if (m.graphComplexity) { parts.push(text("nodes") + " " + m.graphComplexity.nodeCount + ", " + text("edges") + " " + m.graphComplexity.edgeCount); }
      if (m.widgetDiversity) { parts.push(text("entropy") + " " + formatNumber(m.widgetDiversity.entropy)); }
      if (m.generatedValueRelevance && m.generatedValueRelevance.evaluatedItems) {
        parts.push("GV " + formatRate(m.generatedValueRelevance.usefulRate));
      }
      $("[data-current-metrics]").textContent = parts.length ? parts.join(" · ") : "–";
      $("[data-state]").textContent = text("running");
    });
    source.addEventListener("error", function (event) {
      if (!event.data) {  // the connection itself: EventSource reconnects with Last-Event-ID
        if (source.readyState !== EventSource.CLOSED) { $("[data-state]").textContent = text("lost"); }
        return;
      }
      var data = JSON.parse(event.data);
      errors += 1;
      $("[data-error-count]").textContent = errors;
      var item = document.createElement("li");
      var id = document.createElement("code");
      id.textContent = data.logId || "run";
      item.appendChild(id);
      // the server wrote the message in the page's language; the stored English is the fallback
      item.appendChild(document.createTextNode(" " + (data.message || data.error)));
      $("[data-errors]").appendChild(item);
    });
    source.addEventListener("complete", function (event) {
      source.close();
      var data = JSON.parse(event.data);
      var status = data.status || (data.success ? "succeeded" : "failed");
      var seconds = data.elapsedMs === null || data.elapsedMs === undefined ? "" : " " + text("elapsed") + " " + (data.elapsedMs / 1000).toFixed(1) + " s";
      $("[data-state]").textContent = text(status) + seconds;
      panel.dataset.status = status;
      if (data.success) { $("[data-progress]").value = 100; $("[data-percent]").textContent = "100.0%"; }
      var summary = $("[data-summary]");
      var cells = summary.querySelectorAll("[data-summary-value]");
      for (var i = 0; i < cells.length; i++) { cells[i].textContent = SUMMARY[cells[i].dataset.summaryValue](data.summary); }
      summary.hidden = false;
      var cancel = panel.querySelector("[data-cancel-form]");
      if (cancel) { cancel.hidden = true; }
      $("[data-done-link]").hidden = false;
      var area = document.getElementById("run-area");
      if (window.htmx && area && document.getElementById("results")) {
        window.htmx.ajax("GET", area.dataset.resultsUrl, { target: "#results", swap: "outerHTML" });
      }
      var banner = document.querySelector(".l3-running");
      if (banner) { banner.hidden = true; }
    });
  }

  document.addEventListener("click", function (event) {
    var opener = event.target.closest("[data-open-dialog]");
    if (opener) {
      var dialog = document.getElementById(opener.dataset.openDialog);
      if (dialog && !dialog.open) { dialog.showModal(); }
      return;
    }
    var closer = event.target.closest("[data-close-dialog]");
    if (closer) { closer.closest("dialog").close(); }
  });

  // The export menu follows the statistics section's selectors without a reload: the figure links take the
  // metric, the result files the correction and the family.
  function setParam(link, name, value) {
    var url = new URL(link.getAttribute("href"), window.location.href);
    url.searchParams.set(name, value);
    link.setAttribute("href", url.pathname + url.search);
  }

  function followStatistics(select) {
    var i;
    if (select.name === "metric") {
      var figures = document.querySelectorAll("a[data-follows-metric]");
      for (i = 0; i < figures.length; i++) {
        setParam(figures[i], "metric", select.value);
        var label = figures[i].querySelector("[data-figure-metric]");
        if (label) { label.textContent = select.value; }
      }
    } else if (select.name === "correction" || select.name === "family") {
      var exports = document.querySelectorAll("a[data-follows-statistics]");
      for (i = 0; i < exports.length; i++) { setParam(exports[i], select.name, select.value); }
    }
  }

  document.addEventListener("change", function (event) {
    var form = event.target.closest(".l3-run-form");
    if (form) { syncJudge(form); }
    if (event.target.closest(".l3-stat-form")) { followStatistics(event.target); }
  });

  document.addEventListener("htmx:afterSwap", function (event) {
    follow(event.target.querySelector ? event.target.querySelector(".l3-progress") : null);
  });

  document.addEventListener("DOMContentLoaded", function () {
    var form = document.querySelector(".l3-run-form");
    if (form) { syncJudge(form); }
    follow(document.querySelector(".l3-progress"));
  });
})();
