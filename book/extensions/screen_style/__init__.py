"""Sphinx extension: the book's screen style on top of the theme (``static/book.css``).

Text outputs wrap at the text column instead of hiding their ends behind a horizontal scrollbar
(code inputs and listings keep their lines), and figure captions have one readable style.  On a
phone (``static/narrow_screen.js``), display equations fit the column (the number moves below, the
line breaks at its wide spaces, the equation is set smaller within a floor), formulas in sentences
break, and what still scrolls sideways (a wide table) says so.
"""

from pathlib import Path

from static_files import serve_folder

STATIC = Path(__file__).resolve().parent / "static"


def setup(app):
    serve_folder(app, STATIC)
    app.add_css_file("book.css")
    app.add_js_file("narrow_screen.js")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
