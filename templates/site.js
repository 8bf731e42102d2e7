// Enhancement only: every page works without it.
// A `#<recipe>` link to a pair page, from before recipes had pages of their own, whose card is not
// on this page (a later page of a large pair) goes on to the recipe's own page.
(function () {
  var id = decodeURIComponent(location.hash.slice(1));
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(id) || document.getElementById(id)) return;
  if (!document.querySelector("nav.pages")) return;  // a pair page of one page has every card
  location.replace(id + ".html");
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
