// Enhancement only: a "Copy" button beside each command and recipe file. Every page works without it.
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
