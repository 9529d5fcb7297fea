/* The book on a narrow screen (the book's screen style, book/extensions/screen_style).
 *
 * On a phone a display equation wider than the text column first gives up the room of its number
 * (which moves below it, to the right), then is set in lines at its wide spaces (an equation
 * "A, \qquad B" becomes "A," over "B"), and if it is still too wide, is set smaller, down to FLOOR
 * of its size (its main symbols stay at 13 px or more).  book.css does the layout for the classes
 * set here.  Whatever still scrolls sideways inside its own box (a wide table, a matrix that code
 * printed) is marked, and book.css shows the reader that it does.  A formula in a sentence breaks
 * only after a relation, an operator or a comma.  Wide screens are left as they
 * are: there the browser check (tools/check_pages.py) requires everything to fit.
 *
 * MathJax sizes each formula to the text around it when it typesets the page, and text is set smaller
 * on a phone (in tables, for one).  When the window crosses the phone width (a tablet turned, a window
 * widened), the formulas are measured again, so that the page is laid out as a fresh load at its new
 * width would be.
 */
(function () {
  "use strict";
  var FLOOR = 0.64;
  var NARROW = "(max-width: 600px)";
  var SCROLLS = "scrolls-sideways";
  var BOXES = '.pst-scrollable-table-container, div.math mjx-container[display="true"]';

  function fit(container) {
    var box = container.closest("div.math");
    if (box) box.classList.remove("math-number-below");
    container.classList.remove("math-stacked");
    container.style.removeProperty("--math-scale");
    container.removeAttribute("data-math-scale");
    if (!window.matchMedia(NARROW).matches) return;
    var steps = [
      function () { if (box && box.querySelector(".eqno")) box.classList.add("math-number-below"); },
      function () { container.classList.add("math-stacked"); },
    ];
    for (var i = 0; i < steps.length && container.scrollWidth > container.clientWidth + 1; i++) steps[i]();
    var room = container.clientWidth, wide = container.scrollWidth;
    if (wide <= room + 1) return;
    var scale = Math.max(FLOOR, Math.floor(((room - 2) / wide) * 100) / 100);
    container.style.setProperty("--math-scale", String(scale));
    container.setAttribute("data-math-scale", String(scale));
  }

  function markScrolling() {
    var boxes = document.querySelectorAll(BOXES);
    for (var i = 0; i < boxes.length; i++) {
      var wide = window.matchMedia(NARROW).matches && boxes[i].scrollWidth > boxes[i].clientWidth + 2;
      boxes[i].classList.toggle(SCROLLS, wide);
    }
  }

  // A formula in a sentence may break, on a phone, only where TeX would break it: after a relation
  // (=, <=, <-), a binary operator (+, -), a comma or a wide space.  book.css lets a line break
  // between the outermost symbols of an inline formula; the symbols between two such places are
  // kept together in an unbreakable group.
  function isBreakAfter(node, next) {
    if (node.tagName === "MJX-MSPACE" || node.tagName === "MJX-MSTYLE") return true;
    if (node.tagName !== "MJX-MO") return false;
    var wide = function (n) { var s = n && n.getAttribute("space"); return s === "3" || s === "4"; };
    return wide(node) || wide(next) || !!node.querySelector("mjx-c.mjx-c2C");
  }

  function groupSymbols(math) {
    if (math.hasAttribute("data-grouped")) return;
    var symbols = Array.prototype.slice.call(math.children), group = null;
    for (var i = 0; i < symbols.length; i++) {
      if (!group) {
        group = document.createElement("mjx-nobreak");
        math.insertBefore(group, symbols[i]);
      }
      group.appendChild(symbols[i]);
      if (isBreakAfter(symbols[i], symbols[i + 1])) group = null;
    }
    // a group wider than the line may still break anywhere between its symbols
    var line = math.parentElement.closest("p, li, dd, dt, td, th, figcaption, div");
    var groups = Array.prototype.slice.call(math.querySelectorAll(":scope > mjx-nobreak"));
    for (var k = 0; line && k < groups.length; k++) {
      if (groups[k].getBoundingClientRect().width > line.clientWidth) {
        while (groups[k].firstChild) math.insertBefore(groups[k].firstChild, groups[k]);
        math.removeChild(groups[k]);
      }
    }
    math.setAttribute("data-grouped", "yes");
  }

  var measuredNarrow = null;  // whether MathJax measured the formulas at phone width

  function remeasure() {
    var narrow = window.matchMedia(NARROW).matches, mathjax = window.MathJax && MathJax._;
    if (measuredNarrow === null || narrow === measuredNarrow || !mathjax) {
      measuredNarrow = narrow;
      return Promise.resolve();
    }
    measuredNarrow = narrow;  // (the new formulas replace the symbol groups made at phone width)
    return mathjax.mathjax.mathjax.handleRetriesFor(function () {
      MathJax.startup.document.rerender(mathjax.core.MathItem.STATE.METRICS);
    });
  }

  function fitAll() {
    remeasure().then(fitTypeset);
  }

  function fitTypeset() {
    if (window.matchMedia(NARROW).matches) {
      var inline = document.querySelectorAll('article mjx-container[jax="CHTML"]:not([display="true"]) > mjx-math');
      for (var k = 0; k < inline.length; k++) groupSymbols(inline[k]);
    }
    var containers = document.querySelectorAll('mjx-container[display="true"]');
    for (var i = 0; i < containers.length; i++) fit(containers[i]);
    markScrolling();
    document.documentElement.setAttribute("data-math-fitted", "yes");
  }

  function whenTypeset() {
    if (!document.querySelector(".math")) {
      fitAll();  // a page without equations (MathJax is not loaded on it)
    } else if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
      MathJax.startup.promise.then(fitAll);
    } else {
      setTimeout(whenTypeset, 100);
    }
  }

  var pending = null;
  window.addEventListener("resize", function () {
    clearTimeout(pending);
    pending = setTimeout(fitAll, 150);
  });
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", whenTypeset);
  } else {
    whenTypeset();
  }
})();
