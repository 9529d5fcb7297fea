"""Show the library's own source in a chapter, as a highlighted code block.

Chapters never re-implement an algorithm: they display the tested function.  A listing shows the
code without its docstring (the chapter around it says what the docstring would), as Markdown (a
fenced ``python`` block), which the book renders as a code block in HTML and in the PDF alike.

Chapter: every chapter that shows an implementation.
"""

from __future__ import annotations

import ast
import inspect
import textwrap

__all__ = ["show_source", "source_without_docstrings"]


def source_without_docstrings(obj):
    """The source of a function or class with the docstrings of it and of its methods removed.

    Parameters
    ----------
    obj : function or class

    Returns
    -------
    str
    """
    source = textwrap.dedent(inspect.getsource(obj))
    lines = source.splitlines()
    drop = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            if docstring and isinstance(first.value.value, str):
                drop.update(range(first.lineno - 1, first.end_lineno))
    return "\n".join(line for k, line in enumerate(lines) if k not in drop).rstrip()


def show_source(*objects, docstrings=False):
    """A code block with the source of one or more functions or classes, one after another.

    Parameters
    ----------
    *objects : function or class
        What to show, in order (for example a kernel and the steps it calls).
    docstrings : bool
        Keep the docstrings (by default a listing shows the code alone).

    Returns
    -------
    IPython.display.Markdown
        Display it as the last expression of a cell.

    Examples
    --------
    >>> from dynlib.course.checks import relative_close
    >>> listing = show_source(relative_close)
    >>> listing.data.splitlines()[:2]
    ['```python', 'def relative_close(actual, desired, rtol=1e-10, scale=None):']
    >>> "Parameters" in listing.data            # the docstring is left out
    False
    """
    from IPython.display import Markdown

    if not objects:
        raise ValueError("show_source needs at least one function or class")
    for obj in objects:
        if not (inspect.isfunction(obj) or inspect.isclass(obj) or inspect.ismethod(obj)):
            raise TypeError(f"show_source shows functions and classes, got {type(obj).__name__}")
    show = (lambda o: inspect.getsource(o).rstrip()) if docstrings else source_without_docstrings
    code = "\n\n".join(show(obj) for obj in objects)
    return Markdown(f"```python\n{code}\n```")

