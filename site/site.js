// Enhancement only: every page works without it, and it adds nothing that the HTML lacks.
// A `#<recipe>` link to a pair page, from before recipes had pages of their own, whose card is not
// on this page (a later page of a large pair) goes on to the recipe's own page.
(function () {
  var id = decodeURIComponent(location.hash.slice(1));
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(id) || document.getElementById(id)) return;
  if (!document.querySelector("nav.pages")) return;  // a pair page of one page has every card
  location.replace(id + ".html");
})();

// Sorting: each column head of a `table.sortable` becomes a button; a click sorts the rows by
// that column (numbers by their `data-value`, else by text), a second click reverses the order.
// Rows without a value (no recipe yet) stay last either way.
(function () {
  function value(row, column) {
    var cell = row.cells[column];
    if (!cell) return null;
    if (cell.hasAttribute("data-value")) return Number(cell.getAttribute("data-value"));
    if (cell.querySelector("[aria-label='no recipe']")) return null;
    return cell.textContent.trim().toLowerCase();
  }
  function compare(a, b) {
    if (a === b) return 0;
    if (a === null) return 1;
    if (b === null) return -1;
    return a < b ? -1 : 1;
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var heads = table.tHead ? table.tHead.rows[0].cells : [];
    Array.prototype.forEach.call(heads, function (head, column) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort";
      while (head.firstChild) button.appendChild(head.firstChild);
      head.appendChild(button);
      button.addEventListener("click", function () {
        var descending = head.getAttribute("aria-sort") === "ascending";
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        head.setAttribute("aria-sort", descending ? "descending" : "ascending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = value(a, column), y = value(b, column);
          if (x === null || y === null) return compare(x, y);
          return descending ? compare(y, x) : compare(x, y);
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  });
})();

// Filters: above the first table of a page whose rows carry data-filter-* attributes, one select
// per attribute (model, family, GPU type, author) with the values the page holds. A row shows
// when it matches every chosen value (data-filter-<kind>s holds a JSON list of several); the GPU
// filter hides the other GPU columns; a section whose rows are all hidden is hidden too.
(function () {
  var kinds = [["model", "Model"], ["family", "Family"], ["gpu", "GPU type"], ["author", "Author"]];
  var first = document.querySelector("table.sortable");
  if (!first) return;
  var form = document.createElement("form");
  form.className = "filters";
  form.setAttribute("role", "search");
  form.setAttribute("aria-label", "Filter the tables");
  // The values an element carries for `kind`, or null when it carries none.
  function carried(element, kind) {
    if (element.hasAttribute("data-filter-" + kind)) return [element.getAttribute("data-filter-" + kind)];
    if (!element.hasAttribute("data-filter-" + kind + "s")) return null;
    try {
      return JSON.parse(element.getAttribute("data-filter-" + kind + "s"));
    } catch (error) {
      return [];
    }
  }
  var selects = {};
  kinds.forEach(function (kind) {
    var values = {};
    var selector = "[data-filter-" + kind[0] + "], [data-filter-" + kind[0] + "s]";
    document.querySelectorAll(selector).forEach(function (element) {
      carried(element, kind[0]).forEach(function (v) { if (v) values[v] = true; });
    });
    var names = Object.keys(values).sort(function (a, b) { return a.localeCompare(b); });
    if (names.length < 2) return;
    var label = document.createElement("label");
    label.textContent = kind[1] + " ";
    var select = document.createElement("select");
    select.name = kind[0];
    select.appendChild(new Option("All", ""));
    names.forEach(function (name) { select.appendChild(new Option(name, name)); });
    label.appendChild(select);
    form.appendChild(label);
    selects[kind[0]] = select;
  });
  if (!Object.keys(selects).length) return;
  var status = document.createElement("p");
  status.className = "muted filter-status";
  status.setAttribute("aria-live", "polite");
  form.appendChild(status);
  var anchor = first.closest("section.family") || first.closest(".table-wrap") || first;
  anchor.parentNode.insertBefore(form, anchor);

  function matches(element, kind) {
    var chosen = selects[kind] && selects[kind].value;
    var values = carried(element, kind);
    return !chosen || values === null || values.indexOf(chosen) >= 0;
  }
  function apply() {
    var shown = 0, total = 0;
    document.querySelectorAll("table.sortable tbody tr").forEach(function (row) {
      var show = matches(row, "model") && matches(row, "family") && matches(row, "author");
      row.hidden = !show;
      total += 1;
      if (show) shown += 1;
    });
    document.querySelectorAll("th[data-filter-gpu], td[data-filter-gpu]").forEach(function (cell) {
      cell.hidden = !matches(cell, "gpu");
    });
    document.querySelectorAll("section.family").forEach(function (section) {
      section.hidden = !matches(section, "family") ||
          !section.querySelector("tbody tr:not([hidden])");
    });
    status.textContent = shown === total ? "" : "Showing " + shown + " of " + total + " rows.";
  }
  form.addEventListener("change", apply);
  form.addEventListener("submit", function (event) { event.preventDefault(); });
})();

// A "Copy" button beside each command and recipe file.
(function () {
  if (!navigator.clipboard) return;
  document.querySelectorAll("pre.command, pre.recipe-file").forEach(function (pre) {
    var head = pre.previousElementSibling;
    if (!head || !head.classList.contains("code-head")) return;
    var button = document.createElement("button");
    button.type = "button";
    button.className = "copy";
    button.textContent = "Copy";
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(pre.textContent).then(function () {
        button.textContent = "Copied";
        setTimeout(function () { button.textContent = "Copy"; }, 1500);
      });
    });
    head.appendChild(button);
  });
})();
