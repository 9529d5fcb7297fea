/* Saved ipywidgets, offline: run before require.js and embed-amd.js (see offline_widgets). */
(function () {
  "use strict";
  // 1. require.js configuration (read by require.js when it loads): the widget manager's AMD
  //    modules live in _static/widgets/, next to this file, so that the bundle's public path,
  //    derived from its module URL, finds the font files there instead of beside the page.
  var here = document.currentScript ? document.currentScript.src : "";
  var widgets = new URL("widgets", here || document.baseURI).href;
  if (typeof window.require === "undefined") {
    window.require = {
      paths: {
        "@jupyter-widgets": widgets,
        "@jupyter-widgets/html-manager/dist": widgets
      }
    };
  } else if (typeof window.require.config === "function") {
    window.require.config({ paths: { "@jupyter-widgets": widgets, "@jupyter-widgets/html-manager/dist": widgets } });
  }

  // 2. MathJax 2 -> 3 bridge for @jupyter-widgets/base's typeset():
  //    MathJax.Hub.Queue(["Typeset", MathJax.Hub, element]).
  function bridge() {
    var mj = window.MathJax;
    if (!mj || mj.Hub || typeof mj.version !== "string" || mj.version.charAt(0) === "2") return;
    var queue = (mj.startup && mj.startup.promise) || Promise.resolve();
    mj.Hub = {
      Queue: function () {
        var elements = [];
        Array.prototype.forEach.call(arguments, function (job) {
          if (Array.isArray(job) && job[0] === "Typeset" && job[2]) elements.push(job[2]);
        });
        // one typeset at a time, as MathJax 3 asks
        queue = queue.then(function () {
          if (elements.length && typeof mj.typesetPromise === "function") return mj.typesetPromise(elements);
        }).catch(function (err) {
          console.warn("MathJax could not typeset a widget label:", err);
        });
        return queue;
      }
    };
  }
  // MathJax 3 (a deferred script) has replaced its configuration object by DOMContentLoaded;
  // the widgets render on "load", later.
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", bridge);
  } else {
    bridge();
  }
  window.addEventListener("load", bridge);
})();
