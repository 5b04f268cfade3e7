// git intent serve: progressive enhancement only. Every page reads the same without JavaScript (line links
// carry ?line=N and reload; forms have submit buttons). No network requests, no third-party code.
"use strict";
(function () {
  function fileView() {
    var code = document.getElementById("code");
    if (!code) return;
    var rows = Array.prototype.slice.call(code.querySelectorAll("tr[data-line]"));
    var hint = document.getElementById("hint");
    var current = code.querySelector("tr.selected");

    // Scroll the code box only (never the window), so the panel beside it stays in view.
    function keepVisible(row, centre) {
      var top = row.offsetTop, bottom = top + row.offsetHeight;
      if (centre) code.scrollTop = top - code.clientHeight / 2;
      else if (top < code.scrollTop) code.scrollTop = top;
      else if (bottom > code.scrollTop + code.clientHeight) code.scrollTop = bottom - code.clientHeight;
    }

    function select(row, scroll) {
      if (!row) return;
      if (current) { current.classList.remove("selected"); current.removeAttribute("aria-selected"); }
      current = row;
      row.classList.add("selected");
      row.setAttribute("aria-selected", "true");
      var panels = document.querySelectorAll("#panels .panel");
      for (var i = 0; i < panels.length; i++) panels[i].hidden = panels[i].id !== row.dataset.panel;
      if (hint) hint.hidden = true;
      if (scroll) keepVisible(row);
      history.replaceState(null, "", "?line=" + row.dataset.line + "#L" + row.dataset.line);
    }

    code.addEventListener("click", function (event) {
      var link = event.target.closest && event.target.closest("td.gutter a");
      var row = event.target.closest && event.target.closest("tr[data-line]");
      if (!row) return;
      if (link) event.preventDefault();
      select(row, false);
    });
    code.addEventListener("keydown", function (event) {
      var index = current ? rows.indexOf(current) : -1;
      var next = null;
      if (event.key === "ArrowDown" || event.key === "j") next = rows[Math.min(index + 1, rows.length - 1)];
      else if (event.key === "ArrowUp" || event.key === "k") next = rows[Math.max(index - 1, 0)];
      else if (event.key === "Home") next = rows[0];
      else if (event.key === "End") next = rows[rows.length - 1];
      if (next) { event.preventDefault(); select(next, true); }
    });
    if (current) {
      // The #L anchor (there for readers without JavaScript) scrolls the window too: once the page has
      // loaded, put the window back at the top so the header and legend stay in view, and centre the line.
      window.addEventListener("load", function () {
        requestAnimationFrame(function () { window.scrollTo(0, 0); keepVisible(current, true); });
      });
    }
  }

  function fidelityForms() {
    var selects = document.querySelectorAll("form.fidelity select");
    for (var i = 0; i < selects.length; i++) {
      selects[i].addEventListener("change", function (event) { event.target.form.submit(); });
    }
  }

  document.addEventListener("DOMContentLoaded", function () { fileView(); fidelityForms(); });
})();
