// The Layer3 upload page's drop zone: a file dropped on the box becomes the file input's choice, and the
// box names the file chosen (by dropping or by the input itself). Without this script the input works as
// any file input. Kept out of the HTML so that the Content-Security-Policy can forbid inline scripts.
(function () {
  "use strict";

  function bind(zone) {
    var input = zone.querySelector("[data-drop-input]");
    var chosen = zone.querySelector("[data-drop-chosen]");
    if (!input) { return; }

    function show() {
      var file = input.files && input.files[0];
      zone.classList.toggle("has-file", Boolean(file));
      if (chosen) {
        chosen.hidden = !file;
        chosen.textContent = file ? file.name + " (" + size(file.size) + ")" : "";
      }
    }

    function size(bytes) {
      if (bytes >= 1024 * 1024) { return (bytes / (1024 * 1024)).toFixed(1) + " MB"; }
      if (bytes >= 1024) { return (bytes / 1024).toFixed(1) + " KB"; }
      return bytes + " B";
    }

    function over(event) {
      if (!event.dataTransfer || Array.prototype.indexOf.call(event.dataTransfer.types || [], "Files") < 0) { return; }
      event.preventDefault();
      event.dataTransfer.dropEffect = "copy";
      zone.classList.add("is-dragover");
    }

    zone.addEventListener("dragenter", over);
    zone.addEventListener("dragover", over);
    zone.addEventListener("dragleave", function (event) {
      if (!zone.contains(event.relatedTarget)) { zone.classList.remove("is-dragover"); }
    });
    zone.addEventListener("drop", function (event) {
      zone.classList.remove("is-dragover");
      if (!event.dataTransfer || !event.dataTransfer.files || !event.dataTransfer.files.length) { return; }
      event.preventDefault();
      input.files = event.dataTransfer.files;
      input.dispatchEvent(new Event("change", { bubbles: true }));
    });
    input.addEventListener("change", show);
    show();
  }

  document.addEventListener("DOMContentLoaded", function () {
    var zones = document.querySelectorAll("[data-drop-zone]");
    for (var i = 0; i < zones.length; i++) { bind(zones[i]); }
  });
})();
