"""Sphinx extension: the book's screen style on top of the theme (``static/book.css``).

Text outputs wrap at the text column instead of hiding their ends behind a horizontal scrollbar
(code inputs and listings keep their lines), and figure captions have one readable style.
"""

from pathlib import Path

STATIC = Path(__file__).resolve().parent / "static"


def _add_static_path(app, config):
    if str(STATIC) not in map(str, config.html_static_path):
        config.html_static_path.append(str(STATIC))


def setup(app):
    app.connect("config-inited", _add_static_path)
    app.add_css_file("book.css")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
