"""Sphinx extension: saved ipywidgets render offline from the book's own files.

Serves ``static/offline-widgets.js`` as ``_static/offline-widgets.js``.  List it in
``nb_ipywidgets_js`` *before* ``widgets/require.js`` so that it runs first on every page with
saved widgets.  It does two things the widget manager (``@jupyter-widgets/html-manager``) needs:

* It configures require.js so that the manager's modules resolve to ``_static/widgets/``.  The
  bundle computes its webpack public path from its AMD module URL; without this, require.js
  resolves ``@jupyter-widgets/html-manager/dist/libembed-amd`` relative to the page and the
  Font Awesome fonts are requested from ``chapters/@jupyter-widgets/html-manager/dist/`` (404).
* It gives MathJax 3 the MathJax 2 call the widgets make.  ``@jupyter-widgets/base`` typesets
  widget labels with ``MathJax.Hub.Queue([...])`` whenever ``window.MathJax`` exists; the book
  loads MathJax 3 (sphinx-mathjax-offline), which has no ``Hub``, so every label raised
  "Cannot read properties of undefined (reading 'Queue')".  The bridge forwards to
  ``MathJax.typesetPromise`` (labels with ``$...$`` are typeset as in Jupyter).
"""

from pathlib import Path

from static_files import serve_folder

STATIC = Path(__file__).resolve().parent / "static"


def setup(app):
    serve_folder(app, STATIC)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
