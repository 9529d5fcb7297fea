"""Show the library's own source in a chapter, as a highlighted code block.

Chapters never re-implement an algorithm: they display the tested function.  The listing is
returned as Markdown (a fenced ``python`` block), which the book renders as a code block in
HTML and in the PDF alike.

Chapter: every chapter that shows an implementation.
"""

from __future__ import annotations

import inspect

__all__ = ["show_source"]


def show_source(*objects):
    """A code block with the source of one or more functions or classes, one after another.

    Parameters
    ----------
    *objects : function or class
        What to show, in order (for example a function and the helper it calls).

    Returns
    -------
    IPython.display.Markdown
        Display it as the last expression of a cell.

    Examples
    --------
    >>> from dynlib.checks import relative_close
    >>> listing = show_source(relative_close)
    >>> listing.data.splitlines()[:2]
    ['```python', 'def relative_close(actual, desired, rtol=1e-10, scale=None):']
    """
    from IPython.display import Markdown

    if not objects:
        raise ValueError("show_source needs at least one function or class")
    for obj in objects:
        if not (inspect.isfunction(obj) or inspect.isclass(obj) or inspect.ismethod(obj)):
            raise TypeError(f"show_source shows functions and classes, got {type(obj).__name__}")
    code = "\n\n".join(inspect.getsource(obj).rstrip() for obj in objects)
    return Markdown(f"```python\n{code}\n```")
